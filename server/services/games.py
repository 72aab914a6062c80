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
from server import protocol as p
from server.protocol.errors import GameError, NotFoundError, forbidden
from server.store.storage import Storage


@dataclass(slots=True)
class LiveGame:
    """A rebuilt game and what the server knows about it beyond the rules."""

    game_id: int
    race_id: int | None
    player_id: int
    game: engine.Game
    status: str
    seed_public: bool
    move_ids: dict[str, int]
    # When the game was created and when it was won, in server ms: the clock a client
    # shows for a game outside a race (a race's clock starts at the race's start).
    started_at: int = 0
    finished_at: int | None = None
    # A daily attempt's end of play time, and the time before which its seed stays
    # hidden even once it is over (its day's close), in server ms (server/services/daily.py).
    play_until: int | None = None
    sealed_until: int | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def seq(self) -> int:
        """The sequence number the next action gets in the move log."""
        return len(self.game.actions)

    def check_owner(self, player_id: int) -> None:
        """Only the player whose game this is may touch it.

        Raises:
            IdentityError: ``forbidden``.
        """
        if player_id != self.player_id:
            raise forbidden(
                f"Game {self.game_id} belongs to another player.",
                f"Spiel {self.game_id} gehört jemand anderem.",
            )

    def check_time(self, now: int) -> None:
        """Raise ``time_up`` once the game's play time is over."""
        if self.play_until is not None and now > self.play_until:
            raise GameError("time_up")

    def check_playing(self) -> None:
        """Raise ``game_over`` once the game is won or given up."""
        if self.status != "playing":
            raise GameError("game_over")

    def view(self, reveal_seed: bool, started_at: int | None = None) -> p.PlayerView:
        """The player's view; the seed (which would reveal every card) only when allowed.

        It carries the game's clock (``started_at``, and ``finished_at`` once won) so a
        client can show the time of any game; ``started_at`` overrides the creation time
        when the clock starts elsewhere (a race's start).

        Built for each reply and not kept: a view is a few dozen objects, and one kept
        until the player's next move is long out of the processor's caches by then, so
        freeing it there cost more than building it (docs/performance.md). A move's
        reply builds it after the commit, so it is built, encoded and freed in one go.
        """
        view = self.game.view()
        if not (reveal_seed or self.seed_public):
            del view["seed"], view["deal_code"]
        view["status"] = self.status
        view["started_at"] = self.started_at if started_at is None else started_at
        if self.finished_at is not None:
            view["finished_at"] = self.finished_at
        return p.wire_view(view)


def move_error(err: engine.MoveError) -> GameError:
    """The protocol error for an engine's move error, keeping both languages."""
    if isinstance(err, engine.AmbiguousMoveError):
        code = "ambiguous_move"
    elif isinstance(err, engine.IllegalMoveError):
        code = "illegal_move"
    else:
        code = "invalid_move"
    details: dict[str, Any] = {"reason": err.message("en"), "reason_de": err.message("de")}
    if isinstance(err, engine.AmbiguousMoveError):
        details["candidates"] = list(err.candidates)
    return GameError(code, **details)


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
