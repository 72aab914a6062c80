"""A player's own game from Discord: practice, the daily, typed moves and DM moves.

Every command answers Discord first (a defer, so no interaction times out while the
server thinks), asks the server acting for the user who pressed, and draws the reply on
the player's board (bot/boards.py); whatever fails is answered by the one error hook
(bot/answers.py).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import engine
from bot.answers import Interaction, answering, send
from bot.boards import MAX_BOARDS
from bot.client import Actor, ServerError
from bot.i18n import error_text, locale_of, text
from bot.moves_text import move_choices
from bot.part import Part
from bot.presses import Pressed, typed_text
from bot.race_messages import parse_deal
from bot.render import board_reply
from bot.views import BoardOp
from server import protocol as p


def done_line(op: BoardOp, pressed: Pressed, locale: str) -> str:
    """The one line answering a command that edited the board: what it played, or what
    it did when it played nothing (a resignation, an undo)."""
    if op is BoardOp.RESIGN_CONFIRMED:
        return text(locale, "resigned")
    played = pressed.reply.get("played") or []
    if op is BoardOp.UNDO or not played:
        return text(locale, "board_redrawn")
    return text(locale, "board_updated", moves=", ".join(played))


class Play(Part):
    """The commands on a player's own game: practice, the daily, the board again, typed
    moves, undo, hint and resign, board options, and moves typed in a DM."""

    @answering
    async def practice(
        self,
        interaction: Interaction,
        variant: str,
        deal: str | None,
        options: dict[str, Any] | None = None,
    ) -> None:
        """Start a practice game of ``variant`` (on a chosen deal code or seed)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        actor = self.actor(interaction)
        seed = None
        if deal:
            seed = parse_deal(deal)
            if seed is None:
                await send(interaction, text(actor.locale, "bad_deal_code", code=deal[:40]))
                return
        practice = p.Practice(
            variant=variant, options=options or {}, seed=seed, guild_id=guild_of(interaction)
        )
        reply = await self.client.expect(practice, actor, p.ViewReply)
        await self.boards.show_board(interaction, reply.game, board_reply(reply))

    @answering
    async def daily(self, interaction: Interaction, variant: str) -> None:
        """Start an attempt at today's deal of ``variant`` (the first one is ranked)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        actor = self.actor(interaction)
        start = p.DailyStart(variant=variant, guild_id=guild_of(interaction))
        # The first request of a day may wait for the solver to prove the day's deal.
        reply = await self.client.expect(start, actor, p.DailyGameReply, timeout=120)
        self.boards.dailies[reply.game] = reply.date
        if len(self.boards.daily_cards) >= MAX_BOARDS:
            self.boards.daily_cards.clear()  # forgetting costs only a card
        self.boards.daily_cards[reply.game] = reply.ranked
        notice = text(
            actor.locale,
            "daily_started",
            date=reply.date,
            ranked=text(actor.locale, daily_standing(reply)),
            deadline=f"<t:{reply.deadline // 1000}:R>",
        )
        await self.boards.show_board(interaction, reply.game, board_reply(reply), notice)

    @answering
    async def board_command(self, interaction: Interaction) -> None:
        """/solitaire board: show my board again."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        game = await self.boards.current_game(interaction)
        if game is None:
            await send(interaction, text(locale_of(interaction.locale), "no_game"))
            return
        await self.boards.show_board(interaction, game)

    @answering
    async def typed_move(self, interaction: Interaction, move: str) -> None:
        """/solitaire move: play a move typed in the engine's notation (or chosen from the
        list); the current board is edited, not posted again."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        await self.act_on_current(interaction, BoardOp.TARGET, typed_text(move))

    @answering
    async def game_command(self, interaction: Interaction, kind: str) -> None:
        """/solitaire undo, hint or resign on my current game (the board is edited)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        op = {"undo": BoardOp.UNDO, "hint": BoardOp.HINT, "resign": BoardOp.RESIGN_CONFIRMED}
        await self.act_on_current(interaction, op[kind], "")

    async def act_on_current(self, interaction: Interaction, op: BoardOp, arg: str) -> None:
        """Do ``op`` on the user's current game as its board's button would, then edit
        that board in place and say so in one line; post the board anew only when the
        bot can no longer edit it (older than 15 minutes, or from before a restart)."""
        game = await self.boards.current_game(interaction)
        if game is None:
            await send(interaction, text(locale_of(interaction.locale), "no_game"))
            return
        actor = self.actor(interaction)
        pressed = await self.boards.press(actor, game, op, arg, "")
        layout = self.boards.draw(game, pressed, actor)
        if await self.boards.edit_board(game, layout):
            line = pressed.notice or done_line(op, pressed, actor.locale)
            await send(interaction, line)
        else:
            message = await send(interaction, None, view=layout)
            if message is not None:
                self.boards.remember(game, actor, lambda v: message.edit(content=None, view=v))
        await self.boards.daily_over(interaction, actor, game, pressed.reply)

    @answering
    async def options(
        self, interaction: Interaction, one_tap: bool | None, auto_home: bool | None
    ) -> None:
        """/solitaire options: my board options (kept across restarts)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        actor = self.actor(interaction)
        prefs = await self.boards.set_prefs(actor, one_tap, auto_home)
        words = {True: text(actor.locale, "on"), False: text(actor.locale, "off")}
        line = text(
            actor.locale,
            "options_now",
            one_tap=words[prefs.one_tap],
            auto_home=words[prefs.auto_home],
        )
        await send(interaction, line)

    async def move_choices(self, interaction: Interaction, current: str) -> list[tuple[str, str]]:
        """(readable name, canonical move) of my legal moves that fit what I typed so far
        (``7 3``, ``9h``, ``ablage f``, ``ziehen``: bot/moves_text.py).

        Discord gives autocomplete 3 seconds and no way to defer, so a slow server
        means an empty list rather than a failed interaction.
        """
        try:
            async with asyncio.timeout(2.5):
                game = await self.boards.current_game(interaction)
                if game is None:
                    return []
                asked = p.GetView(game=game)
                reply = await self.client.expect(asked, self.actor(interaction), p.ViewReply)
        except (ServerError, TimeoutError):
            return []
        view = board_reply(reply)["view"]
        return move_choices(view, current, locale_of(interaction.locale))

    async def deal_choices(self, interaction: Interaction, current: str) -> list[tuple[str, str]]:
        """(name, code) of the deal codes to offer for what I typed: the code itself
        written as boards write it, once it is one ("1b" → "Deal 1B"), and the deal of the
        game I play now (a practice game's; a race's or a daily's stays hidden) when it
        begins with what I typed. Within Discord's 3 seconds, or nothing."""
        locale = locale_of(interaction.locale)
        codes: list[str] = []
        seed = parse_deal(current) if current.strip() else None
        if seed is not None:
            codes.append(engine.deal_code(seed))
        try:
            async with asyncio.timeout(2.5):
                game = self.boards.games.get(interaction.user.id)
                if game is not None:
                    asked = p.GetView(game=game)
                    reply = await self.client.expect(asked, self.actor(interaction), p.ViewReply)
                    playing = reply.view.deal_code
                    if playing and playing.startswith(current.strip().upper()):
                        codes.append(playing)
        except (ServerError, TimeoutError):
            pass
        return [(text(locale, "deal", code=code), code) for code in dict.fromkeys(codes)]

    async def dm_move(self, message: Any) -> None:
        """A plain message in a DM: a move (or undo) for the author's current game; the
        board in the DM is edited in place (posted anew only the first time)."""
        author = message.author
        name = getattr(author, "display_name", None) or author.name
        if author.id not in self.boards.locales:  # after a restart: the language kept for them
            with contextlib.suppress(ServerError):  # else English; the move is still tried
                await self.boards.load_prefs(Actor(author.id, name, introduce=False))
        locale = self.boards.locales.get(author.id, "en")
        if not self.boards.cooldown.allow(author.id, self.monotonic()):
            await message.channel.send(text(locale, "slow_down"))
            return
        actor = Actor(author.id, getattr(author, "display_name", None) or author.name, locale)
        game = self.boards.games.get(author.id)
        if game is None:
            game = await self.boards.find_game(actor)
        if game is None:
            await message.channel.send(text(locale, "no_game"))
            return
        try:
            pressed = await self.boards.press(
                actor, game, BoardOp.TARGET, typed_text(message.content), ""
            )
        except ServerError as err:
            await message.channel.send("⚠️ " + error_text(locale, err.code, err.message))
            return
        layout = self.boards.draw(game, pressed, actor)
        if await self.boards.edit_board(game, layout):
            return
        board = await message.channel.send(view=layout)
        # A DM message of the bot's own stays editable: no 15-minute limit.
        self.boards.remember(game, actor, lambda v: board.edit(view=v), lasts=float("inf"))


def daily_standing(reply: p.DailyGameReply) -> str:
    """The text key of how a daily attempt counts: ranked, a guest's (sign in to rank),
    or practice (a later attempt)."""
    if reply.ranked:
        return "daily_ranked"
    return "daily_unranked_guest" if reply.unranked == "guest" else "daily_practice"


def guild_of(interaction: Interaction) -> str | None:
    """The server an interaction came from, as the protocol names it (None in a DM)."""
    return str(interaction.guild_id) if interaction.guild_id is not None else None
