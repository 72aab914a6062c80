"""The results waiting for the server's review, and the review's outcome.

A race's results and a daily attempt's win are stored ``held = 'unreviewed'`` in the
transaction that ends them; the review (server/services/review.py) recomputes each from
the stored move log and stores whether it counts (``held`` null) or why it is held.
"""

from __future__ import annotations

from dataclasses import dataclass

import asyncpg

from server.store.pool import guarded

# The unreviewed claims: race results and daily wins alike; $1 the games (null: any), $2
# how many at most.
CLAIMS_SQL = """
select r.entry_id, r.finished as won, r.moves, r.time_ms, false as daily, r.player_id
from results r
where r.held = 'unreviewed' and ($1::bigint[] is null or r.entry_id = any($1::bigint[]))
union all
select d.entry_id, d.status = 'won', d.moves, d.time_ms, true, d.player_id
from daily_entries d
where d.held = 'unreviewed' and ($1::bigint[] is null or d.entry_id = any($1::bigint[]))
limit $2
"""


@dataclass(frozen=True, slots=True)
class Claim:
    """A stored result to recompute: a race's result line, or a daily attempt's win."""

    game_id: int
    won: bool
    moves: int | None
    time_ms: int | None
    daily: bool
    player_id: int  # whose result it is


class Reviews:
    """Results held until reviewed, and the verdicts."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    @guarded
    async def pending(self, limit: int = 1000) -> list[Claim]:
        """Results not yet reviewed (left by a stop between a commit and its review)."""
        return await self._claims(None, limit)

    @guarded
    async def claims(self, game_ids: list[int]) -> list[Claim]:
        """The unreviewed claims of these games."""
        return await self._claims(game_ids, len(game_ids) * 2)

    async def _claims(self, game_ids: list[int] | None, limit: int) -> list[Claim]:
        rows = await self.pool.fetch(CLAIMS_SQL, game_ids, limit)
        return [
            Claim(r["entry_id"], r["won"], r["moves"], r["time_ms"], r["daily"], r["player_id"])
            for r in rows
        ]

    @guarded
    async def decide(self, claim: Claim, held: str | None) -> None:
        """Store the verdict: ``held`` None counts the result, else names why it is held."""
        table = "daily_entries" if claim.daily else "results"
        await self.pool.execute(
            f"update {table} set held = $2 where entry_id = $1 and held = 'unreviewed'",
            claim.game_id,
            held,
        )
