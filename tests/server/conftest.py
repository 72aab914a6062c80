"""A real race server on an ephemeral port, and a small real WebSocket client for it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from arena_client import OPEN_ADDRESS_LIMITS, SERVICE_TOKEN, Client, Connect
from websockets.asyncio.client import connect as ws_connect

from server.ops.config import ServerConfig
from server.transport.app import ArenaServer


@pytest.fixture
def server_config() -> ServerConfig:
    """Settings of the test server; tests may replace the fixture to change limits."""
    return ServerConfig(
        host="127.0.0.1",
        port=0,
        service_tokens=(SERVICE_TOKEN,),
        rate_per_second=1000,
        rate_burst=1000,
        progress_interval_ms=0,  # one progress event per move: tests follow every change
        daily_prepare_ahead=False,  # no deal solver running beside these tests
        # Yukon and Klondike deals are proven in well under a second; the room is for a
        # busy machine (and the worker's start), since these answers are asserted.
        race_winnable_seconds=20.0,
        solver_help_seconds=10.0,
        # The operator's switch for a private server: these tests play boards as guests.
        # Guests rank nowhere by default (tests/server/test_who_ranks.py).
        guests_rank=True,
        **OPEN_ADDRESS_LIMITS,
    )


@pytest.fixture
async def server(
    migrated_database_url: str, server_config: ServerConfig
) -> AsyncIterator[ArenaServer]:
    """A real server on an ephemeral port over a migrated database with no rows."""
    async with ArenaServer(server_config, migrated_database_url) as running:
        yield running


@pytest.fixture
async def connect(server: ArenaServer) -> AsyncIterator[Connect]:
    """Open clients to the test server; ``hello`` fields are sent unless ``hello=None``."""
    clients: list[Client] = []

    async def open_client(hello: dict[str, Any] | None = None, **fields: Any) -> Client:
        client = Client(await ws_connect(server.url, max_queue=None))
        clients.append(client)
        if hello is not None or fields:
            client.welcome = await client.ok("hello", **(hello or {}), **fields)
        return client

    yield open_client
    for client in clients:
        await client.close()
