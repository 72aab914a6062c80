"""Names the bot's tests share with their fixtures (tests/bot/conftest.py).

Kept in a module of their own: test files import from here, never from ``conftest``,
whose name several test folders share.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.client import ArenaClient
from bot.fair_use import Cooldown
from server.services.wiring import now_ms

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
