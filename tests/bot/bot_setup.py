"""Names the bot's tests share with their fixtures (tests/bot/conftest.py).

Kept in a module of their own: test files import from here, never from ``conftest``,
whose name several test folders share.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.client import ArenaClient
from server.services.wiring import now_ms

SERVICE_TOKEN = "bot-test-service-token"

MakeClient = Callable[..., Awaitable[ArenaClient]]


class ServerClock:
    """The test server's clock: the real time unless a test sets ``now``."""

    def __init__(self) -> None:
        self.now: int | None = None

    def __call__(self) -> int:
        return now_ms() if self.now is None else self.now
