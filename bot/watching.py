"""Watching a race from Discord: the Watch button on a race message.

Pressing Watch shows, privately, the race's standings and a racer's board as the
server's ``watch_race`` gives them: the board holds no face-down card (a column says
only how many lie face down, the stock only its size), and a ranked race is shown as it
stood ``delay_ms`` ago (15 s), so that nobody can coach a racer from it. The menu
switches to another racer's board, Refresh draws it anew; both edit the same private
message. A racer of the race gets the server's refusal (``racing_here``) in their own
language: their own board is a button away.

The bot's one connection is shared by every user, and the server keeps one watched
board per connection and race, so each press asks anew (``watch_race`` acting for the
presser) and stops watching right after (``unwatch_race``): what a watcher sees is what
the server said for them at their press, never another watcher's choice. The buttons
and the menu are in bot/watch_buttons.py.
"""

from __future__ import annotations

import contextlib
from typing import Any

import discord
import msgspec

from bot.answers import Interaction, answering, send
from bot.client import Actor, ServerError
from bot.i18n import text, variant_name
from bot.part import Part
from bot.races import plain_name
from bot.render import TEXT_SUITS, format_time, render_board
from bot.watch_buttons import WatchButton, WatchSelect
from server import protocol as p

MOST_LINES = 25  # standings lines shown (a select menu lists at most 25 racers too)


def standings_lines(reply: p.WatchingReply, locale: str) -> list[str]:
    """The race's standings as the watcher may see them (counts only), in the order the
    server sent them."""
    lines = []
    for standing in reply.players[:MOST_LINES]:
        end = ""
        if standing.finished and standing.time_ms is not None:
            end = " · " + text(locale, "standing_won", time=format_time(standing.time_ms))
        elif standing.resigned:
            end = " · " + text(locale, "standing_resigned")
        lines.append(
            text(
                locale,
                "watch_line",
                name=plain_name(standing.name),
                foundation=standing.foundation,
                moves=standing.moves,
                end=end,
            )
        )
    return lines or [text(locale, "watch_nobody")]


def watch_text(reply: p.WatchingReply, locale: str, suits: Any = TEXT_SUITS) -> list[str]:
    """The watcher's message as text displays: the race and its delay with the
    standings; then the watched racer's board (drawn as a racer's own board is, from
    what the server sent: no face-down card is in it)."""
    title = text(
        locale, "watch_title", race=reply.race, variant=variant_name(locale, reply.settings.variant)
    )
    delay = (
        text(locale, "watch_delay", seconds=reply.delay_ms // 1000)
        if reply.delay_ms
        else text(locale, "watch_live")
    )
    parts = ["\n".join([f"**{title}**", delay, *standings_lines(reply, locale)])]
    if reply.board is not None:
        names = {s.player: s.name for s in reply.players}
        name = plain_name(names.get(reply.player or 0, "?"))
        # The renderer reads the view's JSON form (engine/view.py); the board is one
        # without legal moves, seed or deal code.
        board = {**msgspec.to_builtins(reply.board), "variant": reply.settings.variant}
        shown = render_board(board, locale, suits=suits)
        parts.append(f"{text(locale, 'watch_board_of', name=name)}\n{shown}")
    return parts


def watch_layout(
    reply: p.WatchingReply, locale: str, suits: Any = TEXT_SUITS
) -> discord.ui.LayoutView:
    """The watcher's private message: the texts, a menu of racers whose board to show,
    and Refresh."""
    ui = discord.ui.LayoutView(timeout=None)
    for part in watch_text(reply, locale, suits):
        ui.add_item(discord.ui.TextDisplay[Any](part))
    racers = reply.players[:MOST_LINES]
    if racers:
        options = [
            discord.SelectOption(
                label=plain_name(s.name)[:100] or "?",
                value=str(s.player),
                default=s.player == reply.player,
            )
            for s in racers
        ]
        menu = WatchSelect(reply.race, options, text(locale, "watch_pick"))
        ui.add_item(discord.ui.ActionRow[Any](menu))
    refresh = WatchButton(
        reply.race, reply.player or 0, "here", label=text(locale, "btn_refresh"), emoji="🔄"
    )
    ui.add_item(discord.ui.ActionRow[Any](refresh))
    return ui


class Watching(Part):
    """The Watch button and its private message's menu and Refresh."""

    @answering
    async def watch_press(
        self, interaction: Interaction, race: int, player: int, here: bool
    ) -> None:
        """Watch (a new private message) or Refresh / a racer chosen (the pressed message
        edited): the standings and a racer's board, as the server shows them to the
        presser; player 0 is whoever the server lists first."""
        if here:
            await interaction.response.defer()
        else:
            await interaction.response.defer(ephemeral=True, thinking=True)
        actor = self.actor(interaction)
        try:
            reply = await self._watch(actor, race, player)
        finally:
            with contextlib.suppress(ServerError):  # stopped anyway when the bot reconnects
                await self.client.ask(p.UnwatchRace(race=race), actor)
        layout = watch_layout(reply, actor.locale, self.boards.suits)
        if here:
            await interaction.edit_original_response(content=None, view=layout)
        else:
            await send(interaction, None, view=layout)

    async def _watch(self, actor: Actor, race: int, player: int) -> p.WatchingReply:
        """The server's ``watching`` reply for ``actor``: with ``player``'s board, or the
        first racer's when ``player`` is 0 (a racer of the race is refused a board:
        ``racing_here``, raised as the server's error).

        Raises:
            ServerError: the server's refusal (``racing_here``, ``not_found``).
        """
        if not player:
            first = await self.client.expect(p.WatchRace(race=race), actor, p.WatchingReply)
            if not first.players:
                return first
            player = first.players[0].player
        watch = p.WatchRace(race=race, player=player)
        return await self.client.expect(watch, actor, p.WatchingReply)
