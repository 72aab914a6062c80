-- The name a player races under, kept with their race entry.
--
-- A player may change their display name at any time (`set_profile`, or a Discord name
-- that changed). A race's standings keep the name each racer joined with, so the names
-- on a live race's board cannot change under the other racers (nobody can take a
-- rival's name mid-race), whichever process rebuilds the race from the database.
-- Practice and daily games have none: their boards show the player's current name.

alter table entries add column racer_name text;
