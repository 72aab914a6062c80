"""Names the bot's tests share with their fixtures (tests/bot/conftest.py).

Kept in a module of their own: test files import from here, never from ``conftest``,
whose name several test folders share.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from bot.client import ArenaClient
from bot.desk import RACERS_FILE, RaceDesk
from bot.fair_use import Cooldown
from bot.table import Table
from server.services.wiring import now_ms
from server.transport.app import ArenaServer

SERVICE_TOKEN = "bot-test-service-token"

MakeClient = Callable[..., Awaitable[ArenaClient]]


class ServerClock:
    """The test server's clock: the real time unless a test sets ``now``."""

    def __init__(self) -> None:
        self.now: int | None = None

    def __call__(self) -> int:
        return now_ms() if self.now is None else self.now


def scripted_cooldown() -> Cooldown:
    """The fair-use cooldown of the tests' tables: a test presses as fast as the machine
    runs, far faster than any player, so its users are not slowed (tests/bot/
    test_fair_use.py tests the real cooldown on a clock of its own)."""
    return Cooldown(rate=1000.0, burst=1000)


@asynccontextmanager
async def bot_table(arena: ArenaServer, state: Path | None = None) -> AsyncIterator[Table]:
    """A bot's table and race desk on a client of the real server, as bot/app.py builds
    them, with nothing in memory (but what ``state``, a state folder, keeps); stopped after."""
    desk = RaceDesk(
        interval=0.05,
        # Discord's 5 edits per 5 s a channel, at the pace of the tests' short interval.
        channel_window=0.125,
        racers_file=state / RACERS_FILE if state else None,
    )
    client = ArenaClient(arena.url, SERVICE_TOKEN, on_event=desk.on_event, on_race=desk.on_race)
    await client.start(timeout=10)
    runner = asyncio.create_task(desk.run())
    try:
        yield Table(client, desk, cooldown=scripted_cooldown())
    finally:
        runner.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await runner
        await client.close()
