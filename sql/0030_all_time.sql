-- Indexes for the all-time board, "my games" and a service's open races.
--
-- The all-time board of a variant (server/leaderboard.py) aggregates, per player, the
-- ranked daily attempts that are over and the games of races; each part is one range
-- of an index that holds every column the aggregate reads. A player's games still
-- being played and the races of one guild not yet finished are small index ranges too.

create index daily_entries_all_time
    on daily_entries (variant, player_id) include (status, time_ms, guild_id)
    where ranked and status <> 'playing';
create index entries_race_variant
    on entries (variant, guild_id) include (id)
    where race_id is not null;
create index entries_playing on entries (player_id, created_at) where status = 'playing';
create index races_open_guild on races (guild_id, created_at) where state <> 'finished';
