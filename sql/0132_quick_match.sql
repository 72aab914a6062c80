-- The quick match queue, one for every server process and host (docs/ratings.md,
-- "Quick match").
--
-- A row is a player waiting for a race of one pool (variant, options, rated, difficulty),
-- with the rating they are matched at and since when they wait. The process that holds
-- the player's connection keeps ``seen_at`` fresh; a row not seen for a while is not
-- matched (its player is away) and is dropped after a minute, so a reconnect within it
-- keeps the player's place. Each process looks at the waiting rows with
-- ``FOR UPDATE SKIP LOCKED``, so two never take the same player; a group's race is
-- created and its id written to its rows in that transaction. The process holding a
-- matched player's connection tells them (``match_found``) and deletes the row.
create table match_queue (
    player_id bigint primary key references players (id),
    principal text not null,
    name text not null,
    locale text not null,
    variant text not null,
    options text not null,
    rated boolean not null,
    difficulty text check (difficulty in ('easy', 'medium', 'hard')),
    rating int not null,
    joined_at timestamptz not null,
    seen_at timestamptz not null,
    race_id bigint references races (id),
    matched_at timestamptz
);

create index match_queue_waiting on match_queue (joined_at) where race_id is null;
