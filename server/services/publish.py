"""A race's changes committed, then told: to the watchers here, or to the race's owner.

The owner of a race (server/services/lease.py) numbers the events its race core returns
(server/services/rooms.py), commits them with the rows they imply through the group
commit, and only then sends them to the race's watchers. A process that only mirrors
the race commits the rows and reports the change to the owner (server/services/relay.py),
whose race core makes the events (server/core/reports.py). Nothing is acknowledged
before it is committed; a failed write marks the room stale, and it is rebuilt from the
database (the truth) before it is used again.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence

import msgspec
import structlog

from server import protocol as p
from server.core.identity import unranked_reason
from server.core.reports import Report, reports_of
from server.core.session import MoveRow
from server.protocol.errors import ArenaError
from server.services.lease import RaceLeases
from server.services.ratings import Ratings
from server.services.relay import Relay
from server.services.review import FairPlay
from server.services.rooms import RaceRoom
from server.services.watchers import Watchers
from server.store import writes
from server.store.commit import GroupCommitter
from server.store.commit_rows import EventRow
from server.store.writes import Statement

log = structlog.get_logger(__name__)

# Events that set a race's clock (the race clock looks again), and those that change its
# stored state (a row of ``races`` to update). Every move of a race passes these tests.
_CLOCK_EVENTS = (p.CountdownEvent, p.StartEvent)
_STATE_EVENTS = (p.CountdownEvent, p.StartEvent, p.EndEvent)
# What a race's owner may fail to tell while its leases are in doubt, and tells later
# (``RaceRoom.untold``); counts and the end are told anyway once a race is read again.
_UNTOLD = (p.LobbyEvent, p.CountdownEvent, p.StartEvent)


class RacePublisher:
    """Commits races' changes and sends their events on."""

    def __init__(
        self,
        committer: GroupCommitter,
        relay: Relay,
        watchers: Watchers,
        fair_play: FairPlay,
        ratings: Ratings,
        clock: Callable[[], int],
        leases: RaceLeases,
        guests_rank: bool = False,
    ) -> None:
        self.committer = committer
        self.guests_rank = guests_rank  # docs/operations.md; else guests rank nowhere
        self.leases = leases
        self.relay = relay
        self.watchers = watchers
        self.fair_play = fair_play
        self.ratings = ratings
        self.clock = clock
        # Set when a race's clock deadline may have changed: the race clock looks again.
        self.clock_changed = asyncio.Event()
        # Per race with a room here: the games its players moved in through other
        # processes, which may hold a copy of them. The owner reports its own moves of
        # these games, so such a copy is dropped before the player comes back to it.
        self.played_elsewhere: dict[int, set[int]] = {}

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
        them into the race's events (server/core/reports.py). So too in a race owned
        here while this process's leases may have run out (server/services/lease.py):
        it numbers nothing then, and reads the race again once they are good.
        """
        if not room.owned:
            await self._relay(room, events, statements, moves)
            return
        if not self.leases.good():
            room.hosting.write_failed()  # read again, counts and all, once good again
            room.untold += [e for e in events if isinstance(e, _UNTOLD)]
            await self._relay(room, events, statements, moves)
            return
        messages, rows = room.number(events, now)
        if events:
            statements = [*statements, *self._race_statements(room, events)]
        try:
            written = await self.committer.submit(moves, rows, statements)
        except ArenaError:
            # The race in memory may now be ahead of the database: rebuild it from there.
            room.hosting.write_failed()
            self.clock_changed.set()
            raise
        if not written:
            # The moves are committed, but the race's lease has another fencing number:
            # another process owns the race now, and makes its events from a report.
            self._lost(room)
            self._report(room, events, moves)
            return
        self._report_moves_elsewhere(room, moves)
        if messages:
            self._tell(room, messages)
            if any(isinstance(e, _CLOCK_EVENTS) for e in events):
                self.clock_changed.set()
            if any(isinstance(e, p.EndEvent) for e in events):
                # The winners' results are stored held: they count once recomputed.
                winners = [r.game_id for r in room.race.racers.values() if r.finished]
                if winners:
                    self.fair_play.review_soon(winners)
                # If rated, the race is rated and its watchers here told the changes.
                self.ratings.race_ended(room.race_id, self.watchers.of(room.race_id))

    async def tick(self, room: RaceRoom) -> None:
        """What the race's clock says now (a countdown's end, a time limit), published."""
        async with room.lock:
            now = self.clock()
            events = room.race.tick(now)
            if not events:
                return
            try:
                await self.publish(room, events, now)
            except ArenaError as err:
                log.error("race_tick_failed", race=room.race_id, error=err.code)

    async def end_if_all_done(self, room: RaceRoom) -> None:
        """A race just taken over: everybody's counts as they are, and its end if
        everyone finished while it had no owner."""
        race = room.race
        race.changed.update(dict.fromkeys(race.racers))
        async with room.lock:
            now = self.clock()
            with contextlib.suppress(ArenaError):
                await self.publish(room, race.end_if_all_done(now), now)

    async def tell_untold(self, room: RaceRoom, events: list[p.RaceEvent]) -> None:
        """Events of changes stored while this process's leases were in doubt, which no
        owner numbered, numbered and told now."""
        async with room.lock:
            now = self.clock()
            with contextlib.suppress(ArenaError):
                await self.publish(room, events, now)

    def send(self, room: RaceRoom, messages: list[p.Event]) -> None:
        """Stored events to the race's watchers here."""
        room.sent_up_to(messages)
        self.watchers.send(room.race_id, messages)

    def _tell(self, room: RaceRoom, messages: list[p.Event]) -> None:
        """The owner's events, just committed: to the watchers here and to every other
        process that holds the race, each encoded once, the same bytes for all."""
        room.sent_up_to(messages)
        frames = [p.encode(message) for message in messages]
        self.watchers.send_frames(room.race_id, frames)
        self.relay.events(room.race_id, frames)

    async def send_progress(self, rooms: list[RaceRoom], now: int) -> None:
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
            written = await self.committer.submit((), rows)
        except ArenaError as err:
            for room, _ in sending:
                room.hosting.write_failed()
            self.clock_changed.set()
            log.error("race_progress_failed", races=len(sending), error=err.code)
            return
        if not written:  # some race has another owner now: each is read again
            for room, _ in sending:
                room.hosting.write_failed()
            self.clock_changed.set()
            return
        for room, messages in sending:
            self._tell(room, messages)

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
            room.hosting.write_failed()
            raise
        self._report(room, events, moves)

    def _lost(self, room: RaceRoom) -> None:
        """Another process owns the race now: this room mirrors it from here on."""
        room.hosting.lost()
        self.leases.let_go(room.race_id)
        self.relay.follow(room.race_id, owner=False)
        log.warning("lease_fenced", race=room.race_id)

    def _report(self, room: RaceRoom, events: list[p.RaceEvent], moves: Sequence[MoveRow]) -> None:
        """Report a change committed here to the race's owner."""
        told = reports_of(room.race_id, events)
        if moves:  # the log's length, for a copy of the game cached elsewhere
            last = moves[-1]
            mover = next(
                (r.player_id for r in room.race.racers.values() if r.game_id == last.game_id),
                None,
            )
            told = [
                msgspec.structs.replace(r, game=last.game_id, logged=last.seq + 1)
                if r.player == mover
                else r
                for r in told
            ]
        if told:
            self.relay.report(room.race_id, told)

    def _report_moves_elsewhere(self, room: RaceRoom, moves: Sequence[MoveRow]) -> None:
        """The owner committed moves: tell the other processes how long the logs of the
        games played through them have grown, so they drop their copies (else the
        player who comes back there meets a false ``conflict``). Games played only here
        cost no notice."""
        elsewhere = self.played_elsewhere.get(room.race_id)
        if not elsewhere or not moves:
            return
        logged = {move.game_id: move.seq + 1 for move in moves if move.game_id in elsewhere}
        if logged:
            race_id = room.race_id
            notes = [Report(race=race_id, game=game, logged=n) for game, n in logged.items()]
            self.relay.note(race_id, notes)

    def _race_statements(self, room: RaceRoom, events: list[p.RaceEvent]) -> list[Statement]:
        race = room.race
        statements: list[Statement] = []
        if any(isinstance(e, _STATE_EVENTS) for e in events):
            statements.append(writes.race_state(race.stored_state()))
        for event in events:
            if isinstance(event, p.EndEvent):
                for line in event.ranking:
                    racer = race.racers[line.player]
                    unranked = unranked_reason(racer.user, self.guests_rank)
                    statements.append(
                        writes.result(
                            race.race_id, racer.game_id, line, race.settings.ranked, unranked
                        )
                    )
        return statements
