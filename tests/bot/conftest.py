"""A real race server for the bot's tests, and the bot's own client connected to it."""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator
from typing import Any

import pytest

with warnings.catch_warnings():
    # discord.py imports the standard library's audioop for voice, which Python 3.11
    # marks deprecated; the bot uses no voice. Imported once here, then cached.
    warnings.simplefilter("ignore", DeprecationWarning)
    import discord  # noqa: F401

from bot_setup import SERVICE_TOKEN, MakeClient, ServerClock, bot_table
from discord_fakes import Bot, FakeBot

from bot.client import ArenaClient
from bot.cog import SolitaireCog
from bot.table import Table
from server.ops.config import ServerConfig
from server.transport.app import ArenaServer


@pytest.fixture
def server_clock() -> ServerClock:
    return ServerClock()


@pytest.fixture
async def arena(
    migrated_database_url: str, server_clock: ServerClock
) -> AsyncIterator[ArenaServer]:
    """A real server on an ephemeral port over a migrated database, on ``server_clock``."""
    config = ServerConfig(
        host="127.0.0.1",
        port=0,
        service_tokens=(SERVICE_TOKEN,),
        daily_prepare_ahead=False,  # prove only the daily deal a test asks for
    )
    async with ArenaServer(config, migrated_database_url, clock=server_clock) as running:
        yield running


@pytest.fixture
async def make_client(arena: ArenaServer) -> AsyncIterator[MakeClient]:
    """Start bot clients against the test server (closed after the test)."""
    clients: list[ArenaClient] = []

    async def start(token: str = SERVICE_TOKEN, **options: Any) -> ArenaClient:
        options.setdefault("backoff_initial", 0.02)
        client = ArenaClient(arena.url, token, **options)
        clients.append(client)
        await client.start(timeout=10)
        return client

    yield start
    for client in clients:
        await client.close()


@pytest.fixture
async def bot(arena: ArenaServer) -> AsyncIterator[Bot]:
    """The bot's table, commands and race desk on a real client of the real server."""
    async with bot_table(arena) as table:
        yield Bot(table, SolitaireCog(table), FakeBot(table), table.boards.desk)


@pytest.fixture
async def restarted(arena: ArenaServer) -> AsyncIterator[Table]:
    """A second bot on the same server, started with nothing in memory."""
    async with bot_table(arena) as table:
        yield table
