"""The buttons of a race's channel messages, with persistent custom ids.

Custom ids (Discord allows 100 characters): ``sa|r|<race>|<op>``: join, leave, start,
board (open my board) on the race message; at the end play (this deal), rematch,
share; ``open`` (my board) under the start's mention; ``quit`` (leave and resign) under
the private question a Leave in a running race asks. discord.py rebuilds each button
from its id alone, so a race message keeps working after the bot restarts; the press
goes to the table (``race_press``, bot/race_messages.py).
"""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.holder import table_of
from bot.i18n import text


def race_view(race: int, state: str, locale: str, start_mode: str) -> discord.ui.View | None:
    """The buttons of a race message: lobby Join/Leave/Start; Open my board from the
    countdown on (the board lies face down until the start); at the end Play this deal,
    Rematch and Share."""
    ui = discord.ui.View(timeout=None)
    ops: list[tuple[str, str, str]] = []
    if state in ("lobby", "countdown") or (state == "running" and start_mode == "now"):
        ops += [("join", "btn_join", "success"), ("leave", "btn_leave", "secondary")]
    if state == "lobby":
        ops.append(("start", "btn_start", "primary"))
    if state in ("countdown", "running"):
        ops.append(("board", "btn_board", "primary"))
    if state == "finished":
        ops += [
            ("play", "btn_play_deal", "primary"),
            ("rematch", "btn_rematch", "success"),
            ("share", "btn_share", "secondary"),
        ]
    for op, key, style in ops:
        ui.add_item(RaceButton(race, op, label=text(locale, key), style=style))
    return ui


def quit_view(race: int, locale: str) -> discord.ui.View:
    """The one button of the private question whether to leave a running race (which
    resigns the game)."""
    ui = discord.ui.View(timeout=None)
    ui.add_item(RaceButton(race, "quit", label=text(locale, "btn_quit"), style="danger"))
    return ui


def start_view(race: int, locale: str) -> discord.ui.View:
    """The one button under the start's mention: open my board."""
    ui = discord.ui.View(timeout=None)
    ui.add_item(RaceButton(race, "open", label=text(locale, "btn_board"), style="primary"))
    return ui


class RaceButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"sa\|r\|(?P<race>\d+)\|(?P<op>join|leave|quit|start|board|open|play|rematch|share)",
):
    """A button of a race's channel message."""

    def __init__(self, race: int, op: str, *, label: str = "·", style: str = "secondary") -> None:
        self.race, self.op = race, op
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=label, style=getattr(discord.ButtonStyle, style), custom_id=f"sa|r|{race}|{op}"
        )
        super().__init__(button)

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> RaceButton:
        return cls(int(match["race"]), match["op"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await table_of(interaction).races.race_press(interaction, self.race, self.op)
