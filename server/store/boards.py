"""The boards' read queries: daily boards, "around me", a player's figures, race history,
race results, replays and the rating boards.

The queries are tuned for their indexes (docs/performance.md; bench/leaderboard.py and
bench/all_time.py print their plans): a daily board's order lives in two generated
columns of ``daily_entries`` (sql/0020_daily.sql), so a page, a rank and "around me"
are each one range of the index ``daily_entries_board`` (or ``…_board_guild`` for one
guild), and ranks come from the index alone (an index-only scan up to the page's end);
only the page's own lines are read from the table. The rules (which board, how pages
are counted, streaks, who may see a replay) are the services' (server/services/
leaderboard.py, server/services/all_time.py); this module reads, returns typed records
and turns a lost database into ``UnavailableError``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from typing import Any

import asyncpg

from server import protocol as p
from server.store.daily_board import Board, board_line
from server.store.pool import guarded, to_ms

# A player's all-time figures per variant: ranked dailies that are over, and ranked races;
# a result held back (``held``: unranked, not yet reviewed, or held for review) counts for
# nothing (server/services/review.py).
STATS_SQL = """
with games as (
    select d.variant, d.status = 'won' as won, d.time_ms, d.moves
    from daily_entries d
    where d.player_id = $1 and d.ranked and d.held is null and d.status <> 'playing'
    union all
    select e.variant, r.finished, r.time_ms, r.moves
    from results r join entries e on e.id = r.entry_id
    where r.player_id = $1 and r.race_id is not null and r.held is null
)
select variant, count(*) as games, count(*) filter (where won) as wins,
       min(time_ms) filter (where won) as best_time_ms,
       min(moves) filter (where won) as fewest_moves,
       round(avg(time_ms) filter (where won))::bigint as average_win_time_ms
from games
where $2::text is null or variant = $2
group by variant order by variant
"""

# The days a player won their ranked daily, for the streaks.
WON_DAYS_SQL = """
select d.variant, d.day from daily_entries d
where d.player_id = $1 and d.ranked and d.held is null and d.status = 'won'
  and ($2::text is null or d.variant = $2)
"""

# A guild's players of a variant: a ranked daily attempt started from the guild, or a game
# of a race created there (the index ranges of daily_entries_all_time and
# entries_race_variant, sql/0030_all_time.sql and sql/0080_fair_play.sql); $1 variant,
# $2 guild (null: no guild, the CTE is not read).
_GUILD_PLAYERS = """
guild_players as (
    select d.player_id from daily_entries d
    where d.variant = $1 and d.guild_id = $2 and d.ranked and d.held is null
      and d.status <> 'playing'
    union
    select e.player_id from entries e
    where e.variant = $1 and e.guild_id = $2 and e.race_id is not null
)
"""

# A pool's rating board (server/services/all_time.py): every player rated in the pool and
# no longer provisional ($4: the provisional σ), one guild's or all; $3 the pool's options.
# The range of the ratings' primary key (variant, options, player_id).
RATING_BOARD_SQL = f"""
with {_GUILD_PLAYERS}
select q.player_id, q.mu, q.sigma, q.games from ratings q
where q.variant = $1 and q.options = $3 and q.sigma < $4
  and not exists (select 1 from players b where b.id = q.player_id and b.barred_at is not null)
  and ($2::text is null or q.player_id in (select player_id from guild_players))
"""

# How many players of a pool are rated but still provisional (apart from its board).
PROVISIONAL_SQL = f"""
with {_GUILD_PLAYERS}
select count(*) from ratings q
where q.variant = $1 and q.options = $3 and q.sigma >= $4
  and not exists (select 1 from players b where b.id = q.player_id and b.barred_at is not null)
  and ($2::text is null or q.player_id in (select player_id from guild_players))
"""

_RACE_HISTORY_SQL = """
select r.race_id, rc.variant, rc.ended_at, r.rank, r.finished, r.resigned,
       r.time_ms, r.moves, r.held,
       (select count(*) from results o where o.race_id = r.race_id) as players
from results r join races rc on rc.id = r.race_id
where r.player_id = $1 and r.race_id is not null
  and ($3::bigint is null or r.race_id < $3)
order by r.recorded_at desc, r.race_id desc
limit $2
"""

# The holds of a race result that a player is told as why it did not rank.
_UNRANKED_HELD: dict[str | None, p.UnrankedReason] = {
    "guest": "guest",
    "unranked": "unranked_race",
}

_REPLAY_SQL = """
select e.*, pl.display_name, rc.state as race_state, d.day, d.status as daily_status,
    d.deadline
from entries e join players pl on pl.id = e.player_id
left join races rc on rc.id = e.race_id
left join daily_entries d on d.entry_id = e.id
where e.id = $1
"""


@dataclass(frozen=True, slots=True)
class Around:
    """A board's total, the player's line (None when not on it) and the lines around it."""

    total: int
    me: p.BoardLine | None
    lines: list[p.BoardLine]


@dataclass(frozen=True, slots=True)
class VariantTotals:
    """A player's counted games of one variant, as summed by the database."""

    variant: str
    games: int
    wins: int
    best_time_ms: int | None
    fewest_moves: int | None
    average_win_time_ms: int | None


@dataclass(frozen=True, slots=True)
class PlayerFigures:
    """A player's totals per variant and, per variant, the days they won the ranked daily."""

    totals: list[VariantTotals]
    won_days: dict[str, list[date]]


class RatedTotals(asyncpg.Record):
    """One player's line of a rating board before ranking: the columns player_id, mu,
    sigma and games (their skill in the pool and rated games), in that order
    (``RATING_BOARD_SQL``).

    The database's own row (asyncpg's ``record_class``) with typed names, not a copy: a
    board may hold every rated player of a variant. A row unpacks in the column order.
    """

    @property
    def player_id(self) -> int:
        return int(self["player_id"])

    @property
    def mu(self) -> float:
        return float(self["mu"])

    @property
    def sigma(self) -> float:
        return float(self["sigma"])

    @property
    def games(self) -> int:
        return int(self["games"])


@dataclass(frozen=True, slots=True)
class StoredRace:
    """A race's public record, as the result of a race shows it."""

    race_id: int
    state: str
    variant: str
    options: dict[str, Any]
    ended_at: int | None
    end_reason: str | None
    commitment: str
    seed: int
    salt: str


@dataclass(frozen=True, slots=True)
class ResultLine:
    """One racer's line of a race's stored ranking (``rank`` None: not ranked)."""

    rank: int | None
    player_id: int
    name: str
    game_id: int
    foundation: int
    moves: int
    score: int
    finished: bool
    resigned: bool
    time_ms: int | None


@dataclass(frozen=True, slots=True)
class ReplayGame:
    """A stored game as a replay needs it, with what decides whether it is still live:
    its race's state and, for a daily attempt, its day."""

    game_id: int
    player_id: int
    name: str
    variant: str
    options: dict[str, Any]
    seed: int
    status: str
    race_id: int | None
    race_state: str | None
    day: date | None
    # A daily attempt's own end: its status, and when its play time runs out.
    daily_status: str | None = None
    deadline: int | None = None

    def daily_over(self, now: int) -> bool:
        """Whether this daily attempt is over: won, given up or out of its play time
        (which the sweep marks a little later than it happens)."""
        return self.daily_status != "playing" or (
            self.deadline is not None and now >= self.deadline
        )


class BoardStore:
    """The read side of the server's database: boards, figures, races and replays."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    # ------------------------------------------------------------ daily boards

    @guarded
    async def lines(self, board: Board, limit: int, offset: int) -> tuple[int, list[p.BoardLine]]:
        """The board's total and its lines from ``offset`` (at most ``limit``)."""
        rows = await self.pool.fetch(board.page_sql(), *board.args, limit, offset)
        if not rows:  # past the last line
            return int(await self.pool.fetchval(board.count_sql(), *board.args)), []
        return int(rows[0]["total"]), [board_line(r) for r in rows]

    @guarded
    async def around(self, board: Board, player_id: int, span: int) -> Around:
        """The player's line with ``span`` lines above and below it, and the board's total."""
        rows = await self.pool.fetch(board.around_sql(), *board.args, player_id, span)
        if not rows:  # no attempt of the player's on this board
            total = int(await self.pool.fetchval(board.count_sql(), *board.args))
            return Around(total, None, [])
        lines = [board_line(r) for r in rows]
        mine = next(line for line, row in zip(lines, rows, strict=True) if row["mine"])
        return Around(int(rows[0]["total"]), mine, lines)

    # ------------------------------------------------------------ a player's figures

    @guarded
    async def player_name(self, player_id: int) -> str | None:
        """A player's display name, or None when there is no such player."""
        name = await self.pool.fetchval("select display_name from players where id=$1", player_id)
        return None if name is None else str(name)

    @guarded
    async def names(self, players: list[int]) -> dict[int, str]:
        """The display names of ``players`` (those that exist)."""
        if not players:
            return {}
        rows = await self.pool.fetch(
            "select id, display_name from players where id = any($1::bigint[])", players
        )
        return {row["id"]: row["display_name"] for row in rows}

    @guarded
    async def figures(self, player_id: int, variant: str | None) -> PlayerFigures:
        """A player's totals per variant (one variant's, or all) and their won daily days."""
        async with self.pool.acquire() as conn:
            rows = await conn.fetch(STATS_SQL, player_id, variant)
            won = await conn.fetch(WON_DAYS_SQL, player_id, variant)
        won_days: dict[str, list[date]] = {}
        for row in won:
            won_days.setdefault(row["variant"], []).append(row["day"])
        totals = [
            VariantTotals(
                variant=row["variant"],
                games=row["games"],
                wins=row["wins"],
                best_time_ms=row["best_time_ms"],
                fewest_moves=row["fewest_moves"],
                average_win_time_ms=row["average_win_time_ms"],
            )
            for row in rows
        ]
        return PlayerFigures(totals, won_days)

    @guarded
    async def bar_count(self) -> int:
        """How many times a player was barred or unbarred (sql/0122_player_bars.sql): a
        board kept from before the last one may show a barred player."""
        return int(
            await self.pool.fetchval(
                "select case when is_called then last_value else 0 end from player_bars"
            )
        )

    @guarded
    async def rating_board(
        self, variant: str, options: str, guild_id: str | None, provisional_sigma: float
    ) -> tuple[list[RatedTotals], int]:
        """Every player on a pool's rating board (one guild's, or global), and how many
        rated players are still provisional."""
        async with self.pool.acquire() as conn:
            rows = await conn.fetch(
                RATING_BOARD_SQL,
                variant,
                guild_id,
                options,
                provisional_sigma,
                record_class=RatedTotals,
            )
            provisional = await conn.fetchval(
                PROVISIONAL_SQL, variant, guild_id, options, provisional_sigma
            )
        return rows, int(provisional)

    # ------------------------------------------------------------ races

    @guarded
    async def race_history(
        self, player_id: int, limit: int, before: int | None
    ) -> list[p.RaceSummary]:
        """A player's finished races, newest first, at most ``limit``, older than race
        ``before`` when given."""
        rows = await self.pool.fetch(_RACE_HISTORY_SQL, player_id, limit, before)
        return [
            p.RaceSummary(
                race=r["race_id"],
                variant=r["variant"],
                ended_at=to_ms(r["ended_at"]),
                players=r["players"],
                rank=r["rank"],
                finished=r["finished"],
                resigned=r["resigned"],
                time_ms=r["time_ms"],
                moves=r["moves"],
                unranked=_UNRANKED_HELD.get(r["held"]),
            )
            for r in rows
        ]

    @guarded
    async def race(self, race_id: int) -> StoredRace | None:
        """A race's public record, or None."""
        row = await self.pool.fetchrow("select * from races where id=$1", race_id)
        if row is None:
            return None
        return StoredRace(
            race_id=row["id"],
            state=row["state"],
            variant=row["variant"],
            options=json.loads(row["options"]),
            ended_at=to_ms(row["ended_at"]),
            end_reason=row["end_reason"],
            commitment=row["commitment"],
            seed=int(row["seed"]),
            salt=row["salt"],
        )

    @guarded
    async def race_results(self, race_id: int) -> list[ResultLine]:
        """A race's stored ranking: ranked lines in order, then the unranked ones."""
        rows = await self.pool.fetch(
            """
            select r.*, pl.display_name from results r join players pl on pl.id = r.player_id
            where r.race_id = $1 order by r.rank nulls last, r.entry_id
            """,
            race_id,
        )
        return [
            ResultLine(
                rank=r["rank"],
                player_id=r["player_id"],
                name=r["display_name"],
                game_id=r["entry_id"],
                foundation=r["foundation"],
                moves=r["moves"],
                score=r["score"],
                finished=r["finished"],
                resigned=r["resigned"],
                time_ms=r["time_ms"],
            )
            for r in rows
        ]

    # ------------------------------------------------------------ replays

    @guarded
    async def replay_game(self, game_id: int) -> ReplayGame | None:
        """A stored game with its player's name, its race's state and its daily day."""
        row = await self.pool.fetchrow(_REPLAY_SQL, game_id)
        if row is None:
            return None
        return ReplayGame(
            game_id=row["id"],
            player_id=row["player_id"],
            name=row["display_name"],
            variant=row["variant"],
            options=json.loads(row["options"]),
            seed=int(row["seed"]),
            status=row["status"],
            race_id=row["race_id"],
            race_state=row["race_state"],
            day=row["day"],
            daily_status=row["daily_status"],
            deadline=to_ms(row["deadline"]),
        )

    @guarded
    async def ranked_attempt(self, player_id: int, variant: str, day: date) -> ReplayGame | None:
        """A player's ranked (first) attempt at ``variant``'s deal of ``day``, or None."""
        game_id = await self.pool.fetchval(
            "select entry_id from daily_entries "
            "where player_id=$1 and variant=$2 and day=$3 and ranked",
            player_id,
            variant,
            day,
        )
        return None if game_id is None else await self.replay_game(int(game_id))

    @guarded
    async def actions(self, game_id: int) -> list[str]:
        """A game's logged actions in order."""
        rows = await self.pool.fetch(
            "select action from moves where game_id=$1 order by seq", game_id
        )
        return [r["action"] for r in rows]
