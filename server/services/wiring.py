"""Every service of a server process, built and wired together in one place at startup.

Tests and benchmarks build the same set (``build_services``) over a database of their
own, so what they exercise is wired exactly as the server is.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

import asyncpg

from server.core.limits import AddressLimits, AddressRates
from server.core.place import ALONE, Place
from server.ops.config import ServerConfig
from server.ops.metrics import Metrics
from server.services.accounts import Accounts
from server.services.activity import ActivityRaces
from server.services.archive import DailyArchive
from server.services.arena import ArenaService
from server.services.arena_push import ArenaPush
from server.services.daily import Dailies
from server.services.deals import Deals
from server.services.following import RaceFollowing
from server.services.games import GameCache
from server.services.ghosts import Ghosts
from server.services.hosting import RaceHosting
from server.services.leaderboard import Leaderboard
from server.services.lease import RaceLeases
from server.services.listings import Listings
from server.services.matchmaking import QuickMatch
from server.services.play import GameService
from server.services.preferences import PreferenceService
from server.services.publish import RacePublisher
from server.services.race_clock import RaceClock
from server.services.races import RaceService
from server.services.ratings import Ratings
from server.services.relay import Alone, Relay
from server.services.review import FairPlay
from server.services.solving import SolverHelp, SolverPool
from server.services.subscriber import Subscriber
from server.services.watchers import Watchers
from server.services.watching import Watching
from server.services.winnability import WinnabilityWatch
from server.store.accounts import AccountStore
from server.store.activity import ActivityStore
from server.store.archive import ArchiveStore
from server.store.arena import ArenaStore
from server.store.arena_reads import ArenaReads
from server.store.boards import BoardStore
from server.store.commit import GroupCommitter
from server.store.daily import DailyStore
from server.store.deals import DealStore
from server.store.ghosts import GhostStore
from server.store.leases import LeaseStore
from server.store.listings import ListingStore
from server.store.matchmaking import MatchStore
from server.store.preferences import PreferenceStore
from server.store.ratings import RatingStore
from server.store.reviews import Reviews
from server.store.storage import Storage
from server.store.watching import WatchingStore


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
    hosting: RaceHosting
    publisher: RacePublisher
    race_clock: RaceClock
    following: RaceFollowing
    leases: RaceLeases
    relay: Relay
    play: GameService
    dailies: Dailies
    boards: Leaderboard
    listings: Listings
    archive: DailyArchive
    ratings: Ratings
    deals: Deals
    quick_match: QuickMatch
    accounts: Accounts
    arenas: ArenaService
    arena_push: ArenaPush
    activities: ActivityRaces
    limits: AddressLimits
    watching: Watching
    ghosts: Ghosts
    preferences: PreferenceService

    def race_tasks(self) -> dict[str, Coroutine[Any, Any, None]]:
        """The races' work that runs for the process's life, by task name: the leases
        renewed and taken over, and the race clock."""
        hosting = self.hosting
        leases = self.leases.run(hosting.lost, hosting.taken_over, self.following.recheck)
        return {"race-leases": leases, "race-clock": self.race_clock.run()}

    def unwatch(self, subscriber: Subscriber) -> None:
        """Forget a subscriber whose connection closed: its races, quick match and arenas."""
        self.hosting.unwatch(subscriber)
        self.quick_match.unwatch(subscriber)
        self.arena_push.unwatch(subscriber)
        self.watching.unwatch(subscriber)
        self.ghosts.unwatch(subscriber)

    async def close(self) -> None:
        """Let reviews and ratings under way finish; stop the solver's worker processes."""
        await self.fair_play.close()
        await self.ratings.close()
        self.solver.close()


def build_services(
    storage: Storage,
    committer: GroupCommitter,
    metrics: Metrics,
    config: ServerConfig,
    clock: Callable[[], int] = now_ms,
    place: Place = ALONE,
    relay: Relay | None = None,
    lease_pool: asyncpg.Pool | None = None,
) -> Services:
    """Build every service of a process over one store, committer and solver pool;
    ``relay`` tells the other processes on the database (none: there are none), and the
    leases are renewed on ``lease_pool`` (none: the store's pool)."""
    games = GameCache(storage, config.game_cache_size)
    solver = SolverPool(config.solver_workers)
    solver_help = SolverHelp(solver, config.solver_help_seconds)
    winnability = WinnabilityWatch(solver_help)
    fair_play = FairPlay(storage, Reviews(storage.pool))
    lease_store = LeaseStore(lease_pool or storage.pool, committer.origin)
    leases = RaceLeases(lease_store, place, config.lease_seconds)
    relay = Alone() if relay is None else relay
    deal_store = DealStore(storage.pool)
    rating_store = RatingStore(storage.pool)
    ratings = Ratings(rating_store, deal_store, BoardStore(storage.pool), clock)
    publisher = RacePublisher(
        committer, relay, Watchers(), fair_play, ratings, clock, leases, config.guests_rank
    )
    hosting = RaceHosting(storage, games, leases, publisher, publisher.watchers, config, clock)
    races = RaceService(storage, games, solver, config, clock, place, leases, hosting, publisher)
    play = GameService(
        storage,
        committer,
        games,
        hosting,
        publisher,
        fair_play,
        solver_help,
        winnability,
        metrics,
        clock,
    )
    arena_reads = ArenaReads(storage.pool)
    arena_push = ArenaPush(arena_reads, clock, config.arena_poll_ms)
    arenas = ArenaService(
        ArenaStore(storage.pool),
        arena_reads,
        races,
        storage,
        arena_push,
        config,
        clock,
        rating_store,
    )
    daily_limit_ms = config.daily_time_limit_s * 1000
    dailies = Dailies(
        DailyStore(storage),
        solver,
        games,
        clock,
        time_limit_ms=daily_limit_ms,
        guests_rank=config.guests_rank,
    )
    deals = Deals(deal_store, solver, dailies, play)
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
        hosting=hosting,
        publisher=publisher,
        race_clock=RaceClock(hosting, publisher, config, clock),
        following=RaceFollowing(storage, games, hosting, publisher, clock),
        leases=leases,
        relay=relay,
        play=play,
        dailies=dailies,
        boards=Leaderboard(BoardStore(storage.pool), clock, daily_limit_ms, solver_help),
        listings=Listings(ListingStore(storage.pool), clock),
        archive=DailyArchive(ArchiveStore(storage.pool), clock, daily_limit_ms),
        ratings=ratings,
        accounts=Accounts(AccountStore(storage.pool), storage, games, clock, config.session_days),
        deals=deals,
        quick_match=QuickMatch(MatchStore(storage.pool), rating_store, races, deals, config),
        arenas=arenas,
        arena_push=arena_push,
        activities=ActivityRaces(ActivityStore(storage.pool), races),
        limits=address_limits(config),
        watching=Watching(
            races,
            hosting.unwatch,
            storage,
            WatchingStore(storage.pool),
            clock,
            config.watch_delay_ms,
        ),
        ghosts=Ghosts(races, hosting.unwatch, storage, GhostStore(storage.pool), config, clock),
        preferences=PreferenceService(PreferenceStore(storage.pool)),
    )


def address_limits(config: ServerConfig) -> AddressLimits:
    """The per-address limits of the settings (server/core/limits.py)."""
    rates = AddressRates(
        requests_per_second=config.address_rate_per_second,
        request_burst=config.address_rate_burst,
        connections_per_second=config.address_connections_per_second,
        connection_burst=config.address_connection_burst,
        guests_per_second=config.address_guests_per_minute / 60,
        guest_burst=config.address_guest_burst,
    )
    return AddressLimits(rates, config.trusted_proxies)
