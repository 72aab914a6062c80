-- One player on every client: a guest who signs in with Discord becomes that Discord player.
--
-- The Discord bot's `discord:<id>` player is the player that user is when signed in from
-- the browser (or, later, an Activity). When a guest signs in, the games it finished move
-- to the Discord player (server/store/accounts.py: their entries, results and daily
-- attempts, in one transaction); the guest's row stays, naming the player it became, so
-- that its old token is refused rather than reopening an empty guest, and nothing that
-- still names the row (a game it left in play, a race it created) loses its player.

alter table players
    add column merged_into bigint references players (id),
    add column merged_at timestamptz;
