"""Which race belongs to a Discord Activity's instance, as the races table records it:
the race created for an instance carries it in its ``context`` (``discord_activity``),
so every server process finds the same one (server/services/activity.py)."""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg

from server.protocol.errors import UnavailableError
from server.store.pool import DATABASE_LOST, guarded

CONTEXT_KEY = "discord_activity"

# The newest race of an instance ($1: {"discord_activity": id}) not yet finished.
# Index: races_open (state <> 'finished'), a handful of rows.
OPEN_RACE_SQL = """
select id from races
where state <> 'finished' and context @> $1::jsonb
order by created_at desc, id desc
limit 1
"""


def lock_key(instance_id: str) -> int:
    """The advisory lock of an instance: 64 bits of a hash of its id, signed."""
    digest = hashlib.sha256(f"solitaire-arena activity {instance_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


class ActivityStore:
    """The races of Discord Activity instances."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    @guarded
    async def open_race(self, instance_id: str) -> int | None:
        """The race of ``instance_id`` not yet finished, if any."""
        found: int | None = await self.pool.fetchval(
            OPEN_RACE_SQL, json.dumps({CONTEXT_KEY: instance_id})
        )
        return found

    @asynccontextmanager
    async def instance_lock(self, instance_id: str) -> AsyncIterator[None]:
        """Hold the instance's advisory lock: two players opening one Activity at once,
        on any server process, find or create one race between them, not two.

        Raises:
            UnavailableError: the database cannot be reached.
        """
        key = lock_key(instance_id)
        try:
            connection = await self.pool.acquire()
        except DATABASE_LOST as err:
            raise UnavailableError() from err
        try:
            try:
                await connection.execute("select pg_advisory_lock($1)", key)
            except DATABASE_LOST as err:
                raise UnavailableError() from err
            try:
                yield
            finally:
                with contextlib.suppress(*DATABASE_LOST):  # a lost session's locks go with it
                    await connection.execute("select pg_advisory_unlock($1)", key)
        finally:
            await self.pool.release(connection)
