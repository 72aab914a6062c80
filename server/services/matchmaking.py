"""Quick match: players wait in one queue (the database's, shared by every process and
host) and are gathered into races of 2–8 with close ratings.

``find_race`` puts the asking player in the queue (or keeps their place when they ask
again, after a reconnect) and remembers their connection here. Every process runs
``run``: about once a second it tells the database its waiting players are still here,
tells those whose race was found (``match_found``: they watch it from then on), drops
players who went away, and looks at the queue, taking the rows it looks at with
``FOR UPDATE SKIP LOCKED``. The grouping is pure (server/core/matchmaking.py); for each
group this process creates the race (with a countdown and a time limit, dealt by the
server, of the band asked for), enters every player, marks it rated if it is, and
writes its id to the players' rows in the same transaction.
"""

from __future__ import annotations

import asyncio
import contextlib

import structlog

from server import protocol as p
from server.core.identity import Principal
from server.core.matchmaking import Policy, PoolKey, Seeker, gather
from server.core.ratings import pool_options, signed_in
from server.core.session import check_game_settings
from server.ops.config import ServerConfig
from server.protocol.errors import ArenaError, MatchError
from server.services.deals import Deals
from server.services.races import RaceService
from server.services.subscriber import Subscriber
from server.store.matchmaking import Batch, MatchStore, Waiting
from server.store.pool import lost
from server.store.ratings import Pool, RatingStore

log = structlog.get_logger(__name__)

# A waiting player whose connection was not seen for this long is not matched (they may
# be reconnecting); after AWAY_SECONDS their place is gone.
FRESH_SECONDS = 5.0
AWAY_SECONDS = 60.0
# A found race whose player never came back to hear of it leaves the queue after this.
TOLD_SECONDS = 3600.0


class QuickMatch:
    """The quick match of one process: its waiting players' connections and its looks."""

    def __init__(
        self,
        store: MatchStore,
        ratings: RatingStore,
        races: RaceService,
        deals: Deals,
        config: ServerConfig,
    ) -> None:
        self.store = store
        self.ratings = ratings
        self.races = races
        self.deals = deals
        self.config = config
        self.policy = Policy(gather_ms=round(config.quick_match_gather_s * 1000))
        self._here: dict[int, tuple[Principal, Subscriber]] = {}
        self._look = asyncio.Event()

    # ------------------------------------------------------------ requests

    async def find(
        self, who: Principal, message: p.FindRace, subscriber: Subscriber | None
    ) -> p.Finding:
        """Reply to find_race: in the queue (or still in it).

        Raises:
            GameError: ``invalid_options``.
            MatchError: ``sign_in_required`` for a rated race asked by a guest,
                ``already_racing`` while the player plays a rated race.
        """
        check_game_settings(message.variant, message.options, None)
        options = pool_options(message.variant, message.options)
        pool = PoolKey(message.variant, options, message.rated, message.difficulty)
        if message.rated:
            if not signed_in(who.user):
                raise MatchError("sign_in_required")
            racing = await self.store.rated_race_of(who.player_id)
            if racing is not None:
                raise MatchError("already_racing", race=racing)
        rating = await self.ratings.rating_of(who.player_id, Pool(message.variant, options))
        waiting = await self.store.enqueue(who, pool, rating.rating)
        if subscriber is not None:
            self._here[who.player_id] = (who, subscriber)
        self._look.set()
        return p.Finding(
            id=message.id,
            variant=message.variant,
            options=Pool(message.variant, options).options_dict,
            rated=message.rated,
            difficulty=message.difficulty,
            since=waiting.seeker.joined_at,
            rating=waiting.seeker.rating,
        )

    async def cancel(self, who: Principal, message: p.CancelFind) -> p.FindCancelled:
        """Reply to cancel_find."""
        cancelled = await self.store.cancel(who.player_id)
        if cancelled:
            self._here.pop(who.player_id, None)
        return p.FindCancelled(id=message.id, cancelled=cancelled)

    def unwatch(self, subscriber: Subscriber) -> None:
        """A connection closed: its players stay in the queue, unseen, for a while."""
        for player, (_, held) in list(self._here.items()):
            if held is subscriber:
                del self._here[player]

    # ------------------------------------------------------------ the looks

    async def run(self) -> None:
        """A look at the queue about every ``quick_match_interval_s``, or at once after
        a find; a lost database waits for the next."""
        while True:
            try:
                await self.look()
            except ArenaError as err:
                log.warning("quick_match_look_failed", error=err.code)
            except Exception as err:
                if not lost(err):
                    raise
                log.warning("quick_match_look_failed", error=repr(err))
            self._look.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.config.quick_match_interval_s):
                    await self._look.wait()

    async def look(self) -> int:
        """One look: players here kept fresh and told of their races, the gone dropped,
        groups started. Returns how many races it started."""
        here = list(self._here)
        await self.store.touch(here)
        for player, race_id in (await self.store.matched(here)).items():
            await self._tell(player, race_id)
        await self.store.purge(AWAY_SECONDS, TOLD_SECONDS)
        started = 0
        async with self.store.take(FRESH_SECONDS) as batch:
            by_id = {w.seeker.player_id: w for w in batch.waiting}
            for group in self._groups(batch):
                await self._start([by_id[s.player_id] for s in group], batch)
                started += 1
        if started:
            self._look.set()  # tell the players here at once
        return started

    def _groups(self, batch: Batch) -> list[list[Seeker]]:
        return gather([w.seeker for w in batch.waiting], batch.now, self.policy)

    async def _start(self, group: list[Waiting], batch: Batch) -> None:
        """Create the group's race, enter its players, and hand it to their rows."""
        pool = group[0].seeker.pool
        dealt = None
        if pool.difficulty is not None:
            dealt = await self.deals.race_deal(Pool(pool.variant, pool.options), pool.difficulty)
        asked = p.CreateRace(
            variant=pool.variant,
            options=Pool(pool.variant, pool.options).options_dict,
            max_players=len(group),
            start="countdown",
            countdown_s=self.config.quick_match_countdown_s,
            time_limit_s=self.config.quick_match_time_limit_s,
            require_winnable=True,
            context={"quick_match": True, "rated": pool.rated},
        )
        created = await self.races.create(group[0].who, asked, None, dealt=dealt)
        race_id = created.race.race
        for waiting in group[1:]:
            await self.races.join(waiting.who, p.JoinRace(race=race_id), None)
        players = [w.seeker.player_id for w in group]
        await batch.assign(players, race_id, pool if pool.rated else None)
        log.info("quick_match", race=race_id, players=len(group), rated=pool.rated)

    async def _tell(self, player: int, race_id: int) -> None:
        """Tell a player here of their race; they watch it from now on."""
        who, subscriber = self._here.pop(player)
        reply = await self.races.get(who, p.GetRace(race=race_id), subscriber)
        found = p.MatchFound(
            player=player, user=who.user, race=reply.race, server_time=reply.server_time
        )
        subscriber.send(p.encode(found))
        await self.store.delivered(player, race_id)
