"""The table: where Discord interactions become server requests and boards come back.

Commands, buttons and DM messages all end up here. The table is built from parts, each
a module of its own with its own state, all sharing the players' boards (``Boards``,
bot/boards.py: what the bot remembers of its players, and how boards are drawn and
pressed): a player's own game (``play``, bot/play.py), race messages (``races``,
bot/race_messages.py), standings (``standings``), quick match and ratings
(``matches``, bot/ratings.py), arenas (``arenas``, bot/arenas.py) and watching
(``watching``, bot/watching.py). The commands (bot/cog.py) and the buttons, which
reach the table through the bot's ``table`` (bot/holder.py), call the part they are
about.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from bot.arenas import Arenas
from bot.boards import Boards, wall_ms
from bot.client import ArenaClient
from bot.desk import RaceDesk
from bot.fair_use import Cooldown
from bot.play import Play
from bot.race_messages import RaceMessages
from bot.ratings import QuickMatches
from bot.standings import Standings
from bot.watching import Watching


class Table:
    """Plays every Discord user's games and races through one server client."""

    def __init__(
        self,
        client: ArenaClient,
        desk: RaceDesk,
        clock: Callable[[], int] = wall_ms,
        *,
        cooldown: Cooldown | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.boards = Boards(client, desk, clock, cooldown=cooldown, monotonic=monotonic)
        self.play = Play(self.boards)
        self.races = RaceMessages(self.boards)
        self.standings = Standings(self.boards)
        self.matches = QuickMatches(self.boards)
        self.arenas = Arenas(self.boards)
        self.watching = Watching(self.boards)
        # What the server says unasked: a match found or a race rated (quick match), else
        # the boards' (a game proven lost).
        client.on_notice = self.matches.on_notice
