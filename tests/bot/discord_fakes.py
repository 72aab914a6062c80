"""Small stand-ins for the parts of Discord the bot touches, recording what it sends.

Discord itself is unreachable in tests. These fakes have the surface the bot uses
(``interaction.response``, ``.followup``, ``.edit_original_response``, a channel
whose messages can be edited) and keep every message with its buttons, so tests
can read what a user would see and press buttons the way discord.py dispatches
them: the item is rebuilt from its custom id alone (as after a bot restart).
Every message and every edit is held to Discord's limits (tests/bot/discord_rules.py),
so a board Discord would refuse fails the test that draws it; a thread is made only as
Discord would make one (``FakeMessage.create_thread``).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import discord
from discord_rules import check_message, check_modal, is_layout, layout_text

from bot.cog import SolitaireCog
from bot.desk import RaceDesk
from bot.table import Table

_ids = itertools.count(10_000)
# Button names tests use for piles whose label is their card.
PILE_NAMES = {"Waste": "w", "Ablage": "w"}


@dataclass
class FakeMessage:
    """A message as a user sees it: text, buttons, and whether only they see it. A
    Components V2 message (a board) has no content of its own: ``content`` is then the
    text of its text displays, as a reader sees it, and the message stays V2."""

    content: str
    view: Any = None
    ephemeral: bool = False
    id: int = field(default_factory=lambda: next(_ids))
    edits: int = 0
    allowed_mentions: discord.AllowedMentions | None = None
    channel: FakeChannel | None = field(default=None, repr=False)  # where it was posted
    thread: FakeThread | None = None  # the thread started on it
    v2: bool = False  # sent with the Components V2 flag, which no edit removes
    files: list[tuple[str, bytes]] = field(default_factory=list)  # attachments: name, data
    plain: str = ""  # the content field as Discord holds it

    def __post_init__(self) -> None:
        self.plain = self.content
        self._show(self.view)

    def _show(self, view: Any) -> None:
        if is_layout(view):
            self.v2 = True
            self.plain = ""
            self.content = layout_text(view)

    async def create_thread(self, *, name: str, auto_archive_duration: int = 1440) -> FakeThread:
        """Start a public thread on this message, by Discord's rules: the bot needs Create
        Public Threads in the channel; the message is a channel's (not ephemeral, not in a
        thread) and has no thread yet; a name of 1 to 100 characters; an archive time of
        60, 1440, 4320 or 10080 minutes."""
        channel = self.channel
        assert channel is not None and not self.ephemeral, "only a channel message has threads"
        if not channel.permissions.create_public_threads:
            raise refusal(403, 50013, "Missing Permissions")
        if isinstance(channel, FakeThread):
            raise refusal(400, 50024, "Cannot execute action on this channel type")
        if self.thread is not None:
            raise refusal(400, 160004, "A thread has already been created for this message")
        if not 1 <= len(name.strip()) <= 100 or len(name) > 100:
            raise refusal(400, 50035, "Invalid Form Body: name must be 1-100 characters")
        if auto_archive_duration not in (60, 1440, 4320, 10080):
            raise refusal(400, 50035, "Invalid Form Body: auto_archive_duration")
        # As on Discord, a thread started on a message has the message's id.
        self.thread = FakeThread(id=self.id, parent=channel, name=name)
        return self.thread

    async def edit(self, *, content: Any = ..., view: Any = ...) -> FakeMessage:
        """As discord.py's edit: a field left out stays, ``content=None`` clears it."""
        plain = self.plain if content is ... else (content or "")
        shown = self.view if view is ... else view
        check_message(plain or None, shown)
        if self.v2:
            assert is_layout(shown), "a Components V2 message cannot become a plain one"
        self.plain = self.content = plain
        self.view = shown
        self._show(shown)
        self.edits += 1
        return self

    def items(self) -> list[Any]:
        """The buttons and menus, in order (inside a layout's sections and rows too)."""
        if self.view is None:
            return []
        if is_layout(self.view):
            return [i for i in self.view.walk_children() if isinstance(i, discord.ui.DynamicItem)]
        return list(self.view.children)

    def labels(self) -> list[str]:
        return [i.item.label for i in self.items() if isinstance(i.item, discord.ui.Button)]

    def enabled(self) -> list[str]:
        return [
            i.item.label
            for i in self.items()
            if isinstance(i.item, discord.ui.Button) and not i.item.disabled
        ]

    def find(self, label: str) -> Any:
        """The button labelled ``label`` (or the select menu when ``label`` is "select")."""
        for child in self.items():
            if label == "select" and isinstance(child.item, discord.ui.Select):
                return child
            if getattr(child.item, "label", None) == label:
                return child
        pile = PILE_NAMES.get(label, label)
        for child in self.items():  # a pile by its name: "7" is column 7's button "J♠︎"
            if getattr(child, "pile", None) == pile:
                return child
        raise AssertionError(f"no item {label!r} in {self.labels()}")

    def piles(self) -> list[str]:
        """The piles the buttons stand for, in order ("7", "w", "f1"), controls left out."""
        return [c.pile for c in self.items() if getattr(c, "pile", None) is not None]

    def enabled_piles(self) -> set[str]:
        """The piles whose buttons can be pressed."""
        return {
            c.pile
            for c in self.items()
            if getattr(c, "pile", None) is not None and not c.item.disabled
        }


ATTACHMENT_BYTES = 10 * 1024 * 1024  # Discord's upload limit without Nitro or boosts


def attached(file: discord.File | None) -> list[tuple[str, bytes]]:
    """A sent file as Discord takes it: a name, and at most 10 MiB."""
    if file is None:
        return []
    data = file.fp.read()
    assert file.filename and len(data) <= ATTACHMENT_BYTES, "Discord would refuse this file"
    return [(file.filename, data)]


def refusal(status: int, code: int, message: str) -> discord.HTTPException:
    """What discord.py raises when Discord answers ``status`` with its error ``code``."""
    response = SimpleNamespace(status=status, reason=message)
    kind = discord.Forbidden if status == 403 else discord.HTTPException
    return kind(response, {"code": code, "message": message})  # type: ignore[arg-type]


# The bot's permissions in a channel unless a test says otherwise: what it asks for.
BOT_PERMISSIONS = discord.Permissions(view_channel=True)


@dataclass
class FakeChannel:
    """A text channel: keeps the messages sent in it and edits them by id; ``permissions``
    are the bot's there (what Discord sends as an interaction's ``app_permissions``)."""

    id: int = field(default_factory=lambda: next(_ids))
    messages: dict[int, FakeMessage] = field(default_factory=dict)
    permissions: discord.Permissions = field(
        default_factory=lambda: discord.Permissions(BOT_PERMISSIONS.value)
    )

    def get_partial_message(self, message_id: int) -> FakeMessage:
        return self.messages[message_id]

    def get_thread(self, thread_id: int) -> FakeThread | None:
        """A thread started on a message here (it has the message's id), as the cache has it."""
        message = self.messages.get(thread_id)
        return None if message is None else message.thread

    def posted(self, content: str) -> FakeMessage:
        """A message someone posted here (a test's setting; the bot's own go by ``send``)."""
        message = FakeMessage(content, channel=self)
        self.messages[message.id] = message
        return message

    async def send(
        self,
        content: str | None = None,
        *,
        view: Any = None,
        allowed_mentions: discord.AllowedMentions | None = None,
        file: discord.File | None = None,
    ) -> FakeMessage:
        """A message the bot posts in the channel itself (needs Send Messages)."""
        if not isinstance(self, FakeThread) and not self.permissions.send_messages:
            raise refusal(403, 50013, "Missing Permissions")
        check_message(content, view)
        content = content or ""
        message = FakeMessage(content, view, allowed_mentions=allowed_mentions, channel=self)
        message.files = attached(file)
        self.messages[message.id] = message
        return message


@dataclass
class FakeThread(FakeChannel):
    """A public thread started on a message of ``parent``: the bot posts in it only with
    Send Messages in Threads there."""

    parent: FakeChannel | None = None
    name: str = ""

    def __post_init__(self) -> None:
        assert self.parent is not None
        self.permissions = self.parent.permissions

    async def send(
        self,
        content: str | None = None,
        *,
        view: Any = None,
        allowed_mentions: discord.AllowedMentions | None = None,
        file: discord.File | None = None,
    ) -> FakeMessage:
        if not self.permissions.send_messages_in_threads:
            raise refusal(403, 50013, "Missing Permissions")
        return await super().send(content, view=view, allowed_mentions=allowed_mentions, file=file)


@dataclass
class FakeUser:
    id: int
    name: str
    locale: str = "en-US"  # the Discord client's language, sent with every interaction
    bot: bool = False

    @property
    def display_name(self) -> str:
        return self.name


class FakeResponse:
    """``interaction.response``: one answer at most, as on Discord."""

    def __init__(self, interaction: FakeInteraction) -> None:
        self.interaction = interaction
        self.deferred: dict[str, bool] | None = None
        self.answered = False

    def is_done(self) -> bool:
        return self.answered

    def _answer(self) -> None:
        assert not self.answered, "an interaction can be answered only once"
        self.answered = True

    async def defer(self, *, ephemeral: bool = False, thinking: bool = False) -> None:
        self.interaction.calls.append("defer")
        self._answer()
        self.deferred = {"ephemeral": ephemeral, "thinking": thinking}

    async def send_message(
        self, content: str | None = None, *, ephemeral: bool = False, view: Any = None
    ) -> None:
        self.interaction.calls.append("send_message")
        check_message(content, view)  # a refused message answers nothing
        self._answer()
        self.interaction.record(content, view, ephemeral)

    async def send_modal(self, modal: discord.ui.Modal) -> None:
        """Open a form; its submission is a new interaction (``submit``)."""
        self.interaction.calls.append("send_modal")
        check_modal(modal)
        self._answer()
        self.interaction.modal = modal

    async def edit_message(self, *, content: Any = ..., view: Any = ...) -> None:
        """The first response to a press that edits the pressed message itself."""
        self.interaction.calls.append("edit_message")
        assert self.interaction.message is not None, "edit_message answers only a press"
        self._answer()
        await self.interaction.message.edit(content=content, view=view)


class FakeFollowup:
    """``interaction.followup``: messages after a defer."""

    def __init__(self, interaction: FakeInteraction) -> None:
        self.interaction = interaction

    async def send(
        self,
        content: str | None = None,
        *,
        ephemeral: bool = False,
        wait: bool = False,
        view: Any = None,
        allowed_mentions: discord.AllowedMentions | None = None,
        file: discord.File | None = None,
    ) -> FakeMessage:
        self.interaction.calls.append("followup.send")
        assert self.interaction.response.is_done(), "followup before any response"
        thinking = self.interaction.original
        if thinking is not None and thinking.edits == 0 and not thinking.content:
            # As on Discord: the first followup after a defer replaces the "thinking" message.
            thinking.ephemeral = ephemeral
            return await thinking.edit(content=content, view=view)
        message = self.interaction.record(content, view, ephemeral)
        message.allowed_mentions = allowed_mentions
        message.files = attached(file)
        return message


class FakeInteraction:
    """One interaction of ``user``: a command, or a press on ``message``."""

    def __init__(
        self,
        client: Any,
        user: FakeUser,
        *,
        locale: str | None = None,
        guild_id: int | None = 1,
        channel: FakeChannel | None = None,
        message: FakeMessage | None = None,
    ) -> None:
        self.client = client
        self.user = user
        self.locale = discord.Locale(locale or user.locale)
        self.guild_locale = None
        self.guild_id = guild_id
        self.channel = channel or FakeChannel()
        self.message = message
        self.response = FakeResponse(self)
        self.followup = FakeFollowup(self)
        self.sent: list[FakeMessage] = []
        self.data: dict[str, Any] = {}
        self.original: FakeMessage | None = None  # a command's deferred response
        self.calls: list[str] = []  # every call to Discord about this interaction, in order
        self.modal: discord.ui.Modal | None = None  # a form opened in answer

    @property
    def app_permissions(self) -> discord.Permissions:
        """The bot's permissions in the interaction's channel."""
        return self.channel.permissions

    def record(self, content: str | None, view: Any, ephemeral: bool) -> FakeMessage:
        check_message(content, view)
        message = FakeMessage(content or "", view, ephemeral, channel=self.channel)
        self.sent.append(message)
        if not ephemeral:
            self.channel.messages[message.id] = message
        return message

    def _pressed_message(self) -> FakeMessage | None:
        """The message a press's response edits: the pressed one, unless the press was
        deferred "thinking", which (as on Discord) answers with a new message."""
        thinking = bool((self.response.deferred or {}).get("thinking"))
        return None if thinking else self.message

    async def original_response(self) -> FakeMessage:
        """A command's deferred response (the "thinking" message), or a press's message."""
        self.calls.append("original_response")
        assert self.response.is_done(), "no response yet"
        pressed = self._pressed_message()
        if pressed is not None:
            return pressed
        if self.original is None:
            deferred = self.response.deferred or {}
            self.original = self.record("", None, bool(deferred.get("ephemeral")))
        return self.original

    async def edit_original_response(self, *, content: Any = ..., view: Any = ...) -> FakeMessage:
        self.calls.append("edit_original_response")
        assert self.response.is_done(), "edit before any response"
        original = self._pressed_message() or self.original
        if original is None:
            deferred = self.response.deferred or {}
            original = self.original = self.record("", None, bool(deferred.get("ephemeral")))
        return await original.edit(content=content, view=view)


@dataclass
class FakeBot:
    """What ``interaction.client`` offers the bot's items: the table."""

    table: Any


async def press(
    bot: FakeBot,
    user: FakeUser,
    message: FakeMessage,
    label: str,
    *,
    value: str | None = None,
    locale: str | None = None,
    channel: FakeChannel | None = None,
) -> FakeInteraction:
    """Press the button ``label`` (or choose ``value`` in the select menu) as ``user``.

    Like discord.py, the item is rebuilt from its custom id alone, then called.
    """
    child = message.find(label)
    template = type(child).__discord_ui_compiled_template__
    match = template.fullmatch(child.item.custom_id)
    assert match is not None
    interaction = FakeInteraction(bot, user, locale=locale, message=message, channel=channel)
    item = await type(child).from_custom_id(interaction, child.item, match)
    if value is not None:
        item._refresh_state(interaction, {"values": [value]})
    await item.callback(interaction)
    return interaction


async def submit(
    bot: FakeBot, user: FakeUser, opened: FakeInteraction, value: str
) -> FakeInteraction:
    """Fill in the form ``opened`` answered with (its one text input) and send it, as a
    new interaction on the message whose button opened it."""
    modal = opened.modal
    assert modal is not None, "the press opened no form"
    interaction = FakeInteraction(bot, user, message=opened.message, channel=opened.channel)
    [field] = [child for child in modal.children if isinstance(child, discord.ui.TextInput)]
    field._refresh_state(interaction, {"value": value})  # type: ignore[arg-type]
    await modal.on_submit(interaction)  # type: ignore[arg-type]
    return interaction


@dataclass
class Bot:
    """The bot's own layers wired together as bot/app.py wires them, minus Discord."""

    table: Table
    cog: SolitaireCog
    fake: FakeBot
    desk: RaceDesk


async def until(check: Callable[[], bool], what: str) -> None:
    """Wait until ``check()`` holds (the desk edits race messages in the background)."""
    for _ in range(400):
        if check():
            return
        await asyncio.sleep(0.025)
    raise AssertionError(f"never happened: {what}")
