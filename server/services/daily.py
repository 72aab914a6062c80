"""Daily deals: one proven-winnable deal per variant and UTC day, and the attempts at it.

The deal of a day is chosen deterministically: candidate seeds come from
``daily_seed(secret, variant, day, n)`` for n = 0, 1, 2, … and the first one the
solver proves winnable is the day's deal (the Yukon seed's "only solvable deals").
The secret is a server key kept in the database, so the choice is stable across
restarts and processes, yet nobody can compute a day's deal before it is revealed.

Provably fair: the deal's commitment, SHA-256 of ``"<seed>:<salt>"`` (the same as a
race's, ``server.core.race.commitment``), is public from the moment the day opens; the
seed and salt are revealed when the day closes. A day closes when no attempt at its
deal can still be running: at the next midnight UTC plus the play-time limit.

Attempts: each player's first attempt at a day's deal is ranked, later ones are
practice. An attempt counts for the UTC day it started on and may take at most the
play-time limit (default 60 minutes); a win after it counts as out of time.

Where the rest lives: the days and closing times are the pure calendar
(server/core/calendar.py); the stored deals and attempts are the store's
(server/store/daily.py). The choice of a deal (``daily_seed``, ``choose_deal``,
``prove_winnable``) stays here although it does no I/O: it is the solver's work, run
in a worker process of the solver pool (server/services/solving.py) under a time
budget, so near the budget's edge its answer depends on the machine; the pure core
holds only rules that answer the same anywhere without a solver.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

import structlog

from server import protocol as p
from server.core.calendar import closes_at_ms, day_of, day_start_ms, parse_day, starts_until_ms
from server.core.identity import Principal, unranked_reason
from server.core.race import commitment
from server.protocol.errors import DailyError, GameError, NotFoundError
from server.services.games import GameCache
from server.services.solving import MAX_NODES, Budget, SolverPool, prove_deal
from server.store.daily import DailyDeal, DailyStore, ProvenDeal

log = structlog.get_logger(__name__)

DAILY_VARIANTS = ("klondike", "klondike-3", "spider-1", "spider-2", "spider-4", "yukon")


def daily_seed(secret: bytes, variant: str, day: date, candidate: int) -> int:
    """The ``candidate``-th seed for ``variant`` on ``day``: HMAC-SHA-256 under the daily key.

    The message is ``"solitaire-arena daily <variant> <YYYY-MM-DD> <n>"``; the seed is
    the first 8 bytes of the digest, big-endian. Keyed, because a public derivation
    would let anyone deal tomorrow's game tonight.
    """
    message = f"solitaire-arena daily {variant} {day.isoformat()} {candidate}".encode("ascii")
    digest = hmac.new(secret, message, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big")


# ---------------------------------------------------------------- choosing a deal


@dataclass(frozen=True, slots=True)
class Proof:
    """What the solver said about one deal."""

    winnable: bool
    solution_length: int
    nodes: int
    seconds: float


@dataclass(frozen=True, slots=True)
class SolverBudget:
    """How hard the solver tries on each candidate, and how many candidates it gets."""

    max_nodes: int = MAX_NODES
    max_seconds: float = 20.0
    max_candidates: int = 40


def prove_winnable(variant: str, seed: int, budget: SolverBudget) -> Proof:
    """The winnability check: ask the solver (engine.solver) about one deal.

    Anything but a found solution (unwinnable, or out of budget) is not a proof.
    Runs in a worker process of the server's solver pool (server/services/solving.py).
    """
    proof = prove_deal(variant, {}, seed, Budget(budget.max_nodes, budget.max_seconds))
    return Proof(proof.winnable, proof.solution_length, proof.nodes, proof.seconds)


@dataclass(frozen=True, slots=True)
class ChosenDeal:
    """The day's deal as the chooser found it (before a salt is drawn)."""

    variant: str
    day: date
    seed: int
    candidate: int
    proof: Proof


def choose_deal(secret: bytes, variant: str, day: date, budget: SolverBudget) -> ChosenDeal | None:
    """The first candidate seed of (variant, day) the solver proves winnable, if any
    within the budget.

    Runs in a worker process: the solver is CPU-bound.
    """
    for candidate in range(budget.max_candidates):
        seed = daily_seed(secret, variant, day, candidate)
        proof = prove_winnable(variant, seed, budget)
        if proof.winnable:
            return ChosenDeal(variant, day, seed, candidate, proof)
    return None


# ---------------------------------------------------------------- showing a deal


def deal_info(deal: DailyDeal, time_limit_ms: int, now: int) -> p.DailyDealInfo:
    """What anyone may know about ``deal`` at ``now``: the seed and salt only once closed."""
    closes = closes_at_ms(deal.day, time_limit_ms)
    closed = now >= closes
    return p.DailyDealInfo(
        variant=deal.variant,
        date=deal.day.isoformat(),
        opens_at=day_start_ms(deal.day),
        starts_until=starts_until_ms(deal.day),
        closes_at=closes,
        closed=closed,
        commitment=deal.commitment,
        verdict="winnable",
        solution_length=deal.solution_length,
        time_limit_s=time_limit_ms // 1000,
        seed=str(deal.seed) if closed else None,
        salt=deal.salt if closed else None,
    )


def check_variant(variant: str) -> None:
    """Refuse a variant that has no daily deal.

    Raises:
        GameError: ``invalid_options``.
    """
    if variant not in DAILY_VARIANTS:
        raise GameError(
            "invalid_options",
            reason=f"There is no daily deal of {variant!r}; try {', '.join(DAILY_VARIANTS)}.",
        )


class Dailies:
    """The daily deals of this server: prepared ahead, started, swept, and shown.

    Given what it works with (its store, the solver workers, the cache of live games
    and the clock) by the wiring: a daily attempt is an ordinary game once started.
    """

    def __init__(
        self,
        store: DailyStore,
        solver: SolverPool,
        games: GameCache,
        clock: Callable[[], int],
        *,
        time_limit_ms: int = 3_600_000,
        budget: SolverBudget | None = None,
        variants: tuple[str, ...] = DAILY_VARIANTS,
        request_wait_s: float = 30.0,
        guests_rank: bool = False,
    ) -> None:
        self.store = store
        self.solver = solver
        self.games = games
        self.clock = clock
        self.request_wait_s = request_wait_s
        self.guests_rank = guests_rank  # docs/operations.md; else guests rank nowhere
        self.variants = variants
        self.time_limit_ms = time_limit_ms
        self.budget = budget or SolverBudget()
        self._preparing: dict[tuple[str, date], asyncio.Future[DailyDeal]] = {}

    # ------------------------------------------------------------ deals

    async def deal(self, variant: str, day: date, wait: float | None = None) -> DailyDeal:
        """The deal of ``variant`` on ``day``, prepared now if nobody did it ahead.

        ``wait`` bounds how long a request waits for the solver; the preparation goes
        on in the background either way.

        Raises:
            DailyError: ``deal_not_ready`` when the solver proved no candidate, or not
                within ``wait`` seconds.
        """
        stored = await self.store.deal(variant, day)
        if stored is not None:
            return stored
        key = (variant, day)
        pending = self._preparing.get(key)
        if pending is None:
            pending = asyncio.ensure_future(self._prepare(variant, day))
            self._preparing[key] = pending
            pending.add_done_callback(lambda done: self._prepared(key, done))
        try:
            return await asyncio.wait_for(asyncio.shield(pending), wait)
        except TimeoutError:
            raise DailyError("deal_not_ready", variant=variant, day=day.isoformat()) from None

    def _prepared(self, key: tuple[str, date], done: asyncio.Future[DailyDeal]) -> None:
        self._preparing.pop(key, None)
        if done.cancelled() or done.exception() is None:
            return
        if self.solver.closed:  # the server is stopping; the next start prepares it again
            log.info("daily_deal_left_at_stop", variant=key[0], day=key[1].isoformat())
            return
        log.error("daily_deal_failed", variant=key[0], error=repr(done.exception()))

    async def _prepare(self, variant: str, day: date) -> DailyDeal:
        secret = await self.store.secret()
        chosen = await self.solver.run(choose_deal, secret, variant, day, self.budget)
        if chosen is None:
            log.error("daily_deal_not_found", variant=variant, day=day.isoformat())
            raise DailyError("deal_not_ready", variant=variant, day=day.isoformat())
        salt = secrets.token_hex(16)
        await self.store.add_deal(
            ProvenDeal(
                variant=variant,
                day=day,
                seed=chosen.seed,
                candidate=chosen.candidate,
                salt=salt,
                commitment=commitment(chosen.seed, salt),
                solution_length=chosen.proof.solution_length,
                solver_nodes=chosen.proof.nodes,
                solver_ms=round(chosen.proof.seconds * 1000),
            )
        )
        log.info(
            "daily_deal_prepared",
            variant=variant,
            day=day.isoformat(),
            candidate=chosen.candidate,
            solution_length=chosen.proof.solution_length,
        )
        stored = await self.store.deal(variant, day)  # another process's, if it was first
        assert stored is not None
        return stored

    async def prepare_ahead(self, now: int) -> None:
        """Make sure today's and tomorrow's deals exist for every daily variant."""
        today = day_of(now)
        for day in (today, today + timedelta(days=1)):
            for variant in self.variants:
                with contextlib.suppress(DailyError):  # logged; the next round tries again
                    await self.deal(variant, day)

    async def sweep(self, now: int) -> int:
        """Close attempts whose play time ran out; returns how many."""
        return await self.store.sweep(now)

    async def run_preparer(self, interval: float = 600.0) -> None:
        """Prepare tomorrow's deals ahead and sweep expired attempts, every ``interval`` s."""
        while True:
            now = self.clock()
            try:
                await self.sweep(now)
                await self.prepare_ahead(now)
            except Exception:
                log.exception("daily_preparer_failed")
            await asyncio.sleep(interval)

    # ------------------------------------------------------------ requests

    async def info(self, who: Principal, message: p.DailyInfo) -> p.DailyReply:
        """A day's deal (commitment always, seed once closed) and the player's attempts."""
        check_variant(message.variant)
        now = self.clock()
        day = parse_day(message.date, now)
        if day > day_of(now):
            raise DailyError("day_not_open", day=day.isoformat())
        if day < day_of(now):  # a past day's deal is shown, never chosen afresh
            stored = await self.store.deal(message.variant, day)
            if stored is None:
                raise NotFoundError(what="daily deal", ref=f"{message.variant} {day}")
            deal = stored
        else:
            deal = await self.deal(message.variant, day, self.request_wait_s)
        attempts = await self.store.attempts(who.player_id, message.variant, day)
        return p.DailyReply(
            id=message.id, deal=deal_info(deal, self.time_limit_ms, now), attempts=attempts
        )

    async def start(self, who: Principal, message: p.DailyStart) -> p.DailyGameReply:
        """Start an attempt at today's deal: ranked if it is the player's first."""
        check_variant(message.variant)
        now = self.clock()
        day = day_of(now)
        deal = await self.deal(message.variant, day, self.request_wait_s)
        deadline = now + self.time_limit_ms
        unranked = unranked_reason(who.user, self.guests_rank)  # a guest's first attempt
        started = await self.store.start_attempt(
            deal,
            who.player_id,
            message.guild_id,
            started_at=now,
            deadline=deadline,
            sealed_until=closes_at_ms(day, self.time_limit_ms),
            held=unranked,
        )
        live = await self.games.get(started.game_id)
        return p.DailyGameReply(
            id=message.id,
            game=live.game_id,
            ranked=started.ranked and unranked is None,
            date=day.isoformat(),
            deadline=deadline,
            view=live.view(False),
            unranked="later_attempt" if not started.ranked else unranked,
        )
