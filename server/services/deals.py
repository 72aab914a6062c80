"""Deal difficulty at the server's service: shown on the daily, chosen for practice and
quick match.

A deal's rating starts from the solver's estimate and moves with every rated daily
attempt at it (server/services/ratings.py rates them; server/core/deals.py says how the
estimate becomes a first rating and a band). The daily's reply carries its deal's
difficulty; a practice that asks for a band gets a deal of it from the practice stock,
which grows as deals are drawn and searched in the solver's workers; a rated quick match
that asks for a band gets a freshly drawn deal nobody has seen (never one of the stock,
whose seeds practice games show).
"""

from __future__ import annotations

import asyncio
from concurrent.futures.process import BrokenProcessPool
from datetime import date

import msgspec
import structlog

from server import protocol as p
from server.core import deals
from server.core.deals import Band, Drawn
from server.core.identity import Principal
from server.core.ratings import pool_options
from server.core.session import check_game_settings
from server.protocol.errors import GameError
from server.services.daily import Dailies
from server.services.play import GameService
from server.services.solving import POOL_GRACE_SECONDS, SolverPool
from server.store.deals import DealRating, DealStore
from server.store.ratings import Pool

log = structlog.get_logger(__name__)

# Seconds a practice or quick match may spend drawing a deal of its band, and the solver's
# budget for each deal drawn (the budget bench/deal_difficulty.py measured with).
DRAW_SECONDS = 8.0
SEARCH_SECONDS = 1.0


def difficulty(deal: DealRating) -> p.DealDifficulty:
    """A deal's difficulty as sent."""
    return p.DealDifficulty(band=deals.band(deal.skill), rating=deal.skill.rating, games=deal.games)


class Deals:
    """Difficulty for the daily and for practice; deals of a band."""

    def __init__(
        self, store: DealStore, solver: SolverPool, dailies: Dailies, play: GameService
    ) -> None:
        self.store = store
        self.solver = solver
        self.dailies = dailies
        self.play = play

    async def daily(self, who: Principal, message: p.DailyInfo) -> p.DailyReply:
        """Reply to daily: the daily service's reply, with the deal's difficulty."""
        reply = await self.dailies.info(who, message)
        rating = await self.store.daily(message.variant, date.fromisoformat(reply.deal.date))
        if rating is not None:
            reply.deal.difficulty = difficulty(rating)
        return reply

    async def practice(self, who: Principal, message: p.Practice) -> p.ViewReply:
        """Reply to practice: a deal of the asked band, else any deal (GameService).

        Raises:
            GameError: ``invalid_options`` for bad settings, or a seed and a band both.
        """
        if message.difficulty is None:
            return await self.play.practice(who, message)
        if message.seed is not None:
            raise GameError(
                "invalid_options", reason="Ask for a seed or for a difficulty, not for both."
            )
        check_game_settings(message.variant, message.options, None)
        pool = Pool(message.variant, pool_options(message.variant, message.options))
        deal = await self.practice_deal(pool, message.difficulty, who.player_id)
        asked = msgspec.structs.replace(message, seed=deal.seed, difficulty=None)
        reply = await self.play.practice(who, asked)
        reply.difficulty = difficulty(deal)
        return reply

    async def practice_deal(self, pool: Pool, wanted: Band, player_id: int) -> DealRating:
        """A stock deal of the band the player has not been dealt, drawn anew if none."""
        low, high = deals.mu_range(wanted)
        found = await self.store.practice_seed(pool, low, high, player_id)
        if found is not None:
            return found
        drawn = await self.draw(pool, wanted)
        for deal in drawn:
            if deal.verdict == "winnable":
                await self.store.ensure(pool, deal.seed, deal.verdict, deal.nodes, practice=True)
        chosen = deals.closest(drawn, wanted)
        return await self.store.ensure(pool, chosen.seed, chosen.verdict, chosen.nodes)

    async def race_deal(self, pool: Pool, wanted: Band) -> tuple[int, bool]:
        """A fresh deal of the band for a race (never a stock deal): its seed and whether
        the solver proved it winnable. Kept with its rating, so the race can show it."""
        chosen = deals.closest(await self.draw(pool, wanted), wanted)
        await self.store.ensure(pool, chosen.seed, chosen.verdict, chosen.nodes)
        return chosen.seed, chosen.verdict == "winnable"

    async def draw(self, pool: Pool, wanted: Band) -> list[Drawn]:
        """Deals drawn and searched in the solver's workers until one is of the band (or
        the time is up); a fresh unsearched deal when the workers do not answer."""
        search = self.solver.run(
            deals.draw_deals,
            pool.variant,
            pool.options_dict,
            wanted,
            DRAW_SECONDS,
            SEARCH_SECONDS,
        )
        try:
            return await asyncio.wait_for(search, DRAW_SECONDS + POOL_GRACE_SECONDS)
        except (TimeoutError, BrokenProcessPool):
            log.warning("deal_draw_failed", variant=pool.variant, band=wanted)
            return [deals.Drawn(deals.fresh_seed(), "unknown", 0)]
