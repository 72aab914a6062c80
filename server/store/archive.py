"""The past days that have a daily deal, as PostgreSQL keeps them (sql/0020_daily.sql):
the deal's day and solver line, the ranked attempts at it, and one player's own.
The daily archive service (server/services/archive.py) says which days and what is open.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import asyncpg

from server.store.pool import guarded

# The deals of a variant ($1) before a day ($3), newest first, at most $4; each with its
# ranked attempts counted (index daily_entries_board) and player $2's ranked attempt
# (index daily_entries_first). The primary key (variant, day) gives the order.
DAYS_SQL = """
select d.day, d.solution_length,
       (select count(*) from daily_entries e
        where e.variant = d.variant and e.day = d.day and e.ranked) as players,
       mine.entry_id, mine.status, mine.time_ms, mine.moves
from daily_deals d
left join daily_entries mine
  on mine.variant = d.variant and mine.day = d.day and mine.player_id = $2 and mine.ranked
where d.variant = $1 and d.day < $3
order by d.day desc
limit $4
"""


@dataclass(frozen=True, slots=True)
class StoredDay:
    """A past day's deal as stored, with the asker's ranked attempt (``game`` None: none)."""

    day: date
    solution_length: int
    players: int
    game: int | None
    status: str | None
    time_ms: int | None
    moves: int | None


class ArchiveStore:
    """Reads of the daily deals of past days."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    @guarded
    async def days(self, variant: str, player_id: int, before: date, limit: int) -> list[StoredDay]:
        """The days before ``before`` with a deal of ``variant``, newest first."""
        rows = await self.pool.fetch(DAYS_SQL, variant, player_id, before, limit)
        return [
            StoredDay(
                day=row["day"],
                solution_length=row["solution_length"],
                players=row["players"],
                game=row["entry_id"],
                status=row["status"],
                time_ms=row["time_ms"],
                moves=row["moves"],
            )
            for row in rows
        ]
