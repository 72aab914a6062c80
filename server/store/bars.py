"""Barring a player, and lifting it, in the database (sql/0122_player_bars.sql).

A bar holds every race result and daily attempt of the player as ``barred`` (keeping the
hold it replaced in ``held_unbarred``), in one transaction with the player's row, so the
player leaves every board at once; the migration's trigger holds whatever the player
finishes later. Lifting the bar puts each hold back as it was: a win that was waiting for
the review when it was barred waits again (``unreviewed``), and the caller has it
reviewed (server/services/bars.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import asyncpg

from server.store.pool import guarded


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    """A player as an operator names and sees them."""

    player_id: int
    principal: str
    name: str
    barred_at: datetime | None
    barred_reason: str | None


@dataclass(frozen=True, slots=True)
class BarChange:
    """What a bar or unbar changed: whether the player's state did, and the results and
    daily attempts it held or released (the released wins still to review)."""

    changed: bool
    results: int
    attempts: int
    to_review: list[int]


class BarStore:
    """Bars in the database."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    @guarded
    async def find(self, who: str) -> PlayerRecord | None:
        """The player named by ``who``: a player id, or a principal (``discord:<id>``)."""
        row = await self.pool.fetchrow(
            "select id, principal, display_name, barred_at, barred_reason from players "
            "where principal = $1 or ($2::bigint is not null and id = $2::bigint)",
            who,
            int(who) if who.isdigit() and len(who) <= 18 else None,
        )
        return None if row is None else _record(row)

    @guarded
    async def bar(self, player_id: int, reason: str | None) -> BarChange:
        """Bar the player: every result of theirs leaves the boards, in one transaction."""
        async with self.pool.acquire() as conn, conn.transaction():
            changed = await conn.fetchval(
                "update players set barred_at = now(), barred_reason = $2 "
                "where id = $1 and barred_at is null returning id",
                player_id,
                reason,
            )
            results = await conn.execute(
                "update results set held_unbarred = held, held = 'barred' "
                "where player_id = $1 and held is distinct from 'barred'",
                player_id,
            )
            attempts = await conn.execute(
                "update daily_entries set held_unbarred = held, held = 'barred' "
                "where player_id = $1 and held is distinct from 'barred'",
                player_id,
            )
            await conn.execute("select nextval('player_bars')")
        return BarChange(changed is not None, _count(results), _count(attempts), [])

    @guarded
    async def unbar(self, player_id: int) -> BarChange:
        """Lift the bar: every result gets back the hold it had; returns the games whose
        results wait for the review again."""
        async with self.pool.acquire() as conn, conn.transaction():
            changed = await conn.fetchval(
                "update players set barred_at = null, barred_reason = null "
                "where id = $1 and barred_at is not null returning id",
                player_id,
            )
            results = await conn.fetch(
                "update results set held = held_unbarred, held_unbarred = null "
                "where player_id = $1 and held = 'barred' returning entry_id, held",
                player_id,
            )
            attempts = await conn.fetch(
                "update daily_entries set held = held_unbarred, held_unbarred = null "
                "where player_id = $1 and held = 'barred' returning entry_id, held",
                player_id,
            )
            await conn.execute("select nextval('player_bars')")
        waiting = [r["entry_id"] for r in [*results, *attempts] if r["held"] == "unreviewed"]
        return BarChange(changed is not None, len(results), len(attempts), waiting)

    @guarded
    async def barred(self) -> list[PlayerRecord]:
        """Every barred player, most recently barred first."""
        rows = await self.pool.fetch(
            "select id, principal, display_name, barred_at, barred_reason from players "
            "where barred_at is not null order by barred_at desc"
        )
        return [_record(row) for row in rows]


def _record(row: asyncpg.Record) -> PlayerRecord:
    return PlayerRecord(
        row["id"], row["principal"], row["display_name"], row["barred_at"], row["barred_reason"]
    )


def _count(status: str) -> int:
    """The row count of a command's status (``UPDATE 3``)."""
    return int(status.split()[-1])
