"""The board's menu of other moves: every legal move no tap on a pile plays.

A tap on a pile plays its most useful move (bot/taps.py); a player who means another
one picks it here, in one choice, rather than selecting the pile and then its target.
Its last choice, Choose, makes the next tap on a pile select it (its legal targets
light up), for a move further down than a menu's 25 choices hold. Its custom id
``sa|o|<game>`` carries the game; each option's value is the move in canonical
notation, which the server checks like any other, or ``*`` for Choose. discord.py
rebuilds the menu from its id alone, so it keeps working after the bot restarts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import discord

from bot.holder import table_of
from bot.i18n import text
from bot.moves_text import readable_move
from bot.taps import other_moves
from bot.views import CHOOSE, BoardOp


class MoveMenu(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"sa\|o\|(?P<game>\d+)",
):
    """Other moves of a board: choosing one plays it."""

    def __init__(
        self, game: int, options: list[discord.SelectOption] | None = None, placeholder: str = ""
    ) -> None:
        self.game = game
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=f"sa|o|{game}",
            options=options or [discord.SelectOption(label="-", value="-")],
            placeholder=placeholder or None,
        )
        super().__init__(select)

    @classmethod
    def make(cls, game: int, view: Mapping[str, Any], locale: str) -> MoveMenu | None:
        """The menu of ``view``'s other moves, or None when every legal move is a tap's."""
        moves = other_moves(view)
        if not moves:
            return None
        options = [
            discord.SelectOption(label=readable_move(view, move, locale)[:100], value=move)
            for move in moves
        ]
        options.append(discord.SelectOption(label=text(locale, "choose_option"), value=CHOOSE))
        return cls(game, options, text(locale, "other_moves"))

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> MoveMenu:
        return cls(int(match["game"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        move = (self.item.values or ["-"])[0]
        table = table_of(interaction).boards
        if move == CHOOSE:  # the next tap on a pile selects it
            await table.board_press(interaction, self.game, BoardOp.SELECT, CHOOSE, "")
            return
        await table.board_press(interaction, self.game, BoardOp.TARGET, move, "")
