"""The background "still winnable?" check of games the solver may help in.

The Yukon seed's game notices by itself when a player's path is surely lost and then
offers to undo a move, to jump back to the last still-winnable move, or to give up
(rules.md, Yukon). Here, after each acknowledged move or undo in a game with the
solver's help (practice games, and races created with ``solver_help``; never a daily
attempt), the solver looks at the new position in its worker pool while play goes on.
Once it proves the position lost, the connection that made the change is told unasked:
a ``winnability`` message with ``id`` null and verdict ``lost``, and the client offers
``undo``, ``jump_back`` and ``resign``. Winnable and unknown verdicts tell nothing.

Only a game's newest position matters: a game waits for at most one check, a newer
change replaces the waiting one, and a verdict about a position the game has since left
is dropped. The checks are best effort: past ``limit`` games waiting, new ones are not
checked (the player can still ask with ``check``).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from server import protocol as p
from server.services.games import LiveGame
from server.services.solving import SolverHelp
from server.services.subscriber import Subscriber


class WinnabilityWatch:
    """Checks the newest position of changed games, one game at a time."""

    def __init__(self, solver_help: SolverHelp, limit: int = 256) -> None:
        self._help = solver_help
        self._limit = limit
        self._waiting: OrderedDict[int, tuple[LiveGame, Subscriber]] = OrderedDict()
        self._wake = asyncio.Event()

    def changed(self, live: LiveGame, subscriber: Subscriber) -> None:
        """Check ``live`` where it stands once the solver gets to it."""
        if live.game_id not in self._waiting and len(self._waiting) >= self._limit:
            return
        self._waiting[live.game_id] = (live, subscriber)
        self._waiting.move_to_end(live.game_id)
        self._wake.set()

    async def run(self) -> None:
        """Work through the waiting games until cancelled (the server's shutdown)."""
        while True:
            if not self._waiting:
                self._wake.clear()
                await self._wake.wait()
                continue
            _, (live, subscriber) = self._waiting.popitem(last=False)
            await self._check(live, subscriber)

    async def _check(self, live: LiveGame, subscriber: Subscriber) -> None:
        if live.status != "playing":
            return
        seq = live.seq
        verdict = await self._help.verdict(live.game)
        if verdict != "lost" or live.seq != seq or live.status != "playing":
            return
        told = p.WinnabilityReply(id=None, game=live.game_id, seq=seq, verdict="lost")
        subscriber.send(p.encode(told))
