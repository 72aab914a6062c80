"""The arena service: arenas created, joined, paused, left and read, and their pairing
rounds (docs/arena.md).

Every change goes through the store's ``change`` (server/store/arena.py): the arena core
loaded under a lock on the arena's row, its decision stored in the same transaction. A
pairing round runs in every process every ``arena_round_ms``, over each arena under way
that no other process holds at that moment; the round looks at how the arena's races
stand (players done, races ended), scores, starts and ends the arena by the clock, and
pairs who waits. The races a round pairs are then created through the race service's
public requests, as their players would (create, join, start), and placed in the arena;
a player who leaves is resigned from their race the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

import structlog

from server import protocol as p
from server.core.arena import Arena
from server.core.arena_rules import RaceLine
from server.core.arena_schedule import ScheduleEntry
from server.core.arena_values import ArenaSettings, Decision, Paired, Withdrawn
from server.core.identity import Principal
from server.core.ratings import pool_options
from server.core.session import check_game_settings
from server.ops.config import ServerConfig
from server.protocol.errors import ArenaError, GameError, NotFoundError, TournamentError
from server.services.arena_push import TOP, ArenaPush, around, podium
from server.services.races import RaceService
from server.services.subscriber import Subscriber
from server.store.arena import ArenaStore, SeatOutcome
from server.store.arena_reads import ArenaReads, ArenaRow
from server.store.ratings import Pool, RatingStore
from server.store.storage import Storage

log = structlog.get_logger(__name__)


def rating_pool(settings: p.ArenaSettings | ArenaSettings) -> Pool:
    """The rating pool of an arena's races: its variant with its options."""
    return Pool(settings.variant, pool_options(settings.variant, settings.options))


def check_arena(message: p.CreateArena) -> None:
    """Refuse an arena's numbers out of their ranges, and a bad variant or options.

    Raises:
        GameError: ``invalid_options`` naming everything out of range.
    """
    check_game_settings(message.variant, dict(message.options), None)
    problems = []
    if not 5 <= message.minutes <= 60:
        problems.append("minutes must be from 5 to 60")
    if not 0 <= message.starts_in_s <= 86400:
        problems.append("starts_in_s must be from 0 to 86400")
    if not 60 <= message.race_time_s <= 3600:
        problems.append("race_time_s must be from 60 to 3600")
    if not 2 <= message.race_size <= 8:
        problems.append("race_size must be from 2 to 8")
    if problems:
        raise GameError("invalid_options", reason="; ".join(problems) + ".")


class ArenaService:
    """Arenas: requests, pairing rounds, and the races they open."""

    def __init__(
        self,
        store: ArenaStore,
        reads: ArenaReads,
        races: RaceService,
        storage: Storage,
        push: ArenaPush,
        config: ServerConfig,
        clock: Callable[[], int],
        ratings: RatingStore,
    ) -> None:
        self.store = store
        self.reads = reads
        self.races = races
        self.storage = storage
        self.push = push
        self.config = config
        self.clock = clock
        self.ratings = ratings
        self.schedule = [ScheduleEntry.parse(text) for text in config.arena_schedule]

    # ------------------------------------------------------------ requests

    async def create(
        self, who: Principal, message: p.CreateArena, subscriber: Subscriber | None
    ) -> p.ArenaReply:
        """Create an unrated arena (and join it).

        Raises:
            GameError: ``invalid_options``.
            TournamentError: ``too_many_arenas`` while the player has
                ``arena_creator_limit`` arenas of their own not finished.
        """
        check_arena(message)
        settings = ArenaSettings(
            variant=message.variant,
            options=dict(message.options),
            duration_ms=message.minutes * 60_000,
            race_time_ms=message.race_time_s * 1000,
            countdown_ms=self.config.arena_countdown_s * 1000,
            race_size=message.race_size,
            rated=False,
            title=message.title,
        )
        starts_at = self.clock() + message.starts_in_s * 1000
        limit = self.config.arena_creator_limit
        arena_id = await self.store.create(who.player_id, settings, starts_at, limit=limit)
        if arena_id is None:
            raise TournamentError("too_many_arenas", limit=limit)
        log.info("arena_created", arena=arena_id, variant=settings.variant)
        if message.join:
            await self._change(arena_id, await self._joining(who, settings))
        return await self.reply(arena_id, who, message.id, subscriber)

    async def join(
        self, who: Principal, message: p.JoinArena, subscriber: Subscriber | None
    ) -> p.ArenaReply:
        """Join an arena before its end, or come back after a pause."""
        row = await self._row(message.arena)
        await self._change(message.arena, await self._joining(who, row.settings))
        return await self.reply(message.arena, who, message.id, subscriber)

    async def pause(self, who: Principal, message: p.PauseArena) -> p.ArenaReply:
        """Stop being paired once the race under way is over."""
        now = self.clock()
        await self._change(message.arena, lambda arena, _: arena.pause(who.player_id, now))
        return await self.reply(message.arena, who, message.id, None)

    async def leave(self, who: Principal, message: p.LeaveArena) -> p.ArenaReply:
        """Stop being paired now, giving up the race under way."""
        now = self.clock()
        await self._change(message.arena, lambda arena, _: arena.leave(who.player_id, now))
        return await self.reply(message.arena, who, message.id, None)

    async def get(
        self, who: Principal, message: p.GetArena, subscriber: Subscriber | None
    ) -> p.ArenaReply:
        """An arena's state and a player's races in it; follow it from now on."""
        return await self.reply(message.arena, who, message.id, subscriber, message.player)

    async def open_arenas(self, who: Principal, message: p.ListArenas) -> p.ArenasReply:
        """The arenas not finished, soonest first."""
        arenas = await self.reads.open_arenas(message.variant, self.clock(), limit=50)
        return p.ArenasReply(id=message.id, arenas=arenas)

    async def _joining(
        self, who: Principal, settings: p.ArenaSettings | ArenaSettings
    ) -> Callable[[Arena, list[SeatOutcome]], list[Decision]]:
        """A player joining with their rating in the arena's pool, for pairing: the
        rating people see (1500 for a player never rated there, as for every guest),
        the same number quick match pairs by (docs/arena.md, "Pairing")."""
        rating = float((await self.ratings.rating_of(who.player_id, rating_pool(settings))).rating)
        now = self.clock()
        return lambda arena, _: arena.join(who.player_id, who.name, rating, now)

    async def _row(self, arena_id: int) -> ArenaRow:
        found = await self.reads.arena(arena_id)
        if found is None:
            raise NotFoundError(what="arena", ref=arena_id)
        return found[0]

    async def _change(
        self, arena_id: int, change: Callable[[Arena, list[SeatOutcome]], list[Decision]]
    ) -> None:
        """A request's change, waiting for the arena's lock; then act on its decisions."""
        result = await self.store.change(arena_id, change)
        if result is None:
            raise NotFoundError(what="arena", ref=arena_id)
        self.push.nudge()
        await self._act(arena_id, result[1])

    async def reply(
        self,
        arena_id: int,
        who: Principal,
        request_id: p.RequestId,
        subscriber: Subscriber | None,
        races_of: int | None = None,
    ) -> p.ArenaReply:
        """The arena as ``who`` sees it; ``subscriber`` follows it from now on."""
        found = await self.reads.arena(arena_id)
        if found is None:
            raise NotFoundError(what="arena", ref=arena_id)
        row, lines = found
        you, near = around(lines, who.player_id)
        player = who.player_id if races_of is None else races_of
        info = p.ArenaInfo(
            arena=row.arena_id,
            state=row.state,  # type: ignore[arg-type]
            creator=row.creator_id,
            settings=row.settings,
            starts_at=row.starts_at,
            ends_at=row.ends_at,
            finished_at=row.finished_at,
            players=len(lines),
            top=lines[:TOP],
            you=you,
            around=near,
            your_race=await self.reads.current_race(arena_id, who.player_id) if you else None,
            podium=podium(lines) if row.state == "finished" else None,
            races_of=player,
            races=await self.reads.races_of(arena_id, player),
        )
        self.push.follow(row, subscriber, who.player_id if you else None)
        return p.ArenaReply(id=request_id, arena=info, server_time=self.clock())

    # ------------------------------------------------------------ pairing rounds

    async def run_clock(self) -> None:
        """Create the scheduled arenas when due, and run a pairing round in every arena
        under way, every ``arena_round_ms``, until cancelled."""
        while True:
            try:
                await self.create_scheduled()
                arena_ids = await self.store.due(self.clock())
                async with asyncio.TaskGroup() as group:
                    for arena_id in arena_ids:
                        group.create_task(self.round(arena_id))
            except ArenaError as err:
                log.error("arena_clock_failed", error=err.code)
            await asyncio.sleep(self.config.arena_round_ms / 1000)

    async def create_scheduled(self) -> None:
        """Store the next arena of each schedule entry once its start is near."""
        now = self.clock()
        for entry in self.schedule:
            starts_at = entry.due(now, self.config.arena_schedule_ahead_s * 1000)
            if starts_at is None:
                continue
            settings = ArenaSettings(
                variant=entry.variant,
                options={},
                duration_ms=entry.duration_ms,
                countdown_ms=self.config.arena_countdown_s * 1000,
                rated=True,
            )
            created = await self.store.create(None, settings, starts_at, schedule=entry.text)
            if created is not None:
                log.info("arena_scheduled", arena=created, schedule=entry.text)

    async def round(self, arena_id: int) -> None:
        """One pairing round of an arena, unless another process is doing one."""
        try:
            result = await self.store.change(arena_id, self._round_change(), round_=True)
        except ArenaError as err:
            log.error("arena_round_failed", arena=arena_id, error=err.code)
            return
        if result is not None and result[1]:
            self.push.nudge()
            await self._act(arena_id, result[1])

    def _round_change(self) -> Callable[[Arena, list[SeatOutcome]], list[Decision]]:
        now = self.clock()

        def change(arena: Arena, outcomes: list[SeatOutcome]) -> list[Decision]:
            decisions: list[Decision] = []
            by_race: dict[int, list[SeatOutcome]] = {}
            for outcome in outcomes:
                by_race.setdefault(outcome.race_id, []).append(outcome)
            for race_id, rows in by_race.items():
                if rows[0].race_finished:
                    ranked = sorted((r for r in rows if r.rank is not None), key=_rank)
                    left = [r for r in rows if r.rank is None]  # left it before the start
                    lines = [RaceLine(r.player_id, _rank(r), r.moves) for r in ranked]
                    lines += [
                        RaceLine(r.player_id, len(ranked) + 1 + n, 0) for n, r in enumerate(left)
                    ]
                    decisions += arena.race_ended(race_id, lines, now, racers=len(ranked))
                else:
                    for r in rows:
                        decisions += arena.racer_done(race_id, r.player_id, r.moves, now)
            decisions += arena.tick(now)
            decisions += arena.pair(now)
            return decisions

        return change

    async def _act(self, arena_id: int, decisions: list[Decision]) -> None:
        """Open the races of new pairings, resign the races of players who left."""
        paired = [d for d in decisions if isinstance(d, Paired)]
        withdrawn = [d for d in decisions if isinstance(d, Withdrawn)]
        for leaving in withdrawn:
            await self._withdraw(leaving)
        if not paired:
            return
        row = await self._row(arena_id)
        async with asyncio.TaskGroup() as group:
            for pairing in paired:
                group.create_task(self._open(arena_id, row.settings, pairing))

    async def _open(self, arena_id: int, settings: p.ArenaSettings, pairing: Paired) -> None:
        """Create a pairing's race as its players would, then place it in the arena."""
        try:
            race_id = await self._create_race(arena_id, settings, pairing)
        except ArenaError as err:
            log.error("arena_race_failed", arena=arena_id, error=err.code)
            now = self.clock()
            with contextlib.suppress(ArenaError):
                await self.store.change(arena_id, lambda a, _: _unplace(a, pairing, now))
            return
        now = self.clock()
        result = await self.store.change(
            arena_id, lambda arena, _: arena.placed(pairing.pairing, race_id, now)
        )
        self.push.nudge()
        if result is not None:
            for decision in result[1]:
                if isinstance(decision, Withdrawn):
                    await self._withdraw(decision)

    async def _create_race(self, arena_id: int, settings: p.ArenaSettings, pairing: Paired) -> int:
        players: list[Principal] = []
        for player_id in pairing.players:
            who = await self.storage.player(player_id)
            if who is None:
                raise NotFoundError(what="player", ref=player_id)
            players.append(who)
        first = players[0]
        asked = p.CreateRace(
            variant=settings.variant,
            options=settings.options,
            max_players=len(players),
            start="manual",
            countdown_s=settings.countdown_s,
            time_limit_s=max(1, pairing.time_limit_ms // 1000),
            context={"arena": arena_id, "pairing": pairing.pairing},
        )
        race_id = (await self.races.create(first, asked, None)).race.race
        if settings.rated:
            # Before anyone can play it: its finishing order rates its signed-in players
            # when it ends, as a rated quick match's does (server/services/ratings.py).
            await self.ratings.mark_rated(race_id, rating_pool(settings))
        for who in players[1:]:
            await self.races.join(who, p.JoinRace(race=race_id), None)
        await self.races.start(first, p.StartRace(race=race_id))
        log.info("arena_race", arena=arena_id, race=race_id, players=len(players))
        return race_id

    async def _withdraw(self, leaving: Withdrawn) -> None:
        """Resign a player who left the arena from their race, as they would."""
        who = await self.storage.player(leaving.player_id)
        if who is not None:
            with contextlib.suppress(ArenaError):
                await self.races.leave(who, p.LeaveRace(race=leaving.race_id))


def _rank(outcome: SeatOutcome) -> int:
    assert outcome.rank is not None
    return outcome.rank


def _unplace(arena: Arena, pairing: Paired, now: int) -> list[Decision]:
    arena.unplaced(pairing.pairing, now)
    return []
