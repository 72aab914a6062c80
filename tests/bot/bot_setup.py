"""Names the bot's tests share with their fixtures (tests/bot/conftest.py).

Kept in a module of their own: test files import from here, never from ``conftest``,
whose name several test folders share.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.client import ArenaClient

SERVICE_TOKEN = "bot-test-service-token"

MakeClient = Callable[..., Awaitable[ArenaClient]]
