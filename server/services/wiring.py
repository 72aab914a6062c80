"""Every service of a server process, built and wired together in one place at startup.

Tests and benchmarks build the same set (``build_services``) over a database of their
own, so what they exercise is wired exactly as the server is.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from server.core.place import ALONE, Place
from server.ops.config import ServerConfig
from server.ops.metrics import Metrics
from server.services.daily import Dailies
from server.services.games import GameCache
from server.services.leaderboard import Leaderboard
from server.services.lease import RaceLeases
from server.services.listings import Listings
from server.services.play import GameService
from server.services.preferences import PreferenceService
from server.services.races import RaceService
from server.services.relay import Relay
from server.services.review import FairPlay
from server.services.solving import SolverHelp, SolverPool
from server.services.winnability import WinnabilityWatch
from server.store.boards import BoardStore
from server.store.commit import GroupCommitter
from server.store.daily import DailyStore
from server.store.leases import LeaseStore
from server.store.listings import ListingStore
from server.store.preferences import PreferenceStore
from server.store.reviews import Reviews
from server.store.storage import Storage


def now_ms() -> int:
    """Server time: milliseconds since the epoch."""
    return time.time_ns() // 1_000_000


@dataclass
class Services:
    """The services of one server process, and the parts they share."""

    storage: Storage
    committer: GroupCommitter
    metrics: Metrics
    clock: Callable[[], int]
    games: GameCache
    solver: SolverPool
    solver_help: SolverHelp
    winnability: WinnabilityWatch
    fair_play: FairPlay
    races: RaceService
    play: GameService
    dailies: Dailies
    boards: Leaderboard
    listings: Listings
    preferences: PreferenceService

    async def close(self) -> None:
        """Let reviews under way finish; stop the solver's worker processes."""
        await self.fair_play.close()
        self.solver.close()


def build_services(
    storage: Storage,
    committer: GroupCommitter,
    metrics: Metrics,
    config: ServerConfig,
    clock: Callable[[], int] = now_ms,
    place: Place = ALONE,
) -> Services:
    """Build every service of a process over one store, committer and solver pool."""
    games = GameCache(storage, config.game_cache_size)
    solver = SolverPool(config.solver_workers)
    solver_help = SolverHelp(solver, config.solver_help_seconds)
    winnability = WinnabilityWatch(solver_help)
    fair_play = FairPlay(storage, Reviews(storage.pool))
    leases = RaceLeases(LeaseStore(storage.pool, committer.origin), place, config.lease_seconds)
    relay = Relay(storage.pool)
    races = RaceService(
        storage, committer, games, solver, fair_play, config, clock, place, leases, relay
    )
    play = GameService(
        storage, committer, games, races, fair_play, solver_help, winnability, metrics, clock
    )
    daily_limit_ms = config.daily_time_limit_s * 1000
    dailies = Dailies(DailyStore(storage), solver, games, clock, time_limit_ms=daily_limit_ms)
    return Services(
        storage=storage,
        committer=committer,
        metrics=metrics,
        clock=clock,
        games=games,
        solver=solver,
        solver_help=solver_help,
        winnability=winnability,
        fair_play=fair_play,
        races=races,
        play=play,
        dailies=dailies,
        boards=Leaderboard(BoardStore(storage.pool), clock, daily_limit_ms, solver_help),
        listings=Listings(ListingStore(storage.pool), clock),
        preferences=PreferenceService(PreferenceStore(storage.pool)),
    )
