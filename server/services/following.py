"""What other processes say about the races held here, and what the owner makes of it.

A process hears the owner's events as they are sent (``received``, server/services/relay.py)
and passes each on to its watchers as it came; one that finds an event missing (a gap in
the numbers: a message lost, or sent before this process listened) reads what it missed
from the database first (``catch_up``), the durable log. A mirror takes the standings of
progress events into its copy, and any other event has it reread the race. The owner
turns mirrors' reports (server/core/reports.py) into the race's events (``reported``),
and looks in the database for what reports lost with their sender did not say
(``recheck``), as every process does for events it may have missed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import msgspec
import structlog

from server import protocol as p
from server.core.race import RaceState
from server.core.reports import Report, apply_report, reconcile
from server.protocol.errors import ArenaError
from server.services.games import GameCache
from server.services.hosting import RaceHosting, stored_events
from server.services.publish import RacePublisher
from server.services.rooms import RaceRoom
from server.store.pool import to_ms
from server.store.storage import Storage

log = structlog.get_logger(__name__)

# Events of one race read at once when catching up without knowing how many were missed;
# a race with more gets the rest at its next look.
CATCH_UP_EVENTS = 500

_event = msgspec.json.Decoder(p.Event)

_BEFORE_START = (RaceState.LOBBY, RaceState.COUNTDOWN)


class RaceFollowing:
    """Other processes' events and reports, for the races held here."""

    def __init__(
        self,
        storage: Storage,
        games: GameCache,
        hosting: RaceHosting,
        publisher: RacePublisher,
        clock: Callable[[], int],
    ) -> None:
        self.storage = storage
        self.games = games
        self.hosting = hosting
        self.publisher = publisher
        self.clock = clock

    async def received(self, race_id: int, frame: bytes) -> None:
        """An event the race's owner sent (as its watchers' frame): passed on to the
        watchers here as it is, after the events before it, read from the database if
        they did not come."""
        room = self.hosting.rooms.get(race_id)
        if room is None:
            return
        message = _event.decode(frame)
        if message.seq <= room.sent:
            return  # read from the database already
        if message.seq > room.sent + 1:
            await self.catch_up([(race_id, message.seq)])
            return
        room.sent_up_to([message])
        self.hosting.watchers.send_frames(race_id, [frame])
        self._follow(room, [message])

    def noted(self, reports: list[Report]) -> None:
        """The owner's notes: a game's log grew (a copy cached here is behind), or the
        race was parked (this copy is behind: the next request reads it again)."""
        rooms = self.hosting.rooms
        for report in reports:
            self._forget_if_behind(report)
            if report.reread and report.race in rooms:
                rooms[report.race].hosting.fell_behind()

    async def catch_up_all(self) -> None:
        """Read what may have been missed of every race held here (after a time when
        nothing could be heard), and send it on."""
        await self.catch_up(
            [
                (race_id, room.sent + CATCH_UP_EVENTS)
                for race_id, room in list(self.hosting.rooms.items())
                if room.seq == room.sent  # else events of ours in flight: their commit tells
            ]
        )

    async def catch_up(self, notices: list[tuple[int, int]]) -> None:
        """Other processes stored events of races up to these ``(race, seq)`` pairs:
        send them on to the watchers here, read for every race in one query.

        A mirror takes the standings of progress events into its copy; any other event
        (members, state, a finish) has it reread the race. An owner that sees another
        process number its race's events has lost the race.
        """
        wanted = []
        for race_id, seq in notices:
            room = self.hosting.rooms.get(race_id)
            if room is not None and seq > room.sent:
                wanted.append((race_id, room.sent, seq))
        if not wanted:
            return
        by_race: dict[int, list[Any]] = {}
        for row in await self.storage.events_between(wanted):
            by_race.setdefault(row["race_id"], []).append(row)
        for race_id, rows in by_race.items():
            self._caught_up(race_id, stored_events(race_id, rows))

    def _caught_up(self, race_id: int, stored: list[p.Event]) -> None:
        room, events = self.hosting.send_new(race_id, stored)
        if room is not None and events:
            self._follow(room, events)

    def _follow(self, room: RaceRoom, events: list[p.Event]) -> None:
        """Another process's events of a race held here, sent on: a mirror's copy
        follows them; an owner that sees another number its race has lost it."""
        room.seq = max(room.seq, room.sent)
        if room.owned:
            room.hosting.fell_behind()
            return
        for message in events:
            if isinstance(message.event, p.ProgressEvent):
                room.race.follow(message.event.standings)
            else:
                room.hosting.fell_behind()

    async def reported(self, reports: list[Report]) -> None:
        """Mirrors reported changes in races: the owner turns them into events, each
        race's reports under one hold of its lock and in one commit."""
        rooms = self.hosting.rooms
        held = self.hosting.leases.held
        by_race: dict[int, list[Report]] = {}
        for report in reports:
            self._forget_if_behind(report)
            if report.game_only:
                continue  # the owner's own moves: nothing to number
            if report.game and report.race in rooms:
                self.publisher.played_elsewhere.setdefault(report.race, set()).add(report.game)
            if report.race in held:  # others' races are not ours to number
                by_race.setdefault(report.race, []).append(report)
            elif report.reread and report.race in rooms:
                # The race changed in the database, or its owner parked it: this copy
                # is behind, and the next request here reads it again (and may own it).
                rooms[report.race].hosting.fell_behind()
        async with asyncio.TaskGroup() as group:
            for race_id, race_reports in by_race.items():
                group.create_task(self._apply_reports(race_id, race_reports))

    async def recheck(self) -> None:
        """Look in the database for what mirrors' reports did not say: the report was
        lost with its sender (it died right after its commit), or sent before this
        process listened to the race (it took the race over, or had just created it).

        First catch up the races mirrored here and watched from the database, for any
        event whose message was lost with nothing after it to show the gap. Then bring
        the lobbies owned here up to their stored members and state, and count the
        players of running races who finished or gave up elsewhere: else a lobby could
        miss a player until its start, and a race wait for its time limit.
        """
        rooms = self.hosting.rooms
        watched = [
            (room.race_id, room.sent + CATCH_UP_EVENTS)
            for room in rooms.values()
            if not room.owned and room.race_id in self.hosting.watchers
        ]
        await self.catch_up(watched)
        await self._recheck_lobbies()
        await self._recheck_running()

    async def _recheck_lobbies(self) -> None:
        """Lobbies owned here whose stored members or state differ from their copy's:
        reread and told, as a report would have had them."""
        lobbies = {
            room.race_id: room
            for room in self.hosting.rooms.values()
            if room.owned and not room.stale and room.race.state in _BEFORE_START
        }
        if not lobbies:
            return
        for race_id, (version, players) in (await self.storage.members(list(lobbies))).items():
            race = lobbies[race_id].race
            if version != race.version or players != set(race.racers):
                await self._apply_reports(race_id, [Report(race=race_id, reread=True)])

    async def _recheck_running(self) -> None:
        rooms = self.hosting.rooms
        running = [
            room.race_id
            for room in rooms.values()
            if room.owned and not room.stale and room.race.state is RaceState.RUNNING
        ]
        if not running:
            return
        for row in await self.storage.done_entries(running):
            room = rooms.get(row["race_id"])
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
                await self.publisher.publish(room, events, now)

    def _forget_if_behind(self, report: Report) -> None:
        """A player's game moved on through another process: a copy cached here is
        behind, and the player's next move here would meet a false ``conflict``. Forget
        it (the next use replays it), unless a move of theirs is in hand here."""
        cached = self.games.peek(report.game) if report.logged else None
        if cached is not None and not cached.lock.locked() and cached.seq < report.logged:
            self.games.forget(report.game)

    async def _apply_reports(self, race_id: int, reports: list[Report]) -> None:
        try:
            room = await self.hosting.current_room(race_id)
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
                    await self.publisher.publish(room, events, now)
        except ArenaError as err:
            log.error("report_failed", race=race_id, error=err.code)
