"""Games in memory: rebuilt by replaying the move log, cached, one lock each.

The database holds a game as (variant, options, seed, actions); this process
keeps the rebuilt ``engine.Game`` so a move costs one legality check, not a
replay. Each cached game has a lock held from the legality check until its row
is committed, so one process never offers the same sequence number twice; a
second process doing so loses on the move log's key.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import engine
from server.core.session import GameSession
from server.protocol.errors import NotFoundError
from server.store.storage import Storage


@dataclass(slots=True)
class LiveGame(GameSession):
    """A game this process holds: its session, and the lock its changes take.

    The lock is held from the legality check until the change's rows are committed, so
    this process never offers the same sequence number twice.
    """

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class GameCache:
    """The games this process holds, least recently used evicted first."""

    def __init__(self, storage: Storage, capacity: int = 20_000) -> None:
        self._storage = storage
        self._capacity = capacity
        self._games: OrderedDict[int, LiveGame] = OrderedDict()

    async def get(self, game_id: int) -> LiveGame:
        """The game ``game_id``, replayed from the move log when not cached.

        Raises:
            NotFoundError: no such game.
        """
        live = self.cached(game_id)
        if live is not None:
            return live
        record = await self._storage.entry(game_id)
        if record is None:
            raise NotFoundError(what="game", ref=game_id)
        live = self._games.get(game_id)  # another request may have loaded it meanwhile
        if live is not None:
            return live
        game = engine.replay(record.variant, record.seed, record.options, record.actions)
        live = LiveGame(
            game_id=record.game_id,
            race_id=record.race_id,
            player_id=record.player_id,
            game=game,
            status=record.status,
            seed_public=record.seed_public,
            move_ids=record.move_ids,
            started_at=record.created_at,
            finished_at=record.finished_at,
            play_until=record.play_until,
            sealed_until=record.sealed_until,
        )
        self.put(live)
        return live

    def start(
        self,
        game_id: int,
        *,
        race_id: int | None,
        player_id: int,
        variant: str,
        seed: int,
        options: dict[str, Any],
        seed_public: bool,
        started_at: int,
    ) -> LiveGame:
        """Cache a game just stored with no moves: dealt here, no replay, no read."""
        live = LiveGame(
            game_id=game_id,
            race_id=race_id,
            player_id=player_id,
            game=engine.new_game(variant, seed=seed, options=options),
            status="playing",
            seed_public=seed_public,
            move_ids={},
            started_at=started_at,
        )
        self.put(live)
        return live

    def put(self, live: LiveGame) -> None:
        """Cache a game, evicting the least recently used unlocked ones beyond capacity."""
        self._games[live.game_id] = live
        while len(self._games) > self._capacity:
            oldest_id, oldest = next(iter(self._games.items()))
            if oldest.lock.locked():
                break
            del self._games[oldest_id]

    def __len__(self) -> int:
        """How many games are held (the /metrics gauge ``solitaire_games_cached``)."""
        return len(self._games)

    def cached(self, game_id: int) -> LiveGame | None:
        """The cached game, if any, marked as just used (no await: the common case)."""
        live = self._games.get(game_id)
        if live is not None:
            self._games.move_to_end(game_id)
        return live

    def peek(self, game_id: int) -> LiveGame | None:
        """The cached game, if any, without loading it."""
        return self._games.get(game_id)

    def retire(self, live: LiveGame) -> None:
        """Let a game that is over leave the cache.

        Nothing changes a finished game any more, but its undo history and move ids
        (hundreds of entries in a long game) would stay in memory until thousands of
        newer games pushed it out: on a busy server, most of the process's memory, and
        a larger heap makes every move slower (docs/performance.md). A later look at
        the game replays it from the move log.
        """
        if self._games.get(live.game_id) is live:
            del self._games[live.game_id]

    def forget(self, game_id: int) -> None:
        """Drop a game whose cached state may be ahead of the database."""
        self._games.pop(game_id, None)
