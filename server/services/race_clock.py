"""The race clock: countdowns started, time limits ended, progress sent, rooms let go.

One task per process looks at every race it holds a few times a progress interval and
at each race's next deadline. A race's progress goes out with the first move after its
interval has passed (server/core/race.py, ``progress``); the clock sends what is left
for races where no such move came, all due races in one group commit, so no event comes
sooner than the interval after the last. It also lets rooms go that nobody here needs
(server/services/hosting.py): a mirror nobody watches once it is behind, over or quiet,
a quiet owned race (parked), a finished race a minute after its end.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from server.core.race import Race, RaceState
from server.ops.config import ServerConfig
from server.protocol.errors import ArenaError
from server.services.hosting import RaceHosting
from server.services.publish import RacePublisher
from server.services.rooms import RaceRoom

# A finished race stays in memory this long after its end (ms), for late requests.
FINISHED_KEPT_MS = 60_000


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
        progress gathered in every race, all at once, every half interval."""
        hosting, publisher = self.hosting, self.publisher
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
            for race_id, room in list(hosting.rooms.items()):
                if not room.active_at:
                    room.active_at = now
                if not room.owned:
                    # Its owner's clock runs it. A copy nobody here watches any more goes
                    # once it is behind, over or quiet (a request reads it again).
                    over = room.race.state is RaceState.FINISHED
                    watched = race_id in hosting.watchers
                    if not watched and (room.stale or over or hosting.quiet(room, now)):
                        hosting.forget(race_id)
                    continue
                due_at = _clock_deadline(room.race)
                if room.stale and (room.failed or (due_at is not None and due_at <= now)):
                    # Rebuilt only when a failed write left it behind, or when its clock
                    # is due: another process's events alone need no replay here.
                    with contextlib.suppress(ArenaError):
                        room = await hosting.room(race_id)
                    if room.stale:
                        continue  # the database is still away; try again next pass
                race = room.race
                deadline = _clock_deadline(race)
                if deadline is not None and deadline <= now:
                    due.append(room)
                    continue
                if deadline is not None:
                    upcoming.append(deadline)
                if deadline is None and hosting.quiet(room, now) and not room.lock.locked():
                    quiet.append(room)
                elif race.state is RaceState.RUNNING:
                    if progress_pass and not room.stale and race.changed:
                        gathered.append(room)
                elif race.state is RaceState.FINISHED:
                    ended = race.ends_at
                    if ended and now - ended > FINISHED_KEPT_MS:
                        hosting.forget(race_id)
                        hosting.leases.held.discard(race_id)  # its lease went at a renewal
            if progress_pass:
                next_pass = loop.time() + longest
                if gathered:
                    await publisher.send_progress(gathered, now)
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


def _clock_deadline(race: Race) -> int | None:
    """When the race's clock changes its state: the end of its countdown, or its time
    limit while it runs (its progress is gathered apart)."""
    if race.state is RaceState.COUNTDOWN:
        return race.starts_at
    if race.state is RaceState.RUNNING:
        return race.ends_at
    return None
