"""The race service: races created, joined, left, started, followed and clocked.

Each request takes the race's room lock, asks the race core (server/core/race.py) what
changes, commits the events with the rows they imply through the group commit, and only
then sends the events to the race's watchers and replies. Nothing is acknowledged before
it is committed; a failed write marks the room stale, and it is rebuilt from the
database (the truth) before it is used again.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import msgspec
import structlog

from server import protocol as p
from server.core.identity import Principal, unranked_reason
from server.core.place import Place
from server.core.race import (
    Counters,
    EntryLine,
    Race,
    RaceSettings,
    RaceState,
    check_limits,
    commitment,
)
from server.core.reports import Report, apply_report, reconcile, reports_of
from server.core.session import SEED_LIMIT, MoveRow, check_game_settings
from server.ops.config import ServerConfig
from server.protocol.errors import ArenaError, NotFoundError, RaceError
from server.services.games import GameCache
from server.services.lease import RaceLeases
from server.services.relay import Relay
from server.services.review import FairPlay
from server.services.rooms import RaceRoom
from server.services.solving import SolverPool, winnable_race_seed
from server.services.subscriber import Subscriber
from server.store import writes
from server.store.commit import EventRow, GroupCommitter
from server.store.pool import to_ms
from server.store.storage import RematchTaken, Storage
from server.store.writes import Statement

log = structlog.get_logger(__name__)

# Events that set a race's clock (run_clock looks again), and those that change its
# stored state (a row of ``races`` to update). Every move of a race passes these tests.
_CLOCK_EVENTS = (p.CountdownEvent, p.StartEvent)
_STATE_EVENTS = (p.CountdownEvent, p.StartEvent, p.EndEvent)


class RaceService:
    """Every race this process serves, in its room."""

    def __init__(
        self,
        storage: Storage,
        committer: GroupCommitter,
        games: GameCache,
        solver: SolverPool,
        fair_play: FairPlay,
        config: ServerConfig,
        clock: Callable[[], int],
        place: Place,
        leases: RaceLeases,
        relay: Relay,
    ) -> None:
        self.storage = storage
        self.leases = leases
        self.relay = relay
        self.fair_play = fair_play
        self.committer = committer
        self.games = games
        self.solver = solver
        self.config = config
        self.clock = clock
        self.place = place
        self.rooms: dict[int, RaceRoom] = {}
        self._watching: dict[Subscriber, set[int]] = {}
        # Per race with a room here: the games its players moved in through other
        # processes, which may hold a copy of them. The owner reports its own moves of
        # these games, so such a copy is dropped before the player comes back to it.
        self._played_elsewhere: dict[int, set[int]] = {}
        self._deadlines_changed = asyncio.Event()
        # Races being parked now (``_park``): a request for one waits until it is done.
        self._parking: set[int] = set()
        self._parked = asyncio.Condition()

    # ------------------------------------------------------------ rooms

    async def room(self, race_id: int) -> RaceRoom:
        """The race's room, rebuilt from the database when this process has none.

        The room of a race this process owns (server/services/lease.py) replays the
        racers' games for their counts; a mirror (another process owns the race) keeps
        the counts it had, which the owner's progress events keep current.

        Raises:
            NotFoundError: no such race.
        """
        room = self.rooms.get(race_id)
        if room is not None and not room.stale:
            return room
        if race_id in self._parking:
            async with self._parked:
                await self._parked.wait_for(lambda: race_id not in self._parking)
        stale = room
        record = await self.storage.race(race_id)
        if record is None:
            raise NotFoundError(what="race", ref=race_id)
        owned = record.state is not RaceState.FINISHED and await self.leases.claim(race_id)
        if stale is not None and owned:
            # Games of this race cached here may be behind too (played through another
            # process): replay them from the move log, unless a move is in hand.
            for entry in record.entries:
                cached = self.games.peek(entry.game_id)
                if cached is not None and not cached.lock.locked():
                    self.games.forget(entry.game_id)
        counters = {e.game_id: await self._counters(e, stale, owned) for e in record.entries}
        interval = self.config.progress_interval_ms if owned else 0
        race = Race.from_record(record, counters, interval)
        room = RaceRoom(race, seq=record.last_seq, sent=record.last_seq, owned=owned)
        current = self.rooms.get(race_id)
        if current is not None and not current.stale:
            return current  # another request rebuilt it meanwhile
        if current is not None:
            # What its watchers were sent so far: a notice's events may be on their way.
            room.watchers |= current.watchers
            room.sent = current.sent
        self.rooms[race_id] = room
        if room.sent < record.last_seq:  # stored events the watchers here have not seen yet
            rows = await self.storage.events_after(race_id, room.sent, record.last_seq - room.sent)
            self._send_new(race_id, _stored_events(race_id, rows))
        if owned and (stale is None or not stale.owned) and race.state is RaceState.RUNNING:
            # Taken over (or loaded after a restart): tell everybody the counts as they
            # are, and end the race if everyone finished while it had no owner.
            race.changed.update(dict.fromkeys(race.racers))
            async with room.lock:
                now = self.clock()
                with contextlib.suppress(ArenaError):
                    await self.publish(room, race.end_if_all_done(now), now)
        self._deadlines_changed.set()
        return room

    async def _counters(self, entry: EntryLine, stale: RaceRoom | None, owned: bool) -> Counters:
        """A racer's counts for a rebuilt room: replayed from the move log by the owner;
        a mirror keeps what it knew and replays only games it never saw."""
        if not owned:
            cached = self.games.peek(entry.game_id)
            if cached is not None:
                return cached.counters
            known = None if stale is None else stale.race.racers.get(entry.player_id)
            if known is not None:
                return Counters(known.foundation, known.moves, known.score)
            counters = (await self.games.get(entry.game_id)).counters
            self.games.forget(entry.game_id)  # played elsewhere: kept here it would age
            return counters
        return (await self.games.get(entry.game_id)).counters

    async def _fresh_room(self, race_id: int) -> RaceRoom:
        """The race's room as stored now, for a change of its members or state: a
        mirror's copy may be a moment behind the owner's."""
        room = await self.room(race_id)
        if not room.owned:
            room.stale = True
            return await self.room(race_id)
        # The owner may not have heard yet of players who joined through a mirror: a
        # start must count them, so it rereads the race first.
        async with room.lock:
            record = await self.storage.race(race_id)
            events = [] if record is None else reconcile(room.race, record)
            if events:
                await self.publish(room, events, self.clock())
        return room

    async def current_room(self, race_id: int) -> RaceRoom:
        """The race's room, without an await when it is here and current (every move).

        A player who moves as the race starts is never told it has not: the owner starts
        a race whose countdown ran out before its clock task got to it (a busy moment);
        a mirror's copy follows the owner's events, which come a moment after the fact,
        so it runs its copy's countdown and time limit by the clock itself, and rereads
        a race it still has in the lobby.
        """
        room = self.rooms.get(race_id)
        if room is None or room.stale:
            room = await self.room(race_id)
        now = self.clock()
        deadline = room.race.deadline()
        if room.owned:
            if room.race.state is RaceState.COUNTDOWN and deadline is not None and deadline <= now:
                await self._tick(room)
            return room
        if deadline is not None and deadline <= now:
            room.race.tick(now)  # the owner's events say the same a moment later
        if room.race.state is RaceState.LOBBY:
            room.stale = True
            room = await self.room(race_id)
        return room

    async def resume_open_races(self) -> int:
        """Load every unfinished race at home here whose owner is gone (after a start),
        so its clock runs again."""
        leases = self.leases
        await leases.renew()  # this process's leases are good from now on
        race_ids = await leases.store.take_orphans(leases.seconds, leases.place, limit=100_000)
        await self.taken_over(race_ids)
        return len(race_ids)

    async def taken_over(self, race_ids: list[int]) -> None:
        """This process took over these races' leases: rebuild them as their owner."""
        self.leases.held.update(race_ids)
        for race_id in race_ids:
            room = self.rooms.get(race_id)
            if room is not None:
                room.stale = True
            with contextlib.suppress(ArenaError):
                await self.room(race_id)

    def lost(self, race_ids: set[int]) -> None:
        """Another process took these races over: this one only mirrors them now."""
        for race_id in race_ids:
            room = self.rooms.get(race_id)
            if room is not None:
                room.owned = False
                room.stale = True

    async def publish(
        self,
        room: RaceRoom,
        events: list[p.RaceEvent],
        now: int,
        statements: Sequence[Statement] = (),
        moves: Sequence[MoveRow] = (),
    ) -> None:
        """Commit the events (with any rows and statements), then push them to watchers.

        In a race another process owns, the events are not this process's to number:
        the rows and statements are committed, then reported to the owner, which turns
        them into the race's events (server/core/reports.py).
        """
        if not room.owned:
            await self._relay(room, events, statements, moves)
            return
        messages, rows = room.number(events, now)
        if events:
            statements = [*statements, *self._race_statements(room, events)]
        try:
            await self.committer.submit(moves, rows, statements)
        except ArenaError:
            # The race in memory may now be ahead of the database: rebuild it from there.
            room.stale = room.failed = True
            self._deadlines_changed.set()
            raise
        self._report_moves_elsewhere(room, moves)
        if messages:
            room.send(messages)
            if any(isinstance(e, _CLOCK_EVENTS) for e in events):
                self._deadlines_changed.set()
            if any(isinstance(e, p.EndEvent) for e in events):
                # The winners' results are stored held: they count once recomputed.
                winners = [r.game_id for r in room.race.racers.values() if r.finished]
                if winners:
                    self.fair_play.review_soon(winners)

    async def _relay(
        self,
        room: RaceRoom,
        events: list[p.RaceEvent],
        statements: Sequence[Statement],
        moves: Sequence[MoveRow],
    ) -> None:
        """Commit a mirror's change and report it to the race's owner."""
        if any(isinstance(e, _CLOCK_EVENTS) for e in events):
            # A start asked of a mirror: stored compare-and-set, numbered by the owner.
            statements = [*statements, writes.race_state(room.race.stored_state())]
        try:
            await self.committer.submit(moves, (), statements)
        except ArenaError:
            room.stale = room.failed = True
            raise
        reports = reports_of(room.race_id, events)
        if moves:  # the log's length, for a copy of the game cached elsewhere
            last = moves[-1]
            mover = next(
                (r.player_id for r in room.race.racers.values() if r.game_id == last.game_id),
                None,
            )
            reports = [
                msgspec.structs.replace(r, game=last.game_id, logged=last.seq + 1)
                if r.player == mover
                else r
                for r in reports
            ]
        self.relay.report(reports)

    def _report_moves_elsewhere(self, room: RaceRoom, moves: Sequence[MoveRow]) -> None:
        """The owner committed moves: tell the other processes how long the logs of the
        games played through them have grown, so they drop their copies (else the
        player who comes back there meets a false ``conflict``). Games played only here
        cost no notice."""
        elsewhere = self._played_elsewhere.get(room.race_id)
        if not elsewhere or not moves:
            return
        logged = {move.game_id: move.seq + 1 for move in moves if move.game_id in elsewhere}
        self.relay.report(
            [Report(race=room.race_id, game=game, logged=n) for game, n in logged.items()]
        )

    def _race_statements(self, room: RaceRoom, events: list[p.RaceEvent]) -> list[Statement]:
        race = room.race
        statements: list[Statement] = []
        if any(isinstance(e, _STATE_EVENTS) for e in events):
            statements.append(writes.race_state(race.stored_state()))
        for event in events:
            if isinstance(event, p.EndEvent):
                for line in event.ranking:
                    racer = race.racers[line.player]
                    unranked = unranked_reason(racer.user, self.config.guests_rank)
                    statements.append(
                        writes.result(
                            race.race_id, racer.game_id, line, race.settings.ranked, unranked
                        )
                    )
        return statements

    def watch(self, room: RaceRoom, subscriber: Subscriber | None) -> None:
        """Send this subscriber the race's events from now on."""
        if subscriber is not None:
            room.watchers.add(subscriber)
            self._watching.setdefault(subscriber, set()).add(room.race_id)

    def unwatch(self, subscriber: Subscriber) -> None:
        """Forget a subscriber whose connection closed."""
        for race_id in self._watching.pop(subscriber, ()):
            room = self.rooms.get(race_id)
            if room is not None:
                room.watchers.discard(subscriber)

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
    ) -> p.RaceReply:
        """Create a race (and join it), publishing the commitment to its seed; a rematch
        names the race it follows (``rematch_of``, see ``rematch``)."""
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
        seed, winnable = message.seed, False
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
        self.leases.held.add(race_id)
        race = Race(
            race_id,
            who.player_id,
            settings,
            seed,
            salt,
            progress_interval_ms=self.config.progress_interval_ms,
        )
        room = self.rooms.setdefault(race_id, RaceRoom(race))
        self.watch(room, subscriber)
        async with room.lock:
            now = self.clock()
            events: list[p.RaceEvent] = []
            if message.join:
                events += await self._enter(room, who)
            events += race.open(now)
            await self.publish(room, events, now)
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
        return race.join(who.player_id, who.name, who.user, game_id)

    async def join(
        self, who: Principal, message: p.JoinRace, subscriber: Subscriber | None
    ) -> p.RaceReply:
        """Join a race's lobby (or a race that started "now")."""
        room = await self._fresh_room(message.race)
        async with room.lock:
            events = await self._enter(room, who)
            await self.publish(room, events, self.clock())
        self.watch(room, subscriber)
        return self.reply(room, who.player_id, message.id)

    async def leave(self, who: Principal, message: p.LeaveRace) -> p.RaceReply:
        """Leave a lobby, or resign from a running race."""
        room = await self._fresh_room(message.race)
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
                    await self.publish(room, events, now, [statement])
                    live.resigned()
                self.games.retire(live)
            else:
                statement = writes.entry_status(racer.game_id, "left", None)
                await self.publish(room, events, now, [statement])
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
        old = await self.room(message.race)
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
                    await self.publish(old, [event], self.clock())
                    return created
        return await self.join(who, p.JoinRace(id=message.id, race=rematch), subscriber)

    async def start(self, who: Principal, message: p.StartRace) -> p.RaceReply:
        """The creator starts the race."""
        room = await self._fresh_room(message.race)
        async with room.lock:
            now = self.clock()
            events = room.race.start(who.player_id, now)
            await self.publish(room, events, now)
        return self.reply(room, who.player_id, message.id)

    async def get(
        self, who: Principal, message: p.GetRace, subscriber: Subscriber | None
    ) -> p.RaceReply:
        """A race's full state; the subscriber watches it from now on."""
        room = await self.room(message.race)
        self.watch(room, subscriber)
        return self.reply(room, who.player_id, message.id)

    async def resume(
        self, who: Principal, message: p.Resume, subscriber: Subscriber | None
    ) -> p.EventsReply | p.RaceReply:
        """The events after ``last_seq`` if they are few enough, else the full state."""
        room = await self.room(message.race)
        self.watch(room, subscriber)
        window = self.config.resume_window
        # Only events already sent are certainly stored without gaps (commits overlap).
        if message.last_seq < 0 or message.last_seq > room.sent:
            return self.reply(room, who.player_id, message.id)
        if room.sent - message.last_seq > window:
            return self.reply(room, who.player_id, message.id)
        sent = room.sent
        rows = await self.storage.events_after(room.race_id, message.last_seq, window + 1)
        events = _stored_events(room.race_id, [row for row in rows if row["seq"] <= sent])
        return p.EventsReply(id=message.id, race=room.race_id, events=events)

    # ------------------------------------------------------------ other processes, the clock

    async def catch_up(self, notices: list[tuple[int, int]]) -> None:
        """Other processes stored events of races up to these ``(race, seq)`` pairs:
        send them on to the watchers here, read for every race in one query.

        A mirror takes the standings of progress events into its copy; any other event
        (members, state, a finish) has it reread the race before it is used again. An
        owner that sees another process number its race's events has lost the race.
        """
        wanted = []
        for race_id, seq in notices:
            room = self.rooms.get(race_id)
            if room is not None and seq > room.sent:
                wanted.append((race_id, room.sent, seq))
        if not wanted:
            return
        by_race: dict[int, list[Any]] = {}
        for row in await self.storage.events_between(wanted):
            by_race.setdefault(row["race_id"], []).append(row)
        for race_id, rows in by_race.items():
            self._caught_up(race_id, _stored_events(race_id, rows))

    def _caught_up(self, race_id: int, stored: list[p.Event]) -> None:
        room, events = self._send_new(race_id, stored)
        if room is None:
            return
        room.seq = max(room.seq, room.sent)
        if room.owned:
            room.stale = True
            return
        for message in events:
            if isinstance(message.event, p.ProgressEvent):
                room.race.follow(message.event.standings)
            else:
                room.stale = True

    def _send_new(
        self, race_id: int, events: list[p.Event]
    ) -> tuple[RaceRoom | None, list[p.Event]]:
        """Send stored events to the watchers here, those not sent yet; the race's room
        now (a rebuild may have replaced it while the events were read) and the events."""
        room = self.rooms.get(race_id)
        if room is None:
            return None, []
        events = [event for event in events if event.seq > room.sent]
        room.send(events)
        return room, events

    async def reported(self, reports: list[Report]) -> None:
        """Mirrors reported changes in races: the owner turns them into events, each
        race's reports under one hold of its lock and in one commit."""
        by_race: dict[int, list[Report]] = {}
        for report in reports:
            self._forget_if_behind(report)
            if report.game_only:
                continue  # the owner's own moves: nothing to number
            if report.game and report.race in self.rooms:
                self._played_elsewhere.setdefault(report.race, set()).add(report.game)
            if report.race in self.leases.held:  # others' races are not ours to number
                by_race.setdefault(report.race, []).append(report)
            elif report.reread and report.race in self.rooms:
                # The race changed in the database, or its owner parked it: this copy
                # is behind, and the next request here reads it again (and may own it).
                self.rooms[report.race].stale = True
        async with asyncio.TaskGroup() as group:
            for race_id, race_reports in by_race.items():
                group.create_task(self._apply_reports(race_id, race_reports))

    async def recheck(self) -> None:
        """Look in the database for players of races owned here who finished or gave up
        through another process whose report never came (it died right after its
        commit), and count them now: else such a race could wait for its time limit."""
        running = [
            room.race_id
            for room in self.rooms.values()
            if room.owned and not room.stale and room.race.state is RaceState.RUNNING
        ]
        if not running:
            return
        for row in await self.storage.done_entries(running):
            room = self.rooms.get(row["race_id"])
            racer = None if room is None else room.race.racers.get(row["player_id"])
            if room is None or not room.owned or racer is None or racer.done:
                continue
            async with room.lock:
                now = self.clock()
                if racer.done or room.race.state is not RaceState.RUNNING:
                    continue
                if row["status"] == "resigned":
                    events = room.race.resign(racer.player_id, now)
                else:
                    self.games.forget(racer.game_id)  # as stored, by replay
                    game = await self.games.get(racer.game_id)
                    events = room.race.progress(
                        racer.player_id,
                        foundation=game.counters.foundation,
                        moves=game.counters.moves,
                        score=game.counters.score,
                        won=True,
                        now=to_ms(row["finished_at"]) or now,
                    )
                await self.publish(room, events, now)

    def _forget_if_behind(self, report: Report) -> None:
        """A player's game moved on through another process: a copy cached here is
        behind, and the player's next move here would meet a false ``conflict``. Forget
        it (the next use replays it), unless a move of theirs is in hand here."""
        cached = self.games.peek(report.game) if report.logged else None
        if cached is not None and not cached.lock.locked() and cached.seq < report.logged:
            self.games.forget(report.game)

    async def _apply_reports(self, race_id: int, reports: list[Report]) -> None:
        try:
            room = await self.current_room(race_id)
            if not room.owned:
                return
            async with room.lock:
                now = self.clock()
                events: list[p.RaceEvent] = []
                for report in reports:
                    applied = None if report.reread else apply_report(room.race, report, now)
                    if applied is None:
                        record = await self.storage.race(race_id)
                        if record is not None:
                            events += reconcile(room.race, record)
                        if not report.reread:
                            applied = apply_report(room.race, report, now)
                    events += applied or []
                if events:
                    await self.publish(room, events, now)
        except ArenaError as err:
            log.error("report_failed", race=race_id, error=err.code)

    async def run_clock(self) -> None:
        """Start counted-down races and end races out of time, each when due; send the
        progress gathered in every race, all at once, a few times an interval.

        A race's progress goes out with the first move after its interval has passed
        (server/core/race.py, ``progress``); the clock sends what is left for races
        where no such move came. It looks at them together every half interval rather
        than at each race's own moment, so one wakeup and one group commit carry the
        progress of every race that is due (``_send_progress``), and no event comes
        sooner than the interval after the last. Finished races leave memory a minute
        after their end (``room`` reloads them).
        """
        longest = max(0.02, min(1.0, self.config.progress_interval_ms / 2000))
        next_pass = 0.0
        loop = asyncio.get_running_loop()
        while True:
            now = self.clock()
            due: list[RaceRoom] = []
            gathered: list[RaceRoom] = []
            upcoming: list[int] = []
            quiet: list[RaceRoom] = []
            progress_pass = loop.time() >= next_pass
            for race_id, room in list(self.rooms.items()):
                if not room.active_at:
                    room.active_at = now
                if not room.owned:
                    # Its owner's clock runs it. A copy nobody here watches any more goes
                    # once it is behind, over or quiet (a request reads it again).
                    over = room.race.state is RaceState.FINISHED
                    if not room.watchers and (room.stale or over or self._quiet(room, now)):
                        del self.rooms[race_id]
                        self._played_elsewhere.pop(race_id, None)
                    continue
                due_at = _clock_deadline(room.race)
                if room.stale and (room.failed or (due_at is not None and due_at <= now)):
                    # Rebuilt only when a failed write left it behind, or when its clock
                    # is due: another process's events alone need no replay here.
                    with contextlib.suppress(ArenaError):
                        room = await self.room(race_id)
                    if room.stale:
                        continue  # the database is still away; try again next pass
                race = room.race
                deadline = _clock_deadline(race)
                if deadline is not None and deadline <= now:
                    due.append(room)
                    continue
                if deadline is not None:
                    upcoming.append(deadline)
                if deadline is None and self._quiet(room, now) and not room.lock.locked():
                    quiet.append(room)
                elif race.state is RaceState.RUNNING:
                    if progress_pass and not room.stale and race.changed:
                        gathered.append(room)
                elif race.state is RaceState.FINISHED:
                    ended = race.ends_at
                    if ended and now - ended > 60_000:
                        del self.rooms[race_id]
                        self._played_elsewhere.pop(race_id, None)
                        self.leases.held.discard(race_id)  # its lease went at a renewal
            if progress_pass:
                next_pass = loop.time() + longest
                if gathered:
                    await self._send_progress(gathered, now)
            if quiet:
                await self._park(quiet, now)
            if due:
                async with asyncio.TaskGroup() as group:
                    for room in due:
                        group.create_task(self._tick(room))
                await asyncio.sleep(0.005)  # no busy loop if a tick keeps failing
                continue
            wait = min([next_pass - loop.time(), *((d - now) / 1000 for d in upcoming)])
            self._deadlines_changed.clear()
            # asyncio.timeout, not wait_for: Python 3.11's wait_for can swallow a
            # cancel that comes as the event is set, and the clock would never stop.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(max(0.0, wait)):
                    await self._deadlines_changed.wait()

    def _quiet(self, room: RaceRoom, now: int) -> bool:
        """Whether nothing happened in the race for ``idle_race_seconds`` and nobody
        here watches it or has progress waiting in it."""
        idle_ms = self.config.idle_race_seconds * 1000
        race = room.race
        return (
            not room.watchers
            and now - room.active_at >= idle_ms
            and not race.changed
            and race.state is not RaceState.FINISHED
        )

    async def _park(self, rooms: list[RaceRoom], now: int) -> None:
        """Let quiet races this process owns leave its memory, and park their leases
        (server/store/leases.py), so a restart does not load them again either.

        Such a race has no clock to run (no countdown, no time limit) and nobody to
        send events to; its players may come back at any time, and whichever process
        one of them reaches then takes the lease and rebuilds the race from the
        database. The racers' games leave the cache with it. Mirrors are told (a
        ``reread`` report), so a player who moves through one is counted by the process
        that takes the race next, not reported to this one, which no longer listens.
        """
        # Sending progress may have waited on a commit since they were found quiet.
        rooms = [
            room
            for room in rooms
            if self.rooms.get(room.race_id) is room
            and self._quiet(room, now)
            and not room.lock.locked()
        ]
        race_ids = [room.race_id for room in rooms]
        self._parking.update(race_ids)
        try:
            for room in rooms:
                room.stale = True  # whoever still holds it reads the race again
                del self.rooms[room.race_id]
                self._played_elsewhere.pop(room.race_id, None)
                for racer in room.race.racers.values():
                    cached = self.games.peek(racer.game_id)
                    if cached is not None and not cached.lock.locked():
                        self.games.forget(racer.game_id)
            parked = await self.leases.park(race_ids) if race_ids else []
            self.relay.report([Report(race=race_id, reread=True) for race_id in parked])
            if parked:
                log.info("races_parked", races=len(parked))
        finally:
            self._parking.difference_update(race_ids)
            async with self._parked:
                self._parked.notify_all()

    async def _send_progress(self, rooms: list[RaceRoom], now: int) -> None:
        """The progress due in these running races, committed together, then sent.

        No room lock: numbering and submitting happen without an await between, as on
        a move's path (server/services/play.py), so the races' events still commit and
        leave in the order of their numbers.
        """
        sending: list[tuple[RaceRoom, list[p.Event]]] = []
        rows: list[EventRow] = []
        for room in rooms:
            events = room.race.tick(now)  # progress only: no clock deadline is due here
            if events:
                messages, numbered = room.number(events, now)
                sending.append((room, messages))
                rows += numbered
        if not rows:
            return
        try:
            await self.committer.submit((), rows)
        except ArenaError as err:
            for room, _ in sending:
                room.stale = room.failed = True
            self._deadlines_changed.set()
            log.error("race_progress_failed", races=len(sending), error=err.code)
            return
        for room, messages in sending:
            room.send(messages)

    async def _tick(self, room: RaceRoom) -> None:
        async with room.lock:
            now = self.clock()
            events = room.race.tick(now)
            if not events:
                return
            try:
                await self.publish(room, events, now)
            except ArenaError as err:
                log.error("race_tick_failed", race=room.race_id, error=err.code)


def _clock_deadline(race: Race) -> int | None:
    """When the race's clock changes its state: the end of its countdown, or its time
    limit while it runs (its progress is gathered apart, ``run_clock``)."""
    if race.state is RaceState.COUNTDOWN:
        return race.starts_at
    if race.state is RaceState.RUNNING:
        return race.ends_at
    return None


def _stored_events(race_id: int, rows: list[Any]) -> list[p.Event]:
    """Stored event rows as the messages they were sent as."""
    return [
        p.Event(
            race=race_id,
            seq=row["seq"],
            time=to_ms(row["at"]) or 0,
            event=msgspec.json.decode(row["body"], type=p.RaceEvent),
        )
        for row in rows
    ]
