"""The ``/solitaire`` command group: each command checks its input and hands off.

Commands translate between Discord and the server through the ``Table``; no rule
lives here. Names, descriptions and choices are English in the code and German
through ``GermanTranslator`` for users whose Discord speaks German.

The group is offered in two parts (``global_commands``, ``server_commands``): every
command that needs no server as the global command, usable in servers, DMs and group
DMs and installable by users; ``race`` and ``arena``, which live in a server's channel, as
guild commands of each server the bot is in.
"""

from __future__ import annotations

from typing import Any, Final

import discord
from discord import app_commands
from discord.ext import commands

from bot.command_words import COMMANDS_DE
from bot.i18n import locale_of, text
from bot.table import Table

Choice = app_commands.Choice

VARIANT_CHOICES = [
    Choice(name="Klondike (draw 1)", value="klondike"),
    Choice(name="Klondike (draw 3)", value="klondike-3"),
    Choice(name="Spider (1 suit)", value="spider-1"),
    Choice(name="Spider (2 suits)", value="spider-2"),
    Choice(name="Spider (4 suits)", value="spider-4"),
    Choice(name="Yukon", value="yukon"),
    Choice(name="Russian Solitaire", value="russian"),
    Choice(name="Alaska", value="alaska"),
]
DAILY_CHOICES = VARIANT_CHOICES[:6]
START_CHOICES = [
    Choice(name="Creator starts", value="manual"),
    Choice(name="Countdown", value="countdown"),
    Choice(name="Open start (join any time)", value="now"),
]
PASSES_CHOICES = [
    Choice(name="Unlimited passes", value=0),
    Choice(name="1 pass", value=1),
    Choice(name="3 passes", value=3),
]
# Seconds before the start unless the creator says: a Countdown race counts down from
# its creation, so it waits long enough for others to see it and join.
COUNTDOWN_S = 10
OPEN_COUNTDOWN_S = 60


def countdown_seconds(start: str, chosen: int | None) -> int:
    """The race's countdown: the creator's, else a minute for a race that counts down from
    its creation (ten seconds and the creator would race alone), else ten seconds."""
    if chosen is not None:
        return chosen
    return OPEN_COUNTDOWN_S if start == "countdown" else COUNTDOWN_S


LAYOUT_CHOICES = [
    Choice(name="Seed layout (5 per column)", value="seed"),
    Choice(name="Digital layout (6/5)", value="digital"),
]
PERIOD_CHOICES = [Choice(name="Today", value="daily"), Choice(name="All time", value="all_time")]
SCOPE_CHOICES = [
    Choice(name="Everyone", value="global"),
    Choice(name="This server", value="server"),
]


def game_options(variant: str, passes: int | None, layout: str | None) -> dict[str, Any]:
    """The options chosen, passed only to the variants that name them (the server checks)."""
    options: dict[str, Any] = {}
    if passes is not None and variant.startswith("klondike"):
        options["passes"] = passes
    if layout is not None and variant.startswith("spider"):
        options["layout"] = layout
    return options


class GermanTranslator(app_commands.Translator):
    """German names and descriptions for the command group (others stay English)."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        if locale is not discord.Locale.german:
            return None
        return COMMANDS_DE.get(string.message)


class SolitaireCog(commands.GroupCog, group_name="solitaire", group_description="Play solitaire"):
    """Every ``/solitaire`` command."""

    def __init__(self, table: Table) -> None:
        self.table = table
        super().__init__()

    @app_commands.command(name="race", description="Open a race in this channel")
    @app_commands.describe(
        variant="The game everyone plays",
        start="How the race starts",
        time_limit="Time limit in minutes (none: until everyone is done)",
        countdown="Countdown in seconds before the start (default 10; 60 with start Countdown)",
        undo="Allow undo",
        hints="Allow hints",
        passes="Klondike: passes through the stock",
        layout="Spider: how the deal is laid out",
        max_players="Most players",
        deal="A deal code to race on (default: a secret new deal)",
        thread="A thread for the race, for its start and result (default: yes, if allowed)",
    )
    @app_commands.choices(variant=VARIANT_CHOICES, start=START_CHOICES, layout=LAYOUT_CHOICES)
    @app_commands.choices(passes=PASSES_CHOICES)
    async def race(
        self,
        interaction: discord.Interaction[Any],
        variant: Choice[str],
        start: Choice[str] | None = None,
        time_limit: app_commands.Range[int, 1, 240] | None = None,
        countdown: app_commands.Range[int, 0, 120] | None = None,
        undo: bool = True,
        hints: bool = False,
        passes: Choice[int] | None = None,
        layout: Choice[str] | None = None,
        max_players: app_commands.Range[int, 1, 25] = 8,
        deal: str | None = None,
        thread: bool | None = None,
    ) -> None:
        settings: dict[str, Any] = {
            "variant": variant.value,
            "options": game_options(
                variant.value, passes.value if passes else None, layout.value if layout else None
            ),
            "start": start.value if start else "manual",
            "countdown_s": countdown_seconds(start.value if start else "manual", countdown),
            "allow_undo": undo,
            "allow_hints": hints,
            "max_players": max_players,
        }
        if time_limit is not None:
            settings["time_limit_s"] = time_limit * 60
        await self.table.races.create_race(interaction, deal, thread, **settings)

    @app_commands.command(
        name="arena", description="Open an arena in this channel: back-to-back races, join any time"
    )
    @app_commands.describe(
        variant="The game everyone plays",
        minutes="How long the arena runs (5 to 60 minutes)",
        starts_in="Minutes until it starts (default: at once)",
        title="A name for the arena",
    )
    @app_commands.choices(variant=VARIANT_CHOICES)
    async def arena(
        self,
        interaction: discord.Interaction[Any],
        variant: Choice[str],
        minutes: app_commands.Range[int, 5, 60] = 30,
        starts_in: app_commands.Range[int, 0, 1440] = 0,
        title: app_commands.Range[str, 1, 64] | None = None,
    ) -> None:
        await self.table.arenas.open_arena(interaction, variant.value, minutes, starts_in, title)

    @app_commands.command(name="daily", description="Play today's deal")
    @app_commands.describe(variant="The game of the day")
    @app_commands.choices(variant=DAILY_CHOICES)
    async def daily(self, interaction: discord.Interaction[Any], variant: Choice[str]) -> None:
        await self.table.play.daily(interaction, variant.value)

    @app_commands.command(name="play", description="Practise a game on your own")
    @app_commands.describe(
        variant="The game to play",
        deal="A deal code to replay (default: a new deal)",
        passes="Klondike: passes through the stock",
        layout="Spider: how the deal is laid out",
    )
    @app_commands.choices(variant=VARIANT_CHOICES, layout=LAYOUT_CHOICES)
    @app_commands.choices(passes=PASSES_CHOICES)
    async def play(
        self,
        interaction: discord.Interaction[Any],
        variant: Choice[str],
        deal: str | None = None,
        passes: Choice[int] | None = None,
        layout: Choice[str] | None = None,
    ) -> None:
        options = game_options(
            variant.value, passes.value if passes else None, layout.value if layout else None
        )
        await self.table.play.practice(interaction, variant.value, deal, options)

    @app_commands.command(name="board", description="Show my board again")
    async def board(self, interaction: discord.Interaction[Any]) -> None:
        await self.table.play.board_command(interaction)

    @app_commands.command(name="move", description="Type a move, like 7 3 or w f")
    @app_commands.describe(move="The move (the list shows your legal moves)")
    async def move(self, interaction: discord.Interaction[Any], move: str) -> None:
        await self.table.play.typed_move(interaction, move)

    async def _deals(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[Choice[str]]:
        deals = await self.table.play.deal_choices(interaction, current)
        return [Choice(name=name, value=code) for name, code in deals]

    @race.autocomplete("deal")
    async def race_deal_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[Choice[str]]:
        return await self._deals(interaction, current)

    @play.autocomplete("deal")
    async def deal_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[Choice[str]]:
        return await self._deals(interaction, current)

    @move.autocomplete("move")
    async def move_autocomplete(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[Choice[str]]:
        moves = await self.table.play.move_choices(interaction, current)
        return [Choice(name=name, value=move) for name, move in moves]

    @app_commands.command(name="options", description="My board options")
    @app_commands.describe(
        one_tap="A tap plays the card wherever it fits (Undo puts a wrong one right)",
        auto_home="Safe cards go to the foundations by themselves",
    )
    async def options(
        self,
        interaction: discord.Interaction[Any],
        one_tap: bool | None = None,
        auto_home: bool | None = None,
    ) -> None:
        await self.table.play.options(interaction, one_tap, auto_home)

    @app_commands.command(name="undo", description="Take back my last move")
    async def undo(self, interaction: discord.Interaction[Any]) -> None:
        await self.table.play.game_command(interaction, "undo")

    @app_commands.command(name="hint", description="Suggest a useful move")
    async def hint(self, interaction: discord.Interaction[Any]) -> None:
        await self.table.play.game_command(interaction, "hint")

    @app_commands.command(name="resign", description="Give up my current game")
    async def resign(self, interaction: discord.Interaction[Any]) -> None:
        await self.table.play.game_command(interaction, "resign")

    @app_commands.command(name="leaderboard", description="Show a leaderboard")
    @app_commands.describe(
        variant="The game",
        period="Today's deal or all time",
        scope="Everyone or this server",
        around_me="Show the players around me",
    )
    @app_commands.choices(variant=DAILY_CHOICES, period=PERIOD_CHOICES, scope=SCOPE_CHOICES)
    async def leaderboard(
        self,
        interaction: discord.Interaction[Any],
        variant: Choice[str],
        period: Choice[str] | None = None,
        scope: Choice[str] | None = None,
        around_me: bool = False,
    ) -> None:
        await self.table.standings.leaderboard(
            interaction,
            variant.value,
            period.value if period else "daily",
            scope.value if scope else "global",
            around_me,
        )

    @app_commands.command(name="quickmatch", description="Race players of about my strength")
    @app_commands.describe(variant="The game", rated="Rated: the race changes ratings")
    @app_commands.choices(variant=VARIANT_CHOICES)
    async def quickmatch(
        self, interaction: discord.Interaction[Any], variant: Choice[str], rated: bool = True
    ) -> None:
        await self.table.matches.quick_match(interaction, variant.value, rated)

    @app_commands.command(name="stats", description="Show my statistics")
    async def stats(self, interaction: discord.Interaction[Any]) -> None:
        await self.table.standings.stats(interaction)

    @app_commands.command(name="help", description="How to read a board and type moves")
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(
            text(locale_of(interaction.locale), "help"), ephemeral=True
        )


# The commands that need a server: a race and an arena live in a channel message.
GUILD_ONLY: Final = frozenset({"race", "arena"})


def server_commands(table: Table) -> app_commands.Group:
    """``/solitaire`` as a guild command of each server the bot is in (bot/command_sync.py):
    only the commands that need a server (``race``, ``arena``). Discord shows a guild command only
    in its server; there its subcommands stand beside those of the global command, which
    holds every other one, so each subcommand is listed once."""
    group = SolitaireCog(table).app_command
    assert group is not None  # a GroupCog always has its group
    for command in list(group.commands):
        if command.name not in GUILD_ONLY:
            group.remove_command(command.name)
    return group


def global_commands(table: Table) -> app_commands.Group:
    """``/solitaire`` as the one global command: every command that needs no server
    (practice, daily, board, moves, options, stats, leaderboard, quick match, help).

    Installable by a server and by a user, and usable in servers, in DMs with the bot
    and in group DMs: a player who adds the bot to their account plays in any of them,
    in a server without the bot too (answers go through the interaction, privately)."""
    group = SolitaireCog(table).app_command
    assert group is not None
    for name in GUILD_ONLY:
        group.remove_command(name)
    group.allowed_installs = app_commands.AppInstallationType(guild=True, user=True)
    group.allowed_contexts = app_commands.AppCommandContext(
        guild=True, dm_channel=True, private_channel=True
    )
    return group
