"""The quick match queue in PostgreSQL (sql/0132_quick_match.sql): one for every process.

Times are the database's (``now()``), so processes on hosts whose clocks differ agree on
who waited how long. ``take`` holds the waiting rows it read (``FOR UPDATE SKIP LOCKED``:
another process's look skips them) while the caller creates the groups' races, and
writes each race's id to its players' rows in the same transaction.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import asyncpg

from server.core.identity import Principal
from server.core.matchmaking import PoolKey, Seeker
from server.store.pool import guarded
from server.store.ratings import Conn

_MS = "(extract(epoch from {}) * 1000)::bigint"


@dataclass(frozen=True, slots=True)
class Waiting:
    """A row of the queue: who waits for what, since when, and the race once found."""

    who: Principal
    seeker: Seeker
    race_id: int | None


def _waiting(row: asyncpg.Record) -> Waiting:
    pool = PoolKey(row["variant"], row["options"], row["rated"], row["difficulty"])
    who = Principal(row["player_id"], row["principal"], row["name"], row["locale"])
    seeker = Seeker(row["player_id"], pool, row["rating"], row["joined_ms"])
    return Waiting(who, seeker, row["race_id"])


_COLUMNS = f"*, {_MS.format('joined_at')} as joined_ms"


class Batch:
    """The waiting rows one look took, and how to hand them their races."""

    def __init__(self, conn: Conn, waiting: list[Waiting], now: int) -> None:
        self.conn = conn
        self.waiting = waiting
        self.now = now

    async def assign(self, players: list[int], race_id: int, rated: PoolKey | None) -> None:
        """The race found for these players (``rated``: the pool of a rated race)."""
        await self.conn.execute(
            "update match_queue set race_id = $2, matched_at = now() "
            "where player_id = any($1::bigint[])",
            players,
            race_id,
        )
        if rated is not None:
            await self.conn.execute(
                "insert into rated_races (race_id, variant, options) values ($1, $2, $3)",
                race_id,
                rated.variant,
                rated.options,
            )


class MatchStore:
    """Reads and writes of the quick match queue."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    @guarded
    async def enqueue(self, who: Principal, pool: PoolKey, rating: int) -> Waiting:
        """Wait for ``pool``'s race. Asking again for the same pool keeps the place (and a
        race found meanwhile); asking for another starts a new wait."""
        row = await self.pool.fetchrow(
            f"""
            insert into match_queue as q (player_id, principal, name, locale, variant, options,
                rated, difficulty, rating, joined_at, seen_at)
            values ($1, $2, $3, $4, $5, $6, $7, $8, $9, now(), now())
            on conflict (player_id) do update set
                joined_at = case when (q.variant, q.options, q.rated, q.difficulty)
                    is not distinct from (excluded.variant, excluded.options, excluded.rated,
                    excluded.difficulty) then q.joined_at else now() end,
                race_id = case when (q.variant, q.options, q.rated, q.difficulty)
                    is not distinct from (excluded.variant, excluded.options, excluded.rated,
                    excluded.difficulty) then q.race_id end,
                principal = excluded.principal, name = excluded.name,
                locale = excluded.locale, variant = excluded.variant,
                options = excluded.options, rated = excluded.rated,
                difficulty = excluded.difficulty, rating = excluded.rating, seen_at = now()
            returning {_COLUMNS}
            """,
            who.player_id,
            who.user,
            who.name,
            who.locale,
            pool.variant,
            pool.options,
            pool.rated,
            pool.difficulty,
            rating,
        )
        assert row is not None
        return _waiting(row)

    @guarded
    async def cancel(self, player_id: int) -> bool:
        """Stop waiting; False when not waiting (or already matched)."""
        done = await self.pool.fetchval(
            "delete from match_queue where player_id = $1 and race_id is null returning 1",
            player_id,
        )
        return done is not None

    @guarded
    async def touch(self, players: list[int]) -> None:
        """These players are still here, waiting."""
        if players:
            await self.pool.execute(
                "update match_queue set seen_at = now() "
                "where player_id = any($1::bigint[]) and race_id is null",
                players,
            )

    @guarded
    async def matched(self, players: list[int]) -> dict[int, int]:
        """The races found for any of these players."""
        rows = await self.pool.fetch(
            "select player_id, race_id from match_queue "
            "where player_id = any($1::bigint[]) and race_id is not null",
            players,
        )
        return {row["player_id"]: row["race_id"] for row in rows}

    @guarded
    async def delivered(self, player_id: int, race_id: int) -> None:
        """The player was told of their race: their row goes."""
        await self.pool.execute(
            "delete from match_queue where player_id = $1 and race_id = $2", player_id, race_id
        )

    @guarded
    async def purge(self, away_seconds: float, told_seconds: float) -> int:
        """Drop rows of players away for ``away_seconds``, and found races nobody came to
        hear of for ``told_seconds`` (the player has them in their games anyway)."""
        result = await self.pool.execute(
            "delete from match_queue where (race_id is null and seen_at < now() - $1 * "
            "interval '1 second') or (race_id is not null and matched_at < now() - $2 * "
            "interval '1 second')",
            away_seconds,
            told_seconds,
        )
        return int(result.split()[-1])

    @guarded
    async def rated_race_of(self, player_id: int) -> int | None:
        """A rated race the player is still playing (one at a time), or None."""
        race: int | None = await self.pool.fetchval(
            """
            select r.id from rated_races rr
            join races r on r.id = rr.race_id
            join entries e on e.race_id = r.id
            where e.player_id = $1 and r.state <> 'finished' and e.status = 'playing'
            limit 1
            """,
            player_id,
        )
        return race

    @asynccontextmanager
    async def take(self, fresh_seconds: float) -> AsyncIterator[Batch]:
        """The waiting rows seen within ``fresh_seconds`` that no other look holds, held
        until the block ends (its changes committed then; an error rolls them back)."""
        async with self.pool.acquire() as conn, conn.transaction():
            rows = await conn.fetch(
                f"""
                select {_COLUMNS}, {_MS.format("now()")} as now_ms from match_queue
                where race_id is null and seen_at > now() - $1 * interval '1 second'
                order by joined_at for update skip locked
                """,
                fresh_seconds,
            )
            now = rows[0]["now_ms"] if rows else 0
            yield Batch(conn, [_waiting(row) for row in rows], now)
