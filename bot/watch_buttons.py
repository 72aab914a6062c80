"""The Watch button of a race message, and the menu and Refresh of a watcher's message,
with persistent custom ids; what they show is bot/watching.py's.

Custom ids: ``sa|w|<race>|<player>|new`` (the race message's Watch: a new private
message; player 0 is whoever the server lists first), ``sa|w|<race>|<player>|here``
(Refresh: the pressed message is edited), ``sa|ws|<race>`` (the menu of racers). Each
press goes to the table (``watch_press``).
"""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.holder import table_of
from bot.i18n import text
from bot.race_buttons import race_view

# States of a race whose message offers Watch: there is something to see.
WATCHABLE = ("countdown", "running")


def watched_race_view(
    race: int, state: str, locale: str, start_mode: str
) -> discord.ui.View | None:
    """A race message's buttons (bot/race_buttons.py) with Watch beside them while the
    race counts down or runs."""
    ui = race_view(race, state, locale, start_mode)
    if ui is not None and state in WATCHABLE:
        ui.add_item(WatchButton(race, 0, "new", label=text(locale, "btn_watch")))
    return ui


class WatchButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"sa\|w\|(?P<race>\d+)\|(?P<player>\d+)\|(?P<how>new|here)",
):
    """Watch on a race message (``new``), or Refresh on a watcher's message (``here``)."""

    def __init__(
        self, race: int, player: int, how: str, *, label: str = "·", emoji: str | None = "👀"
    ) -> None:
        self.race, self.player, self.how = race, player, how
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=label,
            emoji=emoji,
            style=discord.ButtonStyle.secondary,
            custom_id=f"sa|w|{race}|{player}|{how}",
        )
        super().__init__(button)

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> WatchButton:
        return cls(int(match["race"]), int(match["player"]), match["how"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        here = self.how == "here"
        await table_of(interaction).watching.watch_press(interaction, self.race, self.player, here)


class WatchSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"sa\|ws\|(?P<race>\d+)",
):
    """The menu of a watcher's message: whose board to show."""

    def __init__(
        self,
        race: int,
        options: list[discord.SelectOption] | None = None,
        placeholder: str | None = None,
    ) -> None:
        self.race = race
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=f"sa|ws|{race}",
            options=options or [discord.SelectOption(label="?", value="0")],
            placeholder=placeholder,
        )
        super().__init__(select)

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> WatchSelect:
        return cls(int(match["race"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = self.item.values or ["0"]
        player = int(values[0]) if values[0].isdigit() else 0
        await table_of(interaction).watching.watch_press(interaction, self.race, player, True)
