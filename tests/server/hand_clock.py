"""The server's services on a real PostgreSQL, with the server clock set by hand.

The services, their group commit and storage are the server's own; only the clock is the
test's, and no clock task runs: a test moves time and sees what the services do then
(a day opens and closes, a countdown runs out before the clock task gets to it).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg

from server.ops.config import ServerConfig
from server.ops.metrics import Metrics
from server.services.wiring import Services, build_services
from server.store.commit import GroupCommitter
from server.store.storage import Storage


class Clock:
    """Server time a test sets by hand."""

    def __init__(self, ms: int) -> None:
        self.ms = ms

    def __call__(self) -> int:
        return self.ms


@asynccontextmanager
async def services_on(
    database_url: str, clock: Clock, config: ServerConfig | None = None
) -> AsyncIterator[Services]:
    """The server's services over ``database_url`` (migrated): one server process, its
    group commit running, started and stopped."""
    async with asyncpg.create_pool(database_url, min_size=1, max_size=6) as pool:
        metrics = Metrics()
        committer = GroupCommitter(pool, metrics, 100)
        task = asyncio.create_task(committer.run())
        config = config or ServerConfig(daily_prepare_ahead=False)
        services = build_services(Storage(pool), committer, metrics, config, clock)
        try:
            yield services
        finally:
            committer.close()
            await task
            await services.close()
