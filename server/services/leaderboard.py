"""Leaderboards, statistics, race history and replays: the server's read side.

Daily boards rank a day's ranked attempts at a variant's deal: wins first, then
less time, then fewer moves; equal results share a rank, and every attempt not won
shares the place after the last win. The order lives in two generated columns of
``daily_entries`` (sql/0020_daily.sql) so that a page, a rank and "around me" are
each one range of the index ``daily_entries_board`` (or ``…_board_guild`` for one
guild). Practice attempts (not the player's first) are a separate board.

All-time figures per player and variant count ranked daily attempts that are over
and finished races; practice games count for nothing. A daily streak is a run of
consecutive UTC days with a won ranked daily of that variant; the current streak
is the run that ends today or yesterday (today's deal may still be unplayed).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import asyncpg

import engine
from server import protocol as p
from server.core.identity import Principal
from server.protocol.errors import DailyError, GameError, NotFoundError
from server.services.all_time import AllTimeBoards
from server.services.daily import check_variant, closes_at_ms, day_of, parse_day
from server.store.storage import _guarded, from_ms, to_ms

# The attempts of one board: the SQL fragment and its parameters after $1 variant, $2 day.
_SCOPES = {
    (True, False): "d.ranked",
    (True, True): "d.ranked and d.guild_id = $3",
    (False, False): "not d.ranked",
    (False, True): "not d.ranked and d.guild_id = $3",
}

# Ranks come from the index alone (an index-only scan up to the page's end); only
# the page's own lines are read from the table.
_LINE = """
with {ctes}ranked as (
    select d.entry_id, d.board_time_ms, d.board_moves,
           rank() over (order by d.board_time_ms, d.board_moves) as rank
    from daily_entries d
    where d.variant = $1 and d.day = $2 and {scope}
    order by d.board_time_ms, d.board_moves, d.entry_id
    limit {limit} offset {offset}
)
select r.rank, a.player_id, pl.display_name, a.entry_id, a.status, a.time_ms, a.moves,
       a.undos, a.hints, a.guild_id{extra}
from ranked r
join daily_entries a on a.entry_id = r.entry_id
join players pl on pl.id = a.player_id
order by r.board_time_ms, r.board_moves, r.entry_id
"""


# A player's all-time figures per variant: ranked dailies that are over, and races.
STATS_SQL = """
with games as (
    select d.variant, d.status = 'won' as won, d.time_ms, d.moves
    from daily_entries d
    where d.player_id = $1 and d.ranked and d.status <> 'playing'
    union all
    select e.variant, r.finished, r.time_ms, r.moves
    from results r join entries e on e.id = r.entry_id
    where r.player_id = $1 and r.race_id is not null
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
where d.player_id = $1 and d.ranked and d.status = 'won'
  and ($2::text is null or d.variant = $2)
"""


@dataclass(frozen=True, slots=True)
class Board:
    """Which board: a variant's day, global or one guild, ranked or practice."""

    variant: str
    day: date
    guild_id: str | None = None
    ranked: bool = True

    @property
    def scope(self) -> str:
        """The SQL condition selecting this board's attempts (ranked is a literal so the
        planner can use the partial indexes)."""
        return _SCOPES[(self.ranked, self.guild_id is not None)]

    @property
    def args(self) -> tuple[Any, ...]:
        """The parameters of ``scope``, after variant and day."""
        base: tuple[Any, ...] = (self.variant, self.day)
        return base if self.guild_id is None else (*base, self.guild_id)

    def _where(self) -> str:
        return f"d.variant = $1 and d.day = $2 and {self.scope}"

    def count_sql(self) -> str:
        """How many attempts the board holds."""
        return f"select count(*) from daily_entries d where {self._where()}"

    def around_sql(self) -> str:
        """A player's line and ``span`` lines above and below it, each row with the
        board's total and whether it is the player's (the next parameters are the
        player and the span). One statement: one snapshot, one round trip."""
        n, where = len(self.args), self._where()
        player, span = f"${n + 1}", f"${n + 2}"
        me = (
            f"select d.entry_id, d.board_time_ms, d.board_moves from daily_entries d "
            f"where {where} and d.player_id = {player} order by d.entry_id limit 1"
        )
        place = (
            f"select count(*) as before from daily_entries d where {where} "
            f"and (d.board_time_ms, d.board_moves, d.entry_id) < ((select board_time_ms from me), "
            f"(select board_moves from me), (select entry_id from me))"
        )
        return _LINE.format(
            ctes=f"me as ({me}), place as ({place}), ",
            scope=f"{self.scope} and exists (select 1 from me)",
            limit=f"(select least(before, {span}) + {span} + 1 from place)",
            offset=f"(select greatest(0, before - {span}) from place)",
            extra=", r.entry_id = (select entry_id from me) as mine, "
            f"(select count(*) from daily_entries d where {where}) as total",
        )

    def page_sql(self) -> str:
        """Lines with their ranks, each row with the board's total (the next parameters
        are limit and offset)."""
        n = len(self.args)
        return _LINE.format(
            ctes="",
            scope=self.scope,
            limit=f"${n + 1}",
            offset=f"${n + 2}",
            extra=f", (select count(*) from daily_entries d where {self._where()}) as total",
        )


def _line(row: asyncpg.Record) -> p.BoardLine:
    return p.BoardLine(
        rank=row["rank"],
        player=row["player_id"],
        name=row["display_name"],
        game=row["entry_id"],
        status=row["status"],
        time_ms=row["time_ms"],
        moves=row["moves"],
        undos=row["undos"],
        hints=row["hints"],
        guild_id=row["guild_id"],
    )


def streaks(won_days: Sequence[date], today: date) -> tuple[int, int]:
    """(current, longest) run of consecutive days in ``won_days`` (any order, repeats ok).

    The current run must end today or yesterday: a streak is not broken before the
    day on which it could no longer be continued has begun.
    """
    days = sorted(set(won_days))
    longest = run = 0
    previous: date | None = None
    for day in days:
        run = run + 1 if previous is not None and day - previous == timedelta(days=1) else 1
        longest = max(longest, run)
        previous = day
    current = run if previous is not None and today - previous <= timedelta(days=1) else 0
    return current, longest


class Leaderboard:
    """Reads for boards, statistics, history and replays."""

    def __init__(self, pool: asyncpg.Pool, clock: Callable[[], int], time_limit_ms: int) -> None:
        self.pool = pool
        self.clock = clock
        self.time_limit_ms = time_limit_ms
        self.all_time_boards = AllTimeBoards(pool, clock)

    def _board(
        self, variant: str, text: str | None, guild_id: str | None, ranked: bool = True
    ) -> Board:
        check_variant(variant)
        return Board(
            variant,
            parse_day(text, self.clock()),
            guild_id,
            ranked,
        )

    # ------------------------------------------------------------ daily boards

    async def page(self, board: Board, page: int, page_size: int) -> tuple[int, list[p.BoardLine]]:
        """The board's total and its ``page`` (from 1) of ``page_size`` lines."""
        rows = await self.pool.fetch(
            board.page_sql(), *board.args, page_size, (page - 1) * page_size
        )
        if not rows:  # past the last page
            return int(await self.pool.fetchval(board.count_sql(), *board.args)), []
        return int(rows[0]["total"]), [_line(r) for r in rows]

    async def around(
        self, board: Board, player_id: int, span: int
    ) -> tuple[int, p.BoardLine | None, list[p.BoardLine]]:
        """The board's total, the player's line, and ``span`` lines above and below it."""
        rows = await self.pool.fetch(board.around_sql(), *board.args, player_id, span)
        if not rows:  # no attempt of the player's on this board
            return int(await self.pool.fetchval(board.count_sql(), *board.args)), None, []
        lines = [_line(r) for r in rows]
        mine = next(line for line, row in zip(lines, rows, strict=True) if row["mine"])
        return int(rows[0]["total"]), mine, lines

    @_guarded
    async def daily_board(self, who: Principal, message: p.DailyBoard) -> p.BoardReply:
        """Reply to daily_board."""
        board = self._board(message.variant, message.date, message.guild_id, message.ranked)
        total, lines = await self.page(board, message.page, message.page_size)
        return p.BoardReply(
            id=message.id,
            variant=board.variant,
            date=board.day.isoformat(),
            scope="global" if board.guild_id is None else "guild",
            ranked=board.ranked,
            total=total,
            lines=lines,
            page=message.page,
            page_size=message.page_size,
        )

    @_guarded
    async def daily_around(self, who: Principal, message: p.DailyAround) -> p.BoardReply:
        """Reply to daily_around."""
        board = self._board(message.variant, message.date, message.guild_id)
        total, me, lines = await self.around(board, who.player_id, message.span)
        return p.BoardReply(
            id=message.id,
            variant=board.variant,
            date=board.day.isoformat(),
            scope="global" if board.guild_id is None else "guild",
            ranked=True,
            total=total,
            lines=lines,
            me=me,
        )

    # ------------------------------------------------------------ all-time figures

    async def stats(self, player_id: int, variant: str | None = None) -> list[p.VariantStats]:
        """A player's all-time figures per variant, with daily streaks (UTC days)."""
        async with self.pool.acquire() as conn:
            rows = await conn.fetch(
                STATS_SQL,
                player_id,
                variant,
            )
            won_days = await conn.fetch(
                WON_DAYS_SQL,
                player_id,
                variant,
            )
        today = day_of(self.clock())
        days: dict[str, list[date]] = {}
        for row in won_days:
            days.setdefault(row["variant"], []).append(row["day"])
        figures = []
        for row in rows:
            current, longest = streaks(days.get(row["variant"], []), today)
            figures.append(
                p.VariantStats(
                    variant=row["variant"],
                    games=row["games"],
                    wins=row["wins"],
                    win_rate=round(row["wins"] / row["games"], 4),
                    best_time_ms=row["best_time_ms"],
                    fewest_moves=row["fewest_moves"],
                    average_win_time_ms=row["average_win_time_ms"],
                    current_streak=current,
                    longest_streak=longest,
                )
            )
        return figures

    @_guarded
    async def player_stats(self, who: Principal, message: p.PlayerStats) -> p.StatsReply:
        """Reply to player_stats."""
        player_id = who.player_id if message.player is None else message.player
        name = await self.pool.fetchval("select display_name from players where id=$1", player_id)
        if name is None:
            raise NotFoundError(what="player", ref=player_id)
        figures = await self.stats(player_id, message.variant)
        return p.StatsReply(id=message.id, player=player_id, name=name, variants=figures)

    # ------------------------------------------------------------ all-time boards

    @_guarded
    async def all_time(self, who: Principal, message: p.AllTimeBoard) -> p.AllTimeReply:
        """Reply to leaderboard: a variant's all-time board (server/services/all_time.py)."""
        return await self.all_time_boards.reply(who.player_id, message)

    # ------------------------------------------------------------ races

    @_guarded
    async def race_history(self, who: Principal, message: p.RaceHistory) -> p.RaceHistoryReply:
        """Reply to race_history: the player's finished races, newest first."""
        player_id = who.player_id if message.player is None else message.player
        rows = await self.pool.fetch(
            """
            select r.race_id, rc.variant, rc.ended_at, r.rank, r.finished, r.resigned,
                   r.time_ms, r.moves,
                   (select count(*) from results o where o.race_id = r.race_id) as players
            from results r join races rc on rc.id = r.race_id
            where r.player_id = $1 and r.race_id is not null
              and ($3::bigint is null or r.race_id < $3)
            order by r.recorded_at desc, r.race_id desc
            limit $2
            """,
            player_id,
            message.limit,
            message.before,
        )
        races = [
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
            )
            for r in rows
        ]
        return p.RaceHistoryReply(id=message.id, player=player_id, races=races)

    @_guarded
    async def race_result(self, who: Principal, message: p.RaceResult) -> p.RaceResultReply:
        """Reply to race_result: a finished race's ranking, seed and salt.

        Raises:
            NotFoundError: no such race.
            DailyError: ``race_not_finished``.
        """
        race = await self.pool.fetchrow("select * from races where id=$1", message.race)
        if race is None:
            raise NotFoundError(what="race", ref=message.race)
        if race["state"] != "finished":
            raise DailyError("race_not_finished", race=message.race)
        rows = await self.pool.fetch(
            """
            select r.*, pl.display_name from results r join players pl on pl.id = r.player_id
            where r.race_id = $1 order by r.rank nulls last, r.entry_id
            """,
            message.race,
        )
        ranking = [
            p.Ranked(
                rank=r["rank"] or 0,
                player=r["player_id"],
                name=r["display_name"],
                foundation=r["foundation"],
                moves=r["moves"],
                score=r["score"],
                finished=r["finished"],
                resigned=r["resigned"],
                time_ms=r["time_ms"],
            )
            for r in rows
        ]
        return p.RaceResultReply(
            id=message.id,
            race=race["id"],
            variant=race["variant"],
            options=json.loads(race["options"]),
            ended_at=to_ms(race["ended_at"]),
            end_reason=race["end_reason"],
            commitment=race["commitment"],
            seed=str(int(race["seed"])),
            salt=race["salt"],
            ranking=ranking,
            games={str(r["player_id"]): r["entry_id"] for r in rows},
        )

    # ------------------------------------------------------------ replays

    @_guarded
    async def replay(self, who: Principal, message: p.GetReplay) -> p.ReplayReply:
        """Reply to replay: a finished game's record, and its view after ``step`` actions.

        Only once nobody can still be playing the deal: a race once finished, a daily
        attempt once its day is closed, a practice game once it is over.

        Raises:
            NotFoundError: no such game.
            DailyError: ``deal_live`` while the deal is still being played.
            GameError: ``invalid_options`` for a step outside the game.
        """
        row = await self.pool.fetchrow(
            """
            select e.*, pl.display_name, rc.state as race_state, d.day
            from entries e join players pl on pl.id = e.player_id
            left join races rc on rc.id = e.race_id
            left join daily_entries d on d.entry_id = e.id
            where e.id = $1
            """,
            message.game,
        )
        if row is None:
            raise NotFoundError(what="game", ref=message.game)
        if row["day"] is not None:
            opens = closes_at_ms(row["day"], self.time_limit_ms)
            if self.clock() < opens:
                raise DailyError("deal_live", opens_at=_iso(opens), game=message.game)
        elif row["race_id"] is not None:
            if row["race_state"] != "finished":
                raise DailyError("deal_live", game=message.game)
        elif row["status"] == "playing":
            raise DailyError("deal_live", game=message.game)
        actions = [
            r["action"]
            for r in await self.pool.fetch(
                "select action from moves where game_id=$1 order by seq", message.game
            )
        ]
        options = json.loads(row["options"])
        view = None
        if message.step is not None:
            if not 0 <= message.step <= len(actions):
                raise GameError(
                    "invalid_options",
                    reason=f"step must be from 0 to {len(actions)}.",
                )
            game = engine.replay(row["variant"], int(row["seed"]), options, actions[: message.step])
            view = p.wire_view(game.view())
        return p.ReplayReply(
            id=message.id,
            game=row["id"],
            player=row["player_id"],
            name=row["display_name"],
            variant=row["variant"],
            options=options,
            seed=str(int(row["seed"])),
            status=row["status"],
            actions=actions,
            race=row["race_id"],
            date=None if row["day"] is None else row["day"].isoformat(),
            step=message.step,
            view=view,
        )


def _iso(ms: int) -> str:
    moment = from_ms(ms)
    assert moment is not None
    return moment.isoformat()
