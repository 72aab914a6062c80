"""A stop ends, whatever still holds a database connection."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from server.ops.config import ServerConfig
from server.transport.app import ArenaServer


async def test_a_stop_ends_while_a_connection_is_still_held(
    migrated_database_url: str, server_config: ServerConfig
) -> None:
    """A task that never gives its pooled connection back (a bug, or one stuck on a
    lost database) must not keep the server from stopping: the pool is closed within
    the shutdown timeout, and terminated after it."""
    config = replace(server_config, shutdown_timeout=0.5)
    server = ArenaServer(config, migrated_database_url)
    await server.start()
    assert server.services is not None
    pool = server.services.storage.pool
    held = [await pool.acquire() for _ in range(pool.get_max_size())]
    assert len(held) == pool.get_max_size()  # every connection taken, none given back
    await asyncio.wait_for(server.stop(), 60)
    assert pool.is_closing()
