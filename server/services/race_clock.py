"""The race clock: countdowns started, time limits ended, progress sent, rooms let go.

One task per process looks at every race it holds a few times a progress interval and
at each race's next deadline. A race's progress goes out with the first move after its
interval has passed (server/core/race.py, ``progress``); the clock sends what is left
for races where no such move came, a few races a commit (``PROGRESS_PART``), so no event
comes sooner than the interval after the last and no move waits for all of them. It also
lets rooms go that nobody here needs (server/services/hosting.py): a mirror nobody
watches once it is behind, over or quiet, a quiet owned race (parked), a finished race a
minute after its end.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from server.core.hosting import Step, clock_deadline, clock_step
from server.ops.config import ServerConfig
from server.protocol.errors import ArenaError
from server.services.hosting import RaceHosting
from server.services.publish import RacePublisher
from server.services.rooms import RaceRoom

# Races whose progress one commit carries when the clock sends it. Gathered every half
# interval, the progress of hundreds of races once went out in one loop turn (a commit,
# then eight frames a race): every move that came meanwhile waited for all of it, the
# p99 of a busy host (docs/performance.md). In parts, each numbered and committed on
# its own, the moves that come are served between them.
PROGRESS_PART = 16


class RaceClock:
    """The clock of every race this process owns."""

    def __init__(
        self,
        hosting: RaceHosting,
        publisher: RacePublisher,
        config: ServerConfig,
        clock: Callable[[], int],
    ) -> None:
        self.hosting = hosting
        self.publisher = publisher
        self.config = config
        self.clock = clock

    async def run(self) -> None:
        """Start counted-down races and end races out of time, each when due; send the
        progress gathered in every race every half interval; let go of rooms nobody
        needs (server/core/hosting.py, ``clock_step``, decides which)."""
        hosting, publisher = self.hosting, self.publisher
        longest = max(0.02, min(1.0, self.config.progress_interval_ms / 2000))
        next_pass = 0.0
        loop = asyncio.get_running_loop()
        while True:
            now = self.clock()
            due: list[RaceRoom] = []
            gathered: list[RaceRoom] = []
            quiet: list[RaceRoom] = []
            upcoming: list[int] = []
            progress_due = loop.time() >= next_pass
            lease_good = hosting.leases.good()
            for race_id, room in list(hosting.rooms.items()):
                if not room.active_at:
                    room.active_at = now
                step = self._step(room, now, lease_good, progress_due)
                if step is Step.REBUILD:
                    with contextlib.suppress(ArenaError):
                        room = await hosting.room(race_id)
                    if room.stale:
                        continue  # the database is still away; try again next pass
                    step = self._step(room, now, lease_good, progress_due)
                if step is Step.TICK:
                    due.append(room)
                elif step is Step.GATHER:
                    gathered.append(room)
                elif step is Step.PARK:
                    quiet.append(room)
                elif step in (Step.LET_GO, Step.RETIRE):
                    hosting.forget(race_id)
                    if step is Step.RETIRE:
                        hosting.leases.let_go(race_id)  # its lease goes at a renewal
                deadline = clock_deadline(room.race)
                if room.owned and deadline is not None and deadline > now:
                    upcoming.append(deadline)
            if progress_due:
                next_pass = loop.time() + longest
                await self._send_progress(gathered)
            if quiet:
                await hosting.park(quiet, now)
            if due:
                async with asyncio.TaskGroup() as group:
                    for room in due:
                        group.create_task(publisher.tick(room))
                await asyncio.sleep(0.005)  # no busy loop if a tick keeps failing
                continue
            wait = min([next_pass - loop.time(), *((d - now) / 1000 for d in upcoming)])
            publisher.clock_changed.clear()
            # asyncio.timeout, not wait_for: Python 3.11's wait_for can swallow a
            # cancel that comes as the event is set, and the clock would never stop.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(max(0.0, wait)):
                    await publisher.clock_changed.wait()

    async def _send_progress(self, gathered: list[RaceRoom]) -> None:
        """The progress gathered in these races, ``PROGRESS_PART`` races a commit, each
        part numbered as it goes: a room let go, lost or failed meanwhile is passed over,
        and once this process's leases are in doubt it numbers nothing more."""
        rooms, leases = self.hosting.rooms, self.hosting.leases
        for start in range(0, len(gathered), PROGRESS_PART):
            if not leases.good():
                return
            part = [
                room
                for room in gathered[start : start + PROGRESS_PART]
                if rooms.get(room.race_id) is room and room.owned and not room.stale
            ]
            await self.publisher.send_progress(part, self.clock())

    def _step(self, room: RaceRoom, now: int, lease_good: bool, progress_due: bool) -> Step:
        return clock_step(
            room.hosting,
            room.race,
            now,
            quiet=self.hosting.quiet(room, now),
            watched=room.race_id in self.hosting.watchers,
            busy=room.lock.locked(),
            lease_good=lease_good,
            progress_due=progress_due,
        )
