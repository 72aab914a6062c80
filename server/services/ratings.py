"""Player ratings: a rated race is rated when it ends, and anyone may read ratings.

The race service calls ``race_ended`` in the race's owner right after committing the
final ranking; the rating runs then, in the background (one supervised task per race),
in one transaction of its own (server/store/ratings.py), and its changes go to the
race's watchers here as ``rating_changes``. A race whose owner stopped between its end
and its rating is rated by the sweep (``run``), which every process runs at start and
every ``sweep_seconds``; so are the daily attempts that are over and counted (after
their fair-play review), each a game of the player against the deal
(server/store/deals.py). A game is rated at most once whoever gets to it. The
arithmetic is server/core/ratings.py's; docs/ratings.md explains the numbers.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable

import structlog

import engine
from server import protocol as p
from server.core.identity import Principal
from server.protocol.errors import GameError, NotFoundError
from server.services.background import Background
from server.services.subscriber import Subscriber, send_to_all
from server.store.boards import BoardStore
from server.store.deals import DealStore
from server.store.pool import to_ms
from server.store.ratings import Pool, RatedGame, RatingStore

log = structlog.get_logger(__name__)


def changes_message(race_id: int, pool: Pool | None, game: RatedGame | None) -> p.RaceRatings:
    """A race's rating changes as sent (``rated`` false while there are none)."""
    if pool is None or game is None:
        return p.RaceRatings(race=race_id, rated=False)
    lines = [
        p.RatingChange(
            player=c.player_id,
            name=c.name,
            place=c.place,
            rating=c.after.rating,
            change=c.after.rating - c.before.rating,
            deviation=c.after.deviation,
            provisional=c.after.provisional,
        )
        for c in game.changes
    ]
    return p.RaceRatings(
        race=race_id, rated=True, variant=pool.variant, options=pool.options_dict, lines=lines
    )


class Ratings:
    """Rates races and answers questions about ratings."""

    def __init__(
        self,
        store: RatingStore,
        deals: DealStore,
        boards: BoardStore,
        clock: Callable[[], int],
        sweep_seconds: float = 30.0,
    ) -> None:
        self.store = store
        self.deals = deals
        self.boards = boards
        self.clock = clock
        self.sweep_seconds = sweep_seconds
        self._ratings = Background("rating_failed")

    # ------------------------------------------------------------ rating

    def race_ended(self, race_id: int, watchers: Iterable[Subscriber]) -> None:
        """A race's final ranking is committed: rate it (if rated) in the background and
        tell ``watchers`` the changes."""
        audience = list(watchers)
        self._ratings.start(self._rate_and_tell(race_id, audience))

    async def _rate_and_tell(
        self, race_id: int, watchers: list[Subscriber]
    ) -> p.RaceRatings | None:
        message = await self.rate_race(race_id)
        if message is not None and watchers:
            send_to_all(watchers, p.encode(message))
        return message

    async def rate_race(self, race_id: int) -> p.RaceRatings | None:
        """Rate one finished rated race; None when there was nothing to rate."""
        game = await self.store.rate_race(race_id)
        if game is None:
            return None
        log.info("race_rated", race=race_id, players=len(game.changes))
        return changes_message(race_id, game.pool, game)

    async def rate_pending(self) -> int:
        """Rate every rated race that ended unrated, then every daily attempt over and
        counted but not rated, oldest first; returns how many games were rated."""
        done = 0
        while pending := await self.store.pending_races():
            rated = [await self.rate_race(race_id) for race_id in pending]
            done += sum(1 for message in rated if message is not None)
            if len(pending) < 100:
                break
        while attempts := await self.deals.pending_attempts():
            for entry_id in attempts:
                done += await self.deals.rate_attempt(entry_id) is not None
            if len(attempts) < 100:
                break
        return done

    async def run(self) -> None:
        """The sweep: at start and every ``sweep_seconds``, rate what was left unrated."""
        while True:
            with contextlib.suppress(p.ArenaError):
                await self.rate_pending()
            await asyncio.sleep(self.sweep_seconds)

    async def close(self) -> None:
        """Let ratings under way finish (the sweep rates the rest after a restart)."""
        await self._ratings.finish(timeout=5)

    # ------------------------------------------------------------ requests

    async def race_ratings(self, who: Principal, message: p.GetRaceRatings) -> p.RaceRatings:
        """Reply to race_ratings."""
        pool, game = await self.store.race_game(message.race)
        reply = changes_message(message.race, pool, game)
        reply.id = message.id
        return reply

    async def player_ratings(
        self, who: Principal, message: p.PlayerRatings
    ) -> p.PlayerRatingsReply:
        """Reply to player_ratings.

        Raises:
            NotFoundError: no such player.
            GameError: ``invalid_options`` for an unknown variant.
        """
        if message.variant is not None and message.variant not in engine.VARIANTS:
            known = ", ".join(sorted(engine.VARIANTS))
            raise GameError(
                "invalid_options", reason=f"Unknown variant {message.variant!r}; try {known}."
            )
        player = who.player_id if message.player is None else message.player
        name = who.name if player == who.player_id else await self.boards.player_name(player)
        if name is None:
            raise NotFoundError(what="player", ref=player)
        pools = []
        for rating in await self.store.player_ratings(player, message.variant):
            history = []
            if message.history:
                points = await self.store.history(player, rating.pool, message.history)
                history = [
                    p.RatingPoint(
                        at=to_ms(point.rated_at) or 0,
                        rating=point.after.rating,
                        change=point.after.rating - point.before.rating,
                        race=point.race_id,
                    )
                    for point in points
                ]
            pools.append(
                p.PoolRating(
                    variant=rating.pool.variant,
                    options=rating.pool.options_dict,
                    rating=rating.skill.rating,
                    deviation=rating.skill.deviation,
                    provisional=rating.skill.provisional,
                    games=rating.games,
                    rated_at=to_ms(rating.rated_at) or 0,
                    history=history,
                )
            )
        return p.PlayerRatingsReply(id=message.id, player=player, name=name, ratings=pools)
