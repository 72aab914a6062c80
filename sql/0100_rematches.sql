-- A race's rematch, stored: the race opened after another race's end for its players.
--
-- The link was kept only in the memory of the process holding the old race, so after a
-- restart (or through another process) a second player's `rematch` opened yet another
-- race instead of joining the first one's. Now the new race names the race it follows,
-- and at most one race may follow a race: the first insert wins, and a process that
-- loses (two players asking at once, through two processes) joins the winner's race.

alter table races add column rematch_of bigint references races (id);

create unique index races_rematch_of on races (rematch_of) where rematch_of is not null;
