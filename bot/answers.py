"""How the bot answers an interaction, and the one place its failures are turned into words.

Every entry point that Discord calls (a command, a button, a menu) is marked
``@answering``: a user over their fair share of requests is turned away first
(bot/fair_use.py), and the body runs under the ``ErrorHook``, which maps the type of whatever
escaped to what the user sees (a server refusal in their language, a generic apology
for a bug, which is logged with its traceback), so no entry point wraps its own calls.
Errors that discord.py itself raises around a command (a command used where it is
not offered, say) reach the same hook through the command tree's ``on_error``
(bot/app.py).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from discord import app_commands

from bot.client import ServerError
from bot.i18n import error_text, locale_of, text

log = logging.getLogger(__name__)

Interaction = Any  # discord.Interaction, or a test's small fake with the same surface
P = ParamSpec("P")
S = TypeVar("S", bound="HasHook")


async def send(
    interaction: Interaction, content: str | None, *, view: Any = None, ephemeral: bool = True
) -> Any:
    """Answer ``interaction`` whether or not it was deferred already; the message sent
    when Discord returns it (a followup), else None. ``content`` None: a Components V2
    message (``view`` a layout, which holds the text)."""
    extra: dict[str, Any] = {"view": view} if view is not None else {}
    if content is not None:
        extra["content"] = content
    if interaction.response.is_done():
        return await interaction.followup.send(ephemeral=ephemeral, wait=True, **extra)
    await interaction.response.send_message(ephemeral=ephemeral, **extra)
    return None


def words_for(error: BaseException, locale: str) -> str | None:
    """What the user is told about ``error``: a server refusal in their language, a
    command used where it is not offered, None for a bug (logged, then apologised for)."""
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    if isinstance(error, ServerError):
        return "⚠️ " + error_text(locale, error.code, error.message)
    if isinstance(error, app_commands.NoPrivateMessage):
        return text(locale, "no_guild")
    if isinstance(error, app_commands.CommandNotFound) and error.name == "race":
        # Only servers are offered race (bot/command_sync.py); a DM client whose
        # command list predates that can still send it.
        return text(locale, "no_guild")
    return None


class ErrorHook:
    """Turns any failure of an interaction into one short message for its user."""

    async def report(self, interaction: Interaction, error: BaseException) -> None:
        """Tell the user what went wrong, in their language; log what was a bug."""
        locale = locale_of(interaction.locale)
        words = words_for(error, locale)
        if words is None:
            log.error("interaction failed", exc_info=error)
            words = "⚠️ " + error_text(locale, "bot_error")
        try:
            await send(interaction, words)
        except Exception:  # Discord itself failed us; nothing more to tell the user
            log.exception("could not tell the user of %r", error)

    async def guard(self, interaction: Interaction, work: Awaitable[Any]) -> None:
        """Run ``work``; whatever escapes it is reported through ``report``."""
        try:
            await work
        except Exception as err:
            await self.report(interaction, err)


class HasHook(Protocol):
    errors: ErrorHook

    async def turned_away(self, interaction: Interaction) -> bool: ...


def answering(
    method: Callable[Concatenate[S, Interaction, P], Coroutine[Any, Any, None]],
) -> Callable[Concatenate[S, Interaction, P], Coroutine[Any, Any, None]]:
    """Mark ``method`` (of an object with an ``errors`` hook, taking the interaction
    first) as an entry point: a user over their fair share is turned away before it
    runs (``turned_away``), and its failures are answered by the hook."""

    @functools.wraps(method)
    async def entry(
        self: S, interaction: Interaction, /, *args: P.args, **kwargs: P.kwargs
    ) -> None:
        async def work() -> None:
            if not await self.turned_away(interaction):
                await method(self, interaction, *args, **kwargs)

        await self.errors.guard(interaction, work())

    return entry
