"""Finding games and races again: a player's games still being played, and the races
a service (the Discord bot) opened and that are not yet finished.

A client that forgot what it was doing (the bot after a restart keeps nothing in
memory) asks here instead of keeping its own copy: the database is the one record
of which games are live and where each race was opened (``guild_id``, ``context``).
The queries are the store's (server/store/listings.py).
"""

from __future__ import annotations

from collections.abc import Callable

from server import protocol as p
from server.core.identity import Principal
from server.store.listings import ListingStore


class Listings:
    """Reads that let a client find its games and races again."""

    def __init__(self, store: ListingStore, clock: Callable[[], int]) -> None:
        self.store = store
        self.clock = clock

    async def my_games(self, who: Principal, message: p.MyGames) -> p.MyGamesReply:
        """Reply to my_games: the asker's games still being played, newest first."""
        games = await self.store.games_in_play(who.player_id, self.clock(), message.limit)
        return p.MyGamesReply(id=message.id, games=games)

    async def open_races(self, message: p.OpenRaces) -> p.OpenRacesReply:
        """Reply to open_races (the connection lets only service clients ask)."""
        races = await self.store.open_races(message.guild_id, message.context, message.limit)
        return p.OpenRacesReply(id=message.id, races=races)
