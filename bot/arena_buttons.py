"""The buttons of an arena's channel message, with persistent custom ids.

Custom ids: ``sa|a|<arena>|<op>``: join (also back after a pause), place (my place,
privately), pause, leave. discord.py rebuilds each button from its id alone, so an
arena's message keeps working after the bot restarts; the press goes to the table
(``arena_press``, bot/arenas.py) through the bot's declared ``table``.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.holder import table_of
from bot.i18n import text

# (op, text key, style) of each button, by the arena's state.
_OPEN = [
    ("join", "btn_join", "success"),
    ("place", "btn_place", "primary"),
    ("pause", "btn_pause", "secondary"),
    ("leave", "btn_leave", "secondary"),
]
BUTTONS: dict[str, list[tuple[str, str, str]]] = {
    "upcoming": _OPEN,
    "running": _OPEN,
    "ending": [("place", "btn_place", "primary")],
    "finished": [("place", "btn_place", "primary")],
}


def arena_view(arena: int, state: str, locale: str) -> discord.ui.View:
    """The buttons of an arena message: Join, My place, Pause and Leave while players can
    join; My place alone from the end of its time on."""
    ui = discord.ui.View(timeout=None)
    for op, key, style in BUTTONS.get(state, []):
        ui.add_item(ArenaButton(arena, op, label=text(locale, key), style=style))
    return ui


class ArenaButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"sa\|a\|(?P<arena>\d+)\|(?P<op>join|place|pause|leave)",
):
    """A button of an arena's channel message."""

    def __init__(self, arena: int, op: str, *, label: str = "·", style: str = "secondary") -> None:
        self.arena, self.op = arena, op
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=label, style=getattr(discord.ButtonStyle, style), custom_id=f"sa|a|{arena}|{op}"
        )
        super().__init__(button)

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> ArenaButton:
        return cls(int(match["arena"]), match["op"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await table_of(interaction).arenas.arena_press(interaction, self.arena, self.op)
