"""Daily deals: one proven-winnable deal per variant and UTC day, and the attempts at it.

The deal of a day is chosen deterministically: candidate seeds come from
``daily_seed(secret, variant, day, n)`` for n = 0, 1, 2, … and the first one the
solver proves winnable is the day's deal (the Yukon seed's "only solvable deals").
The secret is a server key kept in the database, so the choice is stable across
restarts and processes, yet nobody can compute a day's deal before it is revealed.

Provably fair: the deal's commitment, SHA-256 of ``"<seed>:<salt>"`` (the same as a
race's, ``server.race.commitment``), is public from the moment the day opens; the
seed and salt are revealed when the day closes. A day closes when no attempt at its
deal can still be running: at the next midnight UTC plus the play-time limit.

Attempts: each player's first attempt at a day's deal is ranked, later ones are
practice. An attempt counts for the UTC day it started on and may take at most the
play-time limit (default 60 minutes); a win after it counts as out of time.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import asyncpg
import structlog

from server import protocol as p
from server.core.identity import Principal
from server.core.race import commitment
from server.protocol.errors import DailyError, GameError, NotFoundError
from server.services.games import GameCache
from server.services.solving import MAX_NODES, Budget, SolverPool, prove_deal
from server.store.storage import Storage, _guarded, from_ms

log = structlog.get_logger(__name__)

DAILY_VARIANTS = ("klondike", "klondike-3", "spider-1", "spider-2", "spider-4", "yukon")
DAY_MS = 86_400_000


def daily_seed(secret: bytes, variant: str, day: date, candidate: int) -> int:
    """The ``candidate``-th seed for ``variant`` on ``day``: HMAC-SHA-256 under the daily key.

    The message is ``"solitaire-arena daily <variant> <YYYY-MM-DD> <n>"``; the seed is
    the first 8 bytes of the digest, big-endian. Keyed, because a public derivation
    would let anyone deal tomorrow's game tonight.
    """
    message = f"solitaire-arena daily {variant} {day.isoformat()} {candidate}".encode("ascii")
    digest = hmac.new(secret, message, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big")


def day_of(ms: int) -> date:
    """The UTC day a server time (ms since the epoch) falls on."""
    return datetime.fromtimestamp(ms / 1000, tz=UTC).date()


def day_start_ms(day: date) -> int:
    """Midnight UTC at the start of ``day``, in server milliseconds."""
    return round(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp() * 1000)


def closes_at_ms(day: date, time_limit_ms: int) -> int:
    """When ``day``'s deal stops being live: the last attempt started that day is over."""
    return day_start_ms(day) + DAY_MS + time_limit_ms


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


# ---------------------------------------------------------------- stored deals


@dataclass(frozen=True, slots=True)
class DailyDeal:
    """A day's deal as stored: public parts, and the seed and salt kept back until close."""

    variant: str
    day: date
    seed: int
    salt: str
    commitment: str
    solution_length: int

    def info(self, time_limit_ms: int, now: int) -> p.DailyDealInfo:
        """What anyone may know about the deal at ``now``: the seed only once closed."""
        closes = closes_at_ms(self.day, time_limit_ms)
        closed = now >= closes
        return p.DailyDealInfo(
            variant=self.variant,
            date=self.day.isoformat(),
            opens_at=day_start_ms(self.day),
            starts_until=day_start_ms(self.day) + DAY_MS,
            closes_at=closes,
            closed=closed,
            commitment=self.commitment,
            verdict="winnable",
            solution_length=self.solution_length,
            time_limit_s=time_limit_ms // 1000,
            seed=str(self.seed) if closed else None,
            salt=self.salt if closed else None,
        )


def _deal(row: asyncpg.Record) -> DailyDeal:
    return DailyDeal(
        variant=row["variant"],
        day=row["day"],
        seed=int(row["seed"]),
        salt=row["salt"],
        commitment=row["commitment"],
        solution_length=row["solution_length"],
    )


def parse_day(text: str | None, now: int) -> date:
    """The day a request names (``YYYY-MM-DD``), or today (UTC) when it names none.

    Raises:
        GameError: ``invalid_options`` for a date that does not exist.
    """
    if not text:
        return day_of(now)
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise GameError("invalid_options", reason=f"{text!r} is not a date.") from None


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
    """The daily deals of this server: prepared ahead, started, swept, and shown."""

    def __init__(
        self,
        storage: Storage,
        solver: SolverPool,
        games: GameCache,
        clock: Callable[[], int],
        *,
        time_limit_ms: int = 3_600_000,
        budget: SolverBudget | None = None,
        variants: tuple[str, ...] = DAILY_VARIANTS,
        request_wait_s: float = 30.0,
    ) -> None:
        self.storage = storage
        self.solver = solver
        self.games = games
        self.clock = clock
        self.request_wait_s = request_wait_s
        self.variants = variants
        self.time_limit_ms = time_limit_ms
        self.budget = budget or SolverBudget()
        self._preparing: dict[tuple[str, date], asyncio.Future[DailyDeal]] = {}

    @property
    def pool(self) -> asyncpg.Pool:
        """The database pool shared with the rest of the server."""
        return self.storage.pool

    # ------------------------------------------------------------ deals

    async def stored_deal(self, variant: str, day: date) -> DailyDeal | None:
        """The deal of ``variant`` on ``day`` if it was prepared."""
        row = await self.pool.fetchrow(
            "select * from daily_deals where variant=$1 and day=$2", variant, day
        )
        return None if row is None else _deal(row)

    async def deal(self, variant: str, day: date, wait: float | None = None) -> DailyDeal:
        """The deal of ``variant`` on ``day``, prepared now if nobody did it ahead.

        ``wait`` bounds how long a request waits for the solver; the preparation goes
        on in the background either way.

        Raises:
            DailyError: ``deal_not_ready`` when the solver proved no candidate, or not
                within ``wait`` seconds.
        """
        stored = await self.stored_deal(variant, day)
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
        if not done.cancelled() and done.exception() is not None:
            log.error("daily_deal_failed", variant=key[0], error=repr(done.exception()))

    async def _prepare(self, variant: str, day: date) -> DailyDeal:
        secret = await self.storage.secret("daily")
        chosen = await self.solver.run(choose_deal, secret, variant, day, self.budget)
        if chosen is None:
            log.error("daily_deal_not_found", variant=variant, day=day.isoformat())
            raise DailyError("deal_not_ready", variant=variant, day=day.isoformat())
        salt = secrets.token_hex(16)
        # Another process may have stored the same deal meanwhile; its salt stands.
        await self.pool.execute(
            """
            insert into daily_deals (variant, day, seed, candidate, salt, commitment, verdict,
                solution_length, solver_nodes, solver_ms)
            values ($1, $2, $3, $4, $5, $6, 'winnable', $7, $8, $9)
            on conflict (variant, day) do nothing
            """,
            variant,
            day,
            Decimal(chosen.seed),
            chosen.candidate,
            salt,
            commitment(chosen.seed, salt),
            chosen.proof.solution_length,
            chosen.proof.nodes,
            round(chosen.proof.seconds * 1000),
        )
        log.info(
            "daily_deal_prepared",
            variant=variant,
            day=day.isoformat(),
            candidate=chosen.candidate,
            solution_length=chosen.proof.solution_length,
        )
        stored = await self.stored_deal(variant, day)
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
        result = await self.pool.execute(
            """
            update daily_entries d set
                status = 'out_of_time',
                finished_at = d.deadline,
                time_ms = round(extract(epoch from d.deadline - d.started_at) * 1000)::bigint,
                moves = m.played - m.taken_back,
                undos = m.taken_back,
                hints = m.hinted
            from daily_entries o
            cross join lateral (
                select count(*) filter (where action not in ('undo', 'hint')) as played,
                       count(*) filter (where action = 'undo') as taken_back,
                       count(*) filter (where action = 'hint') as hinted
                from moves where game_id = o.entry_id
            ) m
            where o.entry_id = d.entry_id and o.status = 'playing' and o.deadline < $1
            """,
            from_ms(now),
        )
        return int(result.split()[-1])

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

    @_guarded
    async def info(self, who: Principal, message: p.DailyInfo) -> p.DailyReply:
        """A day's deal (commitment always, seed once closed) and the player's attempts."""
        check_variant(message.variant)
        now = self.clock()
        day = parse_day(message.date, now)
        if day > day_of(now):
            raise DailyError("day_not_open", day=day.isoformat())
        if day < day_of(now):  # a past day's deal is shown, never chosen afresh
            stored = await self.stored_deal(message.variant, day)
            if stored is None:
                raise NotFoundError(what="daily deal", ref=f"{message.variant} {day}")
            deal = stored
        else:
            deal = await self.deal(message.variant, day, self.request_wait_s)
        rows = await self.pool.fetch(
            """
            select entry_id, ranked, status, time_ms, moves, undos, hints
            from daily_entries where player_id=$1 and variant=$2 and day=$3 order by entry_id
            """,
            who.player_id,
            message.variant,
            day,
        )
        attempts = [
            p.DailyAttempt(
                game=r["entry_id"],
                ranked=r["ranked"],
                status=r["status"],
                time_ms=r["time_ms"],
                moves=r["moves"],
                undos=r["undos"],
                hints=r["hints"],
            )
            for r in rows
        ]
        return p.DailyReply(
            id=message.id, deal=deal.info(self.time_limit_ms, now), attempts=attempts
        )

    @_guarded
    async def start(self, who: Principal, message: p.DailyStart) -> p.DailyGameReply:
        """Start an attempt at today's deal: ranked if it is the player's first."""
        check_variant(message.variant)
        now = self.clock()
        day = day_of(now)
        deal = await self.deal(message.variant, day, self.request_wait_s)
        started = from_ms(now)
        deadline = from_ms(now + self.time_limit_ms)
        sealed = from_ms(closes_at_ms(day, self.time_limit_ms))
        async with self.pool.acquire() as conn, conn.transaction():
            game_id = await conn.fetchval(
                """
                insert into entries (race_id, player_id, variant, options, seed, seed_public,
                    guild_id, created_at, play_until, seed_sealed_until)
                values (null, $1, $2, '{}', $3, false, $4, $5, $6, $7) returning id
                """,
                who.player_id,
                deal.variant,
                Decimal(deal.seed),
                message.guild_id,
                started,
                deadline,
                sealed,
            )
            ranked = await conn.fetchval(
                """
                insert into daily_entries (entry_id, variant, day, player_id, guild_id, ranked,
                    started_at, deadline)
                select $1, $2, $3, $4, $5, not exists (
                    select 1 from daily_entries
                    where player_id=$4 and variant=$2 and day=$3 and ranked
                ), $6, $7
                on conflict (player_id, variant, day) where ranked do nothing
                returning ranked
                """,
                game_id,
                deal.variant,
                day,
                who.player_id,
                message.guild_id,
                started,
                deadline,
            )
            if ranked is None:  # a first attempt started at the same moment won
                ranked = await conn.fetchval(
                    "insert into daily_entries (entry_id, variant, day, player_id, guild_id, "
                    "ranked, started_at, deadline) values ($1, $2, $3, $4, $5, false, $6, $7) "
                    "returning ranked",
                    game_id,
                    deal.variant,
                    day,
                    who.player_id,
                    message.guild_id,
                    started,
                    deadline,
                )
        live = await self.games.get(int(game_id))
        return p.DailyGameReply(
            id=message.id,
            game=live.game_id,
            ranked=bool(ranked),
            date=day.isoformat(),
            deadline=now + self.time_limit_ms,
            view=live.view(False),
        )
