"""The race service: races created, joined, left, started, followed and rematched.

Each request takes the race's room lock (server/services/hosting.py), asks the race core
(server/core/race.py) what changes, and has the change committed and told
(server/services/publish.py) before it replies. Nothing is acknowledged before it is
committed.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import replace

import structlog

from server import protocol as p
from server.core.identity import Principal, unranked_reason
from server.core.place import Place
from server.core.race import Race, RaceSettings, RaceState, check_limits, commitment
from server.core.session import SEED_LIMIT, check_game_settings
from server.ops.config import ServerConfig
from server.protocol.errors import RaceError
from server.services.games import GameCache
from server.services.hosting import RaceHosting, stored_events
from server.services.lease import RaceLeases
from server.services.publish import RacePublisher
from server.services.rooms import RaceRoom
from server.services.solving import SolverPool, winnable_race_seed
from server.services.subscriber import Subscriber
from server.store import writes
from server.store.storage import RematchTaken, Storage

log = structlog.get_logger(__name__)


class RaceService:
    """The race requests of every player of this process."""

    def __init__(
        self,
        storage: Storage,
        games: GameCache,
        solver: SolverPool,
        config: ServerConfig,
        clock: Callable[[], int],
        place: Place,
        leases: RaceLeases,
        hosting: RaceHosting,
        publisher: RacePublisher,
    ) -> None:
        self.storage = storage
        self.games = games
        self.solver = solver
        self.config = config
        self.clock = clock
        self.place = place
        self.leases = leases
        self.hosting = hosting
        self.publisher = publisher

    def reply(self, room: RaceRoom, player_id: int, request_id: p.RequestId) -> p.RaceReply:
        """The race's full state as ``player_id`` may see it."""
        info = room.race.info(room.sent, player_id)
        racer = room.race.racers.get(player_id)
        if racer is not None and room.race.settings.ranked:  # and the player may not rank
            info.unranked = unranked_reason(racer.user, self.config.guests_rank)
        return p.RaceReply(id=request_id, race=info, server_time=self.clock())

    # ------------------------------------------------------------ requests

    async def create(
        self,
        who: Principal,
        message: p.CreateRace,
        subscriber: Subscriber | None,
        rematch_of: int | None = None,
        dealt: tuple[int, bool] | None = None,
    ) -> p.RaceReply:
        """Create a race (and join it), publishing the commitment to its seed; a rematch
        names the race it follows (``rematch_of``, see ``rematch``); ``dealt`` is a seed
        the server drew itself (and whether it is proven winnable), as dealt as any."""
        check_game_settings(message.variant, message.options, message.seed)
        check_limits(message)
        settings = RaceSettings(
            variant=message.variant,
            options=dict(message.options),
            max_players=message.max_players,
            start_mode=message.start,
            countdown_ms=message.countdown_s * 1000,
            time_limit_ms=None if message.time_limit_s is None else message.time_limit_s * 1000,
            allow_undo=message.allow_undo,
            allow_hints=message.allow_hints,
            guild_id=message.guild_id,
            context=message.context,
            require_winnable=message.require_winnable,
            solver_help=message.solver_help,
        )
        seed, winnable = (message.seed, False) if dealt is None else dealt
        if seed is None and message.require_winnable:
            seed, winnable = await winnable_race_seed(
                self.solver, message.variant, message.options, self.config.race_winnable_seconds
            )
        elif seed is None:
            seed = secrets.randbelow(SEED_LIMIT)
        settings = replace(
            settings,
            winnable="proven" if winnable else "unproven",
            ranked=message.seed is None and not message.solver_help,
        )
        salt = secrets.token_hex(16)
        holder = await self.leases.holder_for_new_race()
        race_id = await self.storage.create_race(
            who.player_id,
            settings,
            seed,
            salt,
            commitment(seed, salt),
            self.place,
            rematch_of,
            holder,
        )
        await self.leases.created(race_id)
        race = Race(
            race_id,
            who.player_id,
            settings,
            seed,
            salt,
            progress_interval_ms=self.config.progress_interval_ms,
            lobby_idle_ms=self.config.lobby_idle_ms,
        )
        room = self.hosting.hold(RaceRoom(race, fence=self.leases.fence(race_id)))
        self.hosting.watch(room, subscriber)
        async with room.lock:
            now = self.clock()
            events: list[p.RaceEvent] = []
            if message.join:
                events += await self._enter(room, who)
            events += race.open(now)
            await self.publisher.publish(room, events, now)
        log.info("race_created", race=race_id, variant=settings.variant)
        return self.reply(room, who.player_id, message.id)

    async def _enter(self, room: RaceRoom, who: Principal) -> list[p.RaceEvent]:
        race = room.race
        race.check_join(who.player_id)
        now = self.clock()
        game_id = await self.storage.create_entry(
            race_id=race.race_id,
            player_id=who.player_id,
            variant=race.settings.variant,
            options=race.settings.options,
            seed=race.seed,
            seed_public=False,
            guild_id=race.settings.guild_id,
            created_at=now,
            racer_name=who.name,
        )
        self.games.start(
            game_id,
            race_id=race.race_id,
            player_id=who.player_id,
            variant=race.settings.variant,
            seed=race.seed,
            options=race.settings.options,
            seed_public=False,
            started_at=now,
        )
        return race.join(who.player_id, who.name, who.user, game_id, now)

    async def join(
        self, who: Principal, message: p.JoinRace, subscriber: Subscriber | None
    ) -> p.RaceReply:
        """Join a race's lobby (or a race that started "now")."""
        room = await self.hosting.fresh_room(message.race)
        async with room.lock:
            events = await self._enter(room, who)
            await self.publisher.publish(room, events, self.clock())
        self.hosting.watch(room, subscriber)
        return self.reply(room, who.player_id, message.id)

    async def leave(self, who: Principal, message: p.LeaveRace) -> p.RaceReply:
        """Leave a lobby, or resign from a running race."""
        room = await self.hosting.fresh_room(message.race)
        async with room.lock:
            racer = room.race.racers.get(who.player_id)
            if racer is None:
                raise RaceError("not_in_race")
            now = self.clock()
            running = room.race.state is RaceState.RUNNING
            was_done = racer.done
            events = room.race.leave(who.player_id, now)
            if running and was_done:
                pass  # a finished (or resigned) player leaving changes nothing
            elif running:
                live = await self.games.get(racer.game_id)
                async with live.lock:
                    statement = writes.entry_status(racer.game_id, "resigned", None)
                    await self.publisher.publish(room, events, now, [statement])
                    live.resigned()
                self.games.retire(live)
            else:
                statement = writes.entry_status(racer.game_id, "left", None)
                await self.publisher.publish(room, events, now, [statement])
        return self.reply(room, who.player_id, message.id)

    async def rematch(
        self, who: Principal, message: p.Rematch, subscriber: Subscriber | None
    ) -> p.RaceReply:
        """After a race's end, a new race with its settings and a new deal: the first
        of its players to ask creates it (the race's watchers get a ``rematch`` event),
        the others asking then join that one. The link is stored with the new race
        (``rematch_of``), so it holds across restarts and processes; two first requests
        at once through two processes store one race, and the loser joins it.

        Raises:
            RaceError: ``wrong_state`` before the end, ``not_in_race`` for a non-player.
        """
        old = await self.hosting.room(message.race)
        if old.race.state is not RaceState.FINISHED:
            raise RaceError("wrong_state", state=old.race.state.value, action="rematch")
        if who.player_id not in old.race.racers:
            raise RaceError("not_in_race")
        async with old.lock:
            rematch = await self.storage.rematch(old.race_id)
            if rematch is None:
                s = old.race.settings
                asked = p.CreateRace(
                    id=message.id,
                    variant=s.variant,
                    options=dict(s.options),
                    max_players=s.max_players,
                    start=s.start_mode,  # type: ignore[arg-type]
                    countdown_s=s.countdown_ms // 1000,
                    time_limit_s=None if s.time_limit_ms is None else s.time_limit_ms // 1000,
                    allow_undo=s.allow_undo,
                    allow_hints=s.allow_hints,
                    guild_id=s.guild_id if message.guild_id is None else message.guild_id,
                    context=message.context,
                    require_winnable=s.require_winnable,
                    solver_help=s.solver_help,
                )
                try:
                    created = await self.create(who, asked, subscriber, rematch_of=old.race_id)
                except RematchTaken as taken:  # another process stored it first
                    rematch = taken.race
                    log.info("rematch_taken", race=old.race_id, rematch=rematch)
                else:
                    by = p.PlayerInfo(id=who.player_id, name=who.name)
                    event = p.RematchEvent(rematch=created.race.race, by=by)
                    await self.publisher.publish(old, [event], self.clock())
                    return created
        return await self.join(who, p.JoinRace(id=message.id, race=rematch), subscriber)

    async def start(self, who: Principal, message: p.StartRace) -> p.RaceReply:
        """The creator starts the race."""
        room = await self.hosting.fresh_room(message.race)
        async with room.lock:
            now = self.clock()
            events = room.race.start(who.player_id, now)
            await self.publisher.publish(room, events, now)
        return self.reply(room, who.player_id, message.id)

    async def get(
        self, who: Principal, message: p.GetRace, subscriber: Subscriber | None
    ) -> p.RaceReply:
        """A race's full state; the subscriber watches it from now on."""
        room = await self.hosting.room(message.race)
        self.hosting.watch(room, subscriber)
        return self.reply(room, who.player_id, message.id)

    async def resume(
        self, who: Principal, message: p.Resume, subscriber: Subscriber | None
    ) -> p.EventsReply | p.RaceReply:
        """The events after ``last_seq`` if they are few enough, else the full state."""
        room = await self.hosting.room(message.race)
        self.hosting.watch(room, subscriber)
        window = self.config.resume_window
        # Only events already sent are certainly stored without gaps (commits overlap).
        if message.last_seq < 0 or message.last_seq > room.sent:
            return self.reply(room, who.player_id, message.id)
        if room.sent - message.last_seq > window:
            return self.reply(room, who.player_id, message.id)
        sent = room.sent
        rows = await self.storage.events_after(room.race_id, message.last_seq, window + 1)
        events = stored_events(room.race_id, [row for row in rows if row["seq"] <= sent])
        return p.EventsReply(id=message.id, race=room.race_id, events=events)
