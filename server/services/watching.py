"""Watching live races: the list of public races, and a race's events and racers' boards
to its watchers, held back by the race's delay (docs/arena.md, "Watching").

One ``_Watched`` per race watched in this process. It follows the race through the race
service's public ``get_race``, as any client does, with a tap for a subscriber
(server/services/taps.py): each
event the race sends, framed once for everyone, goes into the race's delay buffer
(server/core/watching.py) and, once due, the same bytes go to every watcher. A racer's
board is the racer's game replayed from the move log up to the moment the delay shows,
built once per change for all who watch that racer.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field

import structlog

import engine
from server import protocol as p
from server.core.identity import Principal
from server.core.race import RaceState
from server.core.race_records import RaceRecord
from server.core.watching import RANKED_DELAY_MS, DelayBuffer, RaceSoFar, delay_for, racer_board
from server.protocol.errors import ArenaError, NotFoundError, WatchError
from server.services.races import RaceService
from server.services.subscriber import Subscriber, send_to_all
from server.services.taps import EventTap, race_event
from server.store.storage import Storage
from server.store.watching import WatchingStore

log = structlog.get_logger(__name__)

# After events are released, the boards shown are looked at again every
# ``BOARD_RECHECK_MS`` for ``BOARD_SETTLE_MS``: the move log's times are the database's,
# taken as a move commits, a little after the server numbered the move's event.
BOARD_RECHECK_MS = 200
BOARD_SETTLE_MS = 1500


@dataclass
class _Board:
    """A watched racer's game, replayed up to what watchers may see of it."""

    game_id: int
    game: engine.Game
    seq: int = 0  # the next action of the log to apply


@dataclass
class _Watched:
    """A race watched in this process: its buffer, its watchers and the boards they see."""

    record: RaceRecord
    delay_ms: int
    buffer: DelayBuffer[tuple[int, bytes]]
    tap: EventTap | None = None
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    early: list[bytes] = field(default_factory=list)  # tapped while the log was read
    released_seq: int = 0
    last_seq: int = 0
    watchers: dict[Subscriber, int | None] = field(default_factory=dict)
    boards: dict[int, _Board] = field(default_factory=dict)
    # Boards are looked at again until then (server ms) after events were released: a
    # move is stamped by the database a moment after its event by the server's clock.
    boards_until: int = 0


class Watching:
    """The races watched in this process."""

    def __init__(
        self,
        races: RaceService,
        unfollow: Callable[[Subscriber], None],
        storage: Storage,
        store: WatchingStore,
        clock: Callable[[], int],
        ranked_delay_ms: int = RANKED_DELAY_MS,
    ) -> None:
        self.races = races
        # Forgets a subscriber of races (what a closed connection is told): the tap of a
        # race nobody here watches any more.
        self.unfollow = unfollow
        self.storage = storage
        self.store = store
        self.clock = clock
        self.ranked_delay_ms = ranked_delay_ms
        self.watched: dict[int, _Watched] = {}
        self._watching: dict[Subscriber, set[int]] = {}
        self._wake = asyncio.Event()

    # ------------------------------------------------------------ requests

    async def live(self, who: Principal, message: p.ListLiveRaces) -> p.LiveRacesReply:
        """The public races under way: ranked ones (a deal the server dealt), newest first."""
        races = await self.store.live_races(message.variant, message.limit, self.ranked_delay_ms)
        return p.LiveRacesReply(id=message.id, races=races)

    async def watch(
        self, who: Principal, message: p.WatchRace, subscriber: Subscriber | None
    ) -> p.WatchingReply:
        """Watch a race (and a racer's board): the race as the delay shows it now.

        Raises:
            NotFoundError: no such race, or no such racer in it.
            WatchError: ``racing_here``: a board of a race the asker is still racing in.
        """
        record = await self.storage.race(message.race)
        if record is None:
            raise NotFoundError(what="race", ref=message.race)
        entries = {entry.player_id: entry for entry in record.entries}
        if message.player is not None:
            if message.player not in entries:
                raise NotFoundError(what="racer", ref=message.player)
            mine = entries.get(who.player_id)
            if (
                mine is not None
                and mine.status == "playing"
                and record.state is not RaceState.FINISHED
            ):
                raise WatchError("racing_here")
        watched = await self._follow(record, who)
        now = self.clock()
        cutoff = now - watched.delay_ms
        events = [
            e for e in await self.store.events(record.race_id) if e.seq <= watched.released_seq
        ]
        so_far = RaceSoFar.of(events)
        board = None
        if message.player is not None:
            shown, changed = await self._board(watched, message.player, cutoff)
            board = racer_board(shown.game.view())
            if changed:  # those who watch this racer already see the same
                self._show(watched, message.player, board, cutoff)
        if subscriber is not None:
            watched.watchers[subscriber] = message.player
            self._watching.setdefault(subscriber, set()).add(record.race_id)
        elif not watched.watchers:
            self._close(record.race_id, watched)
        return p.WatchingReply(
            id=message.id,
            race=record.race_id,
            delay_ms=watched.delay_ms,
            state=so_far.state,
            settings=record.settings.public(private=False),
            starts_at=so_far.starts_at,
            ends_at=so_far.ends_at,
            players=list(so_far.standings.values()),
            seq=so_far.seq,
            player=message.player,
            board=board,
            server_time=now,
        )

    async def stop(
        self, who: Principal, message: p.UnwatchRace, subscriber: Subscriber | None
    ) -> p.UnwatchedReply:
        """Stop watching a race on this connection."""
        if subscriber is not None:
            self._leave(subscriber, message.race)
            self._watching.get(subscriber, set()).discard(message.race)
        return p.UnwatchedReply(id=message.id, race=message.race)

    def unwatch(self, subscriber: Subscriber) -> None:
        """Forget a subscriber whose connection closed."""
        for race_id in self._watching.pop(subscriber, ()):
            self._leave(subscriber, race_id)

    def _leave(self, subscriber: Subscriber, race_id: int) -> None:
        watched = self.watched.get(race_id)
        if watched is None:
            return
        watched.watchers.pop(subscriber, None)
        if not watched.watchers and watched.ready.is_set():
            self._close(race_id, watched)

    def _close(self, race_id: int, watched: _Watched) -> None:
        del self.watched[race_id]
        if watched.tap is not None:
            self.unfollow(watched.tap)

    # ------------------------------------------------------------ following a race

    async def _follow(self, record: RaceRecord, who: Principal) -> _Watched:
        """The race's watched state here, set up on its first watcher."""
        watched = self.watched.get(record.race_id)
        if watched is not None:
            await watched.ready.wait()
            if self.watched.get(record.race_id) is watched:
                return watched
            return await self._follow(record, who)  # its setup failed: try again
        delay = delay_for(record.settings.ranked, self.ranked_delay_ms)
        watched = self.watched[record.race_id] = _Watched(record, delay, DelayBuffer(delay))
        try:
            watched.tap = EventTap(watched.early.append)
            # Follow the race as a client would; events from here on reach the tap.
            await self.races.get(who, p.GetRace(race=record.race_id), watched.tap)
            stored = await self.store.events(record.race_id)
        except ArenaError:
            del self.watched[record.race_id]
            if watched.tap is not None:
                self.unfollow(watched.tap)
            watched.ready.set()  # whoever waits for it tries again
            raise
        cutoff = self.clock() - delay
        for event in stored:
            if event.time <= cutoff:
                watched.released_seq = event.seq
            else:
                watched.buffer.push((event.seq, p.encode(event)), event.time)
            watched.last_seq = event.seq
        for frame in watched.early:
            self._take(watched, frame)
        watched.early.clear()
        watched.tap.take = lambda frame: self._take(watched, frame)
        watched.ready.set()
        self._wake.set()
        return watched

    def _take(self, watched: _Watched, frame: bytes) -> None:
        """A frame the race sent: held until its time comes (each event once)."""
        event = race_event(frame)
        if event is None or event.seq <= watched.last_seq:
            return
        watched.last_seq = event.seq
        watched.buffer.push((event.seq, frame), event.time)
        self._wake.set()

    async def _board(self, watched: _Watched, player_id: int, cutoff: int) -> tuple[_Board, bool]:
        """A racer's game as watchers may see it, brought up to ``cutoff``; whether it
        changed."""
        board = watched.boards.get(player_id)
        if board is None:
            entry = next(e for e in watched.record.entries if e.player_id == player_id)
            s = watched.record.settings
            game = engine.new_game(s.variant, watched.record.seed, s.options)
            board = watched.boards[player_id] = _Board(entry.game_id, game)
        return board, bool(await self._bring_up(watched, [board], cutoff))

    def _show(self, watched: _Watched, player_id: int, board: p.RacerBoard, at: int) -> None:
        """A racer's board, encoded once, to everyone here who watches that racer."""
        viewers = [s for s, whom in watched.watchers.items() if whom == player_id]
        if viewers:
            message = p.WatchBoardEvent(
                race=watched.record.race_id, player=player_id, at=at, board=board
            )
            send_to_all(viewers, p.encode(message))

    async def _bring_up(self, watched: _Watched, boards: list[_Board], cutoff: int) -> list[_Board]:
        """Apply the actions played by ``cutoff`` to these boards; those that changed."""
        found = await self.store.moves_by({b.game_id: b.seq for b in boards}, cutoff)
        changed = []
        for board in boards:
            before = board.seq
            for seq, action in found.get(board.game_id, []):
                if seq != board.seq:
                    break  # a gap: the rest comes with the next look
                board.game.play_action(action)
                board.seq += 1
            if board.seq != before:
                changed.append(board)
        return changed

    # ------------------------------------------------------------ the clock

    async def run(self) -> None:
        """Release each race's events when due, and the boards they changed, until
        cancelled."""
        while True:
            now = self.clock()
            due: list[int] = []
            for race_id, watched in list(self.watched.items()):
                if not watched.ready.is_set():
                    continue
                try:
                    await self._release(race_id, watched, now)
                except ArenaError as err:
                    log.error("watch_release_failed", race=race_id, error=err.code)
                next_at = watched.buffer.next_release()
                if next_at is not None:
                    due.append(next_at)
                if watched.boards_until >= now:
                    due.append(now + BOARD_RECHECK_MS)
            self._wake.clear()
            wait = max(0.0, min(due, default=now + 1000) - now) / 1000
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(min(wait, 1.0)):
                    await self._wake.wait()

    async def _release(self, race_id: int, watched: _Watched, now: int) -> None:
        """Send the race's events now due, then the boards that changed by then."""
        released = watched.buffer.release(now)
        if released:
            watched.released_seq = released[-1][0]
            watched.boards_until = now + BOARD_SETTLE_MS
            for _, frame in released:
                send_to_all(watched.watchers, frame)
        if watched.boards_until < now:
            return
        shown = {player for player in watched.watchers.values() if player is not None}
        boards = [watched.boards[player] for player in shown if player in watched.boards]
        if not boards:
            return
        cutoff = now - watched.delay_ms
        for board in await self._bring_up(watched, boards, cutoff):
            player = next(pid for pid, b in watched.boards.items() if b is board)
            self._show(watched, player, racer_board(board.game.view()), cutoff)
