"""The table: where Discord interactions become server requests and boards come back.

Commands, buttons and DM messages all end up here. ``Table`` gathers the bot's
concerns, each in a module of its own: boards and presses (bot/boards.py), race
messages (bot/race_messages.py), standings (bot/standings.py); what stays here are
the commands that start or act on a player's own game (practice, daily, typed moves,
DMs). Every command answers Discord first (a defer, so no interaction times out
while the server thinks; a board press answers once, with its board, when the server
is quick), asks the server acting for the user who pressed, and draws the reply;
whatever fails is answered by the one error hook (bot/answers.py).
"""

from __future__ import annotations

import asyncio
from typing import Any

from bot.answers import Interaction, answering, send
from bot.boards import new_move_id
from bot.client import Actor, ServerError
from bot.i18n import error_text, locale_of, text
from bot.race_messages import RaceMessages, parse_deal
from bot.standings import Standings


class Table(RaceMessages, Standings):
    """Plays every Discord user's games and races through one server client."""

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
        fields: dict[str, Any] = {"variant": variant, "options": options or {}}
        if deal:
            seed = parse_deal(deal)
            if seed is None:
                await send(interaction, text(actor.locale, "bad_deal_code", code=deal[:40]))
                return
            fields["seed"] = seed
        if interaction.guild_id is not None:
            fields["guild_id"] = str(interaction.guild_id)
        reply = await self.client.request("practice", actor, **fields)
        await self.show_board(interaction, reply["game"], reply)

    @answering
    async def daily(self, interaction: Interaction, variant: str) -> None:
        """Start an attempt at today's deal of ``variant`` (the first one is ranked)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        actor = self.actor(interaction)
        fields: dict[str, Any] = {"variant": variant}
        if interaction.guild_id is not None:
            fields["guild_id"] = str(interaction.guild_id)
        # The first request of a day may wait for the solver to prove the day's deal.
        reply = await self.client.request("daily_start", actor, timeout=120, **fields)
        self.dailies[reply["game"]] = reply["date"]
        notice = text(
            actor.locale,
            "daily_started",
            date=reply["date"],
            ranked=text(actor.locale, "daily_ranked" if reply["ranked"] else "daily_practice"),
            deadline=f"<t:{reply['deadline'] // 1000}:R>",
        )
        await self.show_board(interaction, reply["game"], reply, notice)

    @answering
    async def board_command(self, interaction: Interaction) -> None:
        """/solitaire board: show my board again."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        game = await self.current_game(interaction)
        if game is None:
            await send(interaction, text(locale_of(interaction.locale), "no_game"))
            return
        await self.show_board(interaction, game)

    @answering
    async def typed_move(self, interaction: Interaction, move: str) -> None:
        """/solitaire move: play a move typed in the engine's notation."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        game = await self.current_game(interaction)
        if game is None:
            await send(interaction, text(locale_of(interaction.locale), "no_game"))
            return
        actor = self.actor(interaction)
        reply = await self.client.request(
            "move", actor, game=game, text=move[:100], move_id=new_move_id()
        )
        await self.show_board(interaction, game, reply)

    @answering
    async def game_command(self, interaction: Interaction, kind: str) -> None:
        """/solitaire undo, hint or resign on my current game."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        game = await self.current_game(interaction)
        if game is None:
            await send(interaction, text(locale_of(interaction.locale), "no_game"))
            return
        actor = self.actor(interaction)
        fields: dict[str, Any] = {"game": game}
        if kind == "undo":
            fields["move_id"] = new_move_id()
        reply = await self.client.request(kind, actor, **fields)
        notice = None
        if kind == "hint":
            hint = reply.get("hint")
            notice = (
                text(actor.locale, "hint_is", move=hint) if hint else text(actor.locale, "no_hint")
            )
        await self.show_board(interaction, game, reply, notice)

    async def move_choices(self, interaction: Interaction, current: str) -> list[str]:
        """My legal moves in canonical notation that start with ``current``.

        Discord gives autocomplete 3 seconds and no way to defer, so a slow server
        means an empty list rather than a failed interaction.
        """
        try:
            async with asyncio.timeout(2.5):
                game = await self.current_game(interaction)
                if game is None:
                    return []
                reply = await self.client.request("get_view", self.actor(interaction), game=game)
        except (ServerError, TimeoutError):
            return []
        moves = [m for group in reply["view"].get("legal_moves", {}).values() for m in group]
        typed = current.strip().lower()
        matching = [m for m in moves if m.startswith(typed)] if typed else moves
        return matching[:25]

    async def dm_move(self, message: Any) -> None:
        """A plain message in a DM: a move (or undo) for the author's current game."""
        author = message.author
        locale = self.locales.get(author.id, "en")
        if not self.cooldown.allow(author.id, self.monotonic()):
            await message.channel.send(text(locale, "slow_down"))
            return
        actor = Actor(author.id, getattr(author, "display_name", None) or author.name, locale)
        game = self.games.get(author.id)
        if game is None:
            game = await self.find_game(actor)
        if game is None:
            await message.channel.send(text(locale, "no_game"))
            return
        notice = None
        try:
            reply = await self.client.request(
                "move",
                actor,
                game=game,
                text=message.content.strip()[:100],
                move_id=new_move_id(),
            )
        except ServerError as err:
            notice = "⚠️ " + error_text(locale, err.code, err.message)
            try:
                reply = await self.client.request("get_view", actor, game=game)
            except ServerError:
                await message.channel.send(notice)
                return
        content, view = self.board(game, reply, locale, notice=notice)
        await message.channel.send(content, **({"view": view} if view else {}))
