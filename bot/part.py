"""A part of the table: the commands of one kind, on the players' boards every part shares.

The table (bot/table.py) is built from parts (games, races, standings, quick match,
arenas, watching), each given the one ``Boards`` (bot/boards.py): what the bot remembers
of its players and how it draws and redraws their boards. A part keeps its own state and
reaches the shared one only through ``boards``; what every entry point needs (the
server client, the race desk, the error hook and fair-use check of ``@answering``, the
user as the server's principal) it has at hand.
"""

from __future__ import annotations

from bot.answers import ErrorHook, Interaction
from bot.boards import Boards
from bot.client import Actor, ArenaClient
from bot.desk import RaceDesk


class Part:
    """Commands of one kind, sharing the players' boards."""

    def __init__(self, boards: Boards) -> None:
        self.boards = boards
        self.client: ArenaClient = boards.client
        self.desk: RaceDesk = boards.desk
        self.errors: ErrorHook = boards.errors

    async def turned_away(self, interaction: Interaction) -> bool:
        """Whether the user is over their fair share (``Boards.turned_away``)."""
        return await self.boards.turned_away(interaction)

    def actor(self, interaction: Interaction) -> Actor:
        """The Discord user of ``interaction`` as the server's principal."""
        return self.boards.actor(interaction)

    def monotonic(self) -> float:
        """The boards' clock for followups and fair use (seconds)."""
        return self.boards.monotonic()
