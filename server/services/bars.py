"""Barring a player whose play is not a person's, and lifting the bar.

A bar (server/store/bars.py) takes every result of the player off every board at once;
what is derived from results is then rebuilt (server/services/derived.py). Lifting it
puts each result back as it was, has the wins that were waiting for the review reviewed
(server/services/review.py), and rebuilds the derived data again. The ``solitaire
players`` command runs it (server/ops/players.py); a server process that keeps a board in
memory recomputes it at its next request, as the bar counts in ``player_bars``.
"""

from __future__ import annotations

import asyncpg
import structlog

from server.services.derived import REBUILDS, Rebuild, rebuild_derived
from server.services.review import FairPlay
from server.store.bars import BarChange, BarStore

log = structlog.get_logger(__name__)


class Bars:
    """Bars and their consequences."""

    def __init__(
        self,
        store: BarStore,
        fair_play: FairPlay,
        pool: asyncpg.Pool,
        rebuilds: tuple[Rebuild, ...] = REBUILDS,
    ) -> None:
        self.store = store
        self.fair_play = fair_play
        self.pool = pool
        self.rebuilds = rebuilds

    async def bar(self, player_id: int, reason: str | None) -> BarChange:
        """Bar the player: their results leave every board; derived data is rebuilt."""
        change = await self.store.bar(player_id, reason)
        await rebuild_derived(self.pool, [player_id], self.rebuilds)
        log.info("player_barred", player=player_id, reason=reason, results=change.results)
        return change

    async def unbar(self, player_id: int) -> BarChange:
        """Lift the bar: the results come back as they were, waiting wins are reviewed."""
        change = await self.store.unbar(player_id)
        if change.to_review:
            await self.fair_play.review(change.to_review)
        await rebuild_derived(self.pool, [player_id], self.rebuilds)
        log.info("player_unbarred", player=player_id, results=change.results)
        return change
