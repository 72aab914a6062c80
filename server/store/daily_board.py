"""A daily board as queries: which attempts it holds, a page of its lines with their
ranks, and a player's line with the lines around it.

A board's order lives in two generated columns of ``daily_entries``
(sql/0020_daily.sql), so a page, a rank and "around me" are each one range of the
index ``daily_entries_board`` (or ``…_board_guild`` for one guild); the store
(server/store/boards.py) runs these queries.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

import asyncpg

from server import protocol as p

# The attempts of one board: the SQL fragment and its parameters after $1 variant, $2 day.
_SCOPES = {
    (True, False): "d.ranked and d.held is null",
    (True, True): "d.ranked and d.held is null and d.guild_id = $3",
    (False, False): "not d.ranked",
    (False, True): "not d.ranked and d.guild_id = $3",
}

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


def board_line(row: asyncpg.Record) -> p.BoardLine:
    """One line of a board, as its queries return it."""
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
