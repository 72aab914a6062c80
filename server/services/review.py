"""Fair play: every ranked result is recomputed from the stored move log before it counts.

A race's results and a daily attempt's win are stored held (``unreviewed``) in the
commit that ends them. Right after that commit, the review replays each game from its
move log as stored, and lets it count only when the log gives the same result and the
win was no faster than a person could enter its moves (server/core/fairness.py);
otherwise it stays held, with its reason, for someone to look at. Results left
unreviewed by a stop are reviewed when the server starts again.
"""

from __future__ import annotations

import contextvars

import structlog

import engine
from server.core import fairness
from server.services.background import Background
from server.store.reviews import Claim, Reviews
from server.store.storage import Storage

log = structlog.get_logger(__name__)


class FairPlay:
    """Recomputes stored results from their move logs, in the background."""

    def __init__(self, storage: Storage, reviews: Reviews) -> None:
        self.storage = storage
        self.reviews = reviews
        self._reviews = Background("review_failed")

    def review_soon(self, game_ids: list[int]) -> None:
        """Review these games' unreviewed results once their commit is done (now)."""
        # A context of its own: the review is nobody's request, and the log lines of the
        # connection whose move ended the race would name that connection's player.
        self._reviews.start(self.review(game_ids), context=contextvars.Context())

    async def review(self, game_ids: list[int]) -> int:
        """Review the unreviewed results of these games; returns how many were decided."""
        claims = await self.reviews.claims(game_ids)
        for claim in claims:
            await self._decide(claim)
        return len(claims)

    async def review_pending(self) -> int:
        """Review every result a stop left unreviewed (at start-up)."""
        decided = 0
        while claims := await self.reviews.pending():
            for claim in claims:
                await self._decide(claim)
            decided += len(claims)
        return decided

    async def _decide(self, claim: Claim) -> None:
        record = await self.storage.entry(claim.game_id)
        if record is None:
            held: str | None = fairness.HELD_MISMATCH
        else:
            game = engine.replay(record.variant, record.seed, record.options, record.actions)
            held = fairness.review(game, won=claim.won, moves=claim.moves, time_ms=claim.time_ms)
        await self.reviews.decide(claim, held)
        if held is not None:
            log.warning(
                "result_held",
                game=claim.game_id,
                player=claim.player_id,
                reason=held,
                daily=claim.daily,
            )

    async def close(self) -> None:
        """Let reviews under way finish (a stop leaves the rest for the next start)."""
        await self._reviews.finish(timeout=5)
