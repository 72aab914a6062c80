"""The races this process holds in memory, each in its room: owned or mirrored.

A race's room is loaded from the database at its first use here and rebuilt when it
falls behind (``stale``). The process that holds the race's lease
(server/services/lease.py) owns it: its room replays the racers' games for their counts,
numbers the race's events and runs its clock. Any other process that serves the race's
players holds a *mirror*, which follows the owner's events. A race nobody here needs any
more leaves memory: a mirror nobody watches once it is behind, over or quiet; a quiet
owned race is parked (``park``); a finished one a minute after its end.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import msgspec
import structlog

from server import protocol as p
from server.core.hosting import Hold, Hosting, is_quiet
from server.core.race import Race, RaceState
from server.core.race_records import Counters, EntryLine
from server.core.reports import Report, reconcile
from server.ops.config import ServerConfig
from server.protocol.errors import ArenaError, NotFoundError
from server.services.background import Background
from server.services.games import GameCache
from server.services.lease import RaceLeases
from server.services.publish import RacePublisher
from server.services.rooms import RaceRoom
from server.services.subscriber import Subscriber
from server.services.watchers import Watchers
from server.store.pool import to_ms
from server.store.storage import Storage

log = structlog.get_logger(__name__)


class RaceHosting:
    """Every race this process holds, in its room."""

    def __init__(
        self,
        storage: Storage,
        games: GameCache,
        leases: RaceLeases,
        publisher: RacePublisher,
        watchers: Watchers,
        config: ServerConfig,
        clock: Callable[[], int],
    ) -> None:
        self.storage = storage
        self.games = games
        self.leases = leases
        self.publisher = publisher
        self.watchers = watchers
        self.config = config
        self.clock = clock
        self.rooms: dict[int, RaceRoom] = {}
        # Told when rooms held as ``parking`` have left: a request for one waits.
        self._parked = asyncio.Condition()
        self._recounts = Background("race_recount_failed")  # ``_recount`` tasks under way

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
        if room is not None and room.hosting.hold is Hold.PARKING:
            async with self._parked:
                await self._parked.wait_for(lambda: self.rooms.get(race_id) is not room)
            room = self.rooms.get(race_id)
            if room is not None and not room.stale:
                return room
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
        # A lobby read from the database expires a full idle time after it is read: its
        # last join or leave is not stored (docs/protocol.md, "Lobby expiry").
        race.idle_since = self.clock() if race.state is RaceState.LOBBY else 0
        race.lobby_idle_ms = self.config.lobby_idle_ms
        room = RaceRoom(race, record.last_seq, record.last_seq, Hosting.loaded(owned))
        room.fence = self.leases.fence(race_id)
        current = self.rooms.get(race_id)
        if current is not None and not current.stale:
            return current  # another request rebuilt it meanwhile
        if current is not None:
            # What its watchers were sent so far: the owner's events may be on their way.
            room.sent = current.sent
        self.hold(room)
        if room.sent < record.last_seq:  # stored events the watchers here have not seen yet
            rows = await self.storage.events_after(race_id, room.sent, record.last_seq - room.sent)
            self.send_new(race_id, stored_events(race_id, rows))
        if owned and stale is not None and stale.untold:
            # Changes of this process's own, stored while its leases were in doubt, whose
            # events nobody numbered (one process alone has no other owner to report to).
            untold = race.retold(stale.untold)
            if untold:
                await self.publisher.tell_untold(room, untold)
        was_owner = stale is not None and stale.owned and not stale.hosting.failed
        if owned and not was_owner and race.state is RaceState.RUNNING:
            # Taken over (or loaded after a restart, or after changes made while this
            # process's leases were in doubt): tell everybody the counts as they are, and
            # end the race if everyone finished meanwhile.
            await self.publisher.end_if_all_done(room)
        self.publisher.clock_changed.set()
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
            live = await self.games.get(entry.game_id)
            if not live.lock.locked():  # a move of the player's may be in hand here
                self.games.forget(entry.game_id)  # played elsewhere: kept here it would age
            return live.counters
        return (await self.games.get(entry.game_id)).counters

    async def fresh_room(self, race_id: int) -> RaceRoom:
        """The race's room as stored now, for a change of its members or state: a
        mirror's copy may be a moment behind the owner's."""
        room = await self.room(race_id)
        if not room.owned:
            room.hosting.fell_behind()
            return await self.room(race_id)
        # The owner may not have heard yet of players who joined through a mirror: a
        # start must count them, so it rereads the race first.
        async with room.lock:
            record = await self.storage.race(race_id)
            events = [] if record is None else reconcile(room.race, record)
            if events:
                await self.publisher.publish(room, events, self.clock())
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
                await self.publisher.tick(room)
            return room
        if deadline is not None and deadline <= now:
            room.race.tick(now)  # the owner's events say the same a moment later
        if room.race.state is RaceState.LOBBY:
            room.hosting.fell_behind()
            room = await self.room(race_id)
        return room

    def send_new(
        self, race_id: int, events: list[p.Event]
    ) -> tuple[RaceRoom | None, list[p.Event]]:
        """Send stored events to the watchers here, those not sent yet; the race's room
        now (a rebuild may have replaced it while the events were read) and the events."""
        room = self.rooms.get(race_id)
        if room is None:
            return None, []
        events = [event for event in events if event.seq > room.sent]
        self.publisher.send(room, events)
        return room, events

    def watch(self, room: RaceRoom, subscriber: Subscriber | None) -> None:
        """Send this subscriber the race's events from now on.

        The request that asks may have awaited the database since it found the room,
        and the race clock may have dropped a copy nobody watched meanwhile: the room
        then comes back, behind (``stale``), so that the race's next events find it and
        catch up from what it sent last, and its next use reads the race again.
        """
        if subscriber is None:
            return
        self.watchers.add(room.race_id, subscriber)
        if room.race_id not in self.rooms:
            room.hosting.came_back()
            self.hold(room)

    def unwatch(self, subscriber: Subscriber) -> None:
        """Forget a subscriber whose connection closed."""
        self.watchers.remove(subscriber)

    async def resume_open_races(self) -> int:
        """Load every unfinished race at home here whose owner is gone (after a start),
        so its clock runs again."""
        leases = self.leases
        await leases.renew()  # this process's leases are good from now on
        race_ids = await leases.take_orphans(limit=100_000)
        await self.taken_over(race_ids)
        return len(race_ids)

    async def taken_over(self, race_ids: list[int]) -> None:
        """This process took over these races' leases: rebuild them as their owner, and
        read their counts again a lease later (``_recount``)."""
        for race_id in race_ids:
            room = self.rooms.get(race_id)
            if room is not None:
                room.hosting.fell_behind()
            try:
                await self.room(race_id)
            except ArenaError:
                continue
        if race_ids:
            self._recounts.start(self._recount(race_ids))

    async def _recount(self, race_ids: list[int]) -> None:
        """A lease after a takeover, the racers' counts read from the database again and
        told. The old owner goes on playing its players' moves until its next renewal
        tells it of the takeover; a move it committed in that moment was reported before
        this process heard of the race, to nobody, and the standings here would show it
        only with that player's next move (after a database outage, a race whose home
        renewed late: tests/server/test_postgres_restart.py)."""
        await asyncio.sleep(self.leases.seconds)
        for race_id in race_ids:
            room = self.rooms.get(race_id)
            if room is None or not room.owned or room.race.state is not RaceState.RUNNING:
                continue
            room.hosting.fell_behind()
            try:
                room = await self.room(race_id)
            except ArenaError:
                continue
            if room.owned and room.race.state is RaceState.RUNNING:
                await self.publisher.end_if_all_done(room)  # every count, as it stands

    def lost(self, race_ids: set[int]) -> None:
        """Another process took these races over: this one only mirrors them now."""
        for race_id in race_ids:
            room = self.rooms.get(race_id)
            if room is not None:
                room.hosting.lost()
                self.publisher.relay.follow(race_id, owner=False)

    def hold(self, room: RaceRoom) -> RaceRoom:
        """Keep the room as the race's in this process, and hear of the race from the
        other processes (as its owner or as a mirror)."""
        self.rooms[room.race_id] = room
        self.publisher.relay.follow(room.race_id, owner=room.owned)
        return room

    def forget(self, race_id: int) -> None:
        """The race leaves this process's memory (a request reads it again).

        A mirror lets the racers' games it cached go too: it hears no more of the race,
        so nor of moves made in those games elsewhere, and a copy kept would fall behind.
        """
        room = self.rooms.pop(race_id)
        owned = room.owned
        room.hosting.let_go()
        self.publisher.played_elsewhere.pop(race_id, None)
        self.publisher.relay.leave(race_id)
        if not owned:
            self._forget_games(room)

    def _forget_games(self, room: RaceRoom) -> None:
        for racer in room.race.racers.values():
            cached = self.games.peek(racer.game_id)
            if cached is not None and not cached.lock.locked():
                self.games.forget(racer.game_id)

    def quiet(self, room: RaceRoom, now: int) -> bool:
        """Whether nothing happened in the race for ``idle_race_seconds`` and nobody
        here watches it or has progress waiting in it."""
        idle_ms = self.config.idle_race_seconds * 1000
        watched = room.race_id in self.watchers
        return is_quiet(room.race, room.active_at, now, idle_ms, watched)

    async def park(self, rooms: list[RaceRoom], now: int) -> None:
        """Let quiet races this process owns leave its memory, and park their leases
        (server/store/leases.py), so a restart does not load them again either.

        Such a race has no clock to run (no countdown, no time limit) and nobody to
        send events to; its players may come back at any time, and whichever process
        one of them reaches then takes the lease and rebuilds the race from the
        database. The racers' games leave the cache with it. Mirrors are told (a
        ``reread`` report), so a player who moves through one is counted by the process
        that takes the race next, not reported to this one, which no longer listens.
        While its lease is being parked the room stays, held as ``parking``: a request
        for the race waits (``room``) and then reads it again.
        """
        # Sending progress may have waited on a commit since they were found quiet.
        rooms = [
            room
            for room in rooms
            if self.rooms.get(room.race_id) is room
            and room.hosting.hold is Hold.OWNER
            and self.quiet(room, now)
            and not room.lock.locked()
        ]
        for room in rooms:
            room.hosting.park()
        try:
            parked = await self.leases.park([room.race_id for room in rooms]) if rooms else []
        finally:
            for room in rooms:
                if self.rooms.get(room.race_id) is room:
                    self.forget(room.race_id)  # its games go with it
            async with self._parked:
                self._parked.notify_all()
        for race_id in parked:
            self.publisher.relay.note(race_id, [Report(race=race_id, reread=True)])
        if parked:
            log.info("races_parked", races=len(parked))


def stored_events(race_id: int, rows: list[Any]) -> list[p.Event]:
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
