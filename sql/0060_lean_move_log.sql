-- The move log takes one row per acknowledged move, so what each row costs the
-- database is paid on every move of every player (docs/performance.md, "Race server").
-- Two per-row checks guarded nothing the server does not already guarantee:
--
-- * The foreign key to entries ran a trigger per row that looked up the entry and
--   locked it (a row lock is a heap write and a WAL record). The server writes a
--   game's moves only for an entry it has loaded, and no entry is ever deleted.
-- * The unique index on (game_id, move_id) refused a client's move id used twice in
--   one game. A retransmitted move is recognised before it is played, under the
--   game's lock, from the ids of the game's moves (kept with the game, and read back
--   with the move log on a replay); a process whose copy of the game is behind
--   offers a sequence number the log already holds, and the primary key on
--   (game_id, seq) refuses it (server/commit.py).
--
-- Without the two, a move row costs PostgreSQL about 12 µs of CPU instead of 22
-- (bench figures in docs/performance.md). The move id stays in the row: a replay
-- still reads it.
alter table moves drop constraint moves_game_id_fkey;
drop index moves_client_id;
