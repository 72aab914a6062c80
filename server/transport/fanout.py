"""Race events between server processes: LISTEN/NOTIFY on a connection of its own.

The group commit sends notices naming each race with its last committed event:
``<origin>:<race id>:<last seq>,<race id>:<last seq>,...`` on ``solitaire_race_events``
(split in several notices only when long), in the transaction of a commit, for every
event committed since the last notices, at most every ``NOTICE_QUICK_SECONDS`` (10 ms)
under a light load and ``NOTICE_SECONDS`` (50 ms) under load, and on their own when no
commit comes by then (server/store/commit.py, ``Notices``). Each
process listens on a dedicated connection (a pooled one would be reset with
``UNLISTEN *`` on release), skips its own notices, and hands the others to
``RaceFollowing.catch_up``, which sends the stored events to the watchers connected here.

The same connection listens for reports (``solitaire_race_reports``, server/services/relay.py):
what other processes' players did in races this process owns, for ``RaceFollowing.reported``.

When the listening connection is lost (PostgreSQL restarted), it is opened again, with
growing pauses, until the database answers. Notices sent meanwhile are missed, so every
race watched here is then caught up from the database, as a notice naming it would
(a race with events of this process still in flight is left to their commit: it finds
the race changed, and the race is rebuilt from the database). A mirror's reports lost
with the connection are sent again by the mirror (server/services/relay.py).
"""

from __future__ import annotations

import asyncio
import itertools
from typing import TYPE_CHECKING, Any

import asyncpg
import msgspec
import structlog

from server.protocol.errors import ArenaError
from server.services import relay
from server.services.following import RaceFollowing
from server.services.hosting import RaceHosting
from server.store.commit import CHANNEL, RETRY_PAUSES
from server.store.pool import CONNECT_TIMEOUT, DATABASE_LOST

if TYPE_CHECKING:
    from asyncpg.pool import PoolConnectionProxy

log = structlog.get_logger(__name__)


# Events of one race read at once when catching up after the connection was lost; a
# race with more gets the rest with its next notice.
CATCH_UP_EVENTS = 500


class Fanout:
    """Listens for other processes' race events and passes them to the race service."""

    def __init__(
        self, database_url: str, hosting: RaceHosting, following: RaceFollowing, origin: str
    ) -> None:
        self._database_url = database_url
        self._hosting = hosting
        self._following = following
        self._origin = origin
        # (channel, payload) of each notice; None when the connection was lost.
        self._notices: asyncio.Queue[tuple[str, str] | None] = asyncio.Queue()
        self._connection: asyncpg.Connection | None = None

    async def start(self) -> None:
        """Open the listening connection (before the server accepts clients)."""
        connection = await asyncpg.connect(self._database_url, timeout=CONNECT_TIMEOUT)
        try:
            await connection.add_listener(CHANNEL, self._notice)
            await connection.add_listener(relay.CHANNEL, self._notice)
        except BaseException:
            connection.terminate()  # lost again at once: no socket left behind
            raise
        connection.add_termination_listener(self._lost)
        self._connection = connection

    def _lost(self, _conn: asyncpg.Connection[Any] | PoolConnectionProxy[Any]) -> None:
        self._notices.put_nowait(None)  # the connection ended: listen again

    async def _listen_again(self) -> None:
        """Open the listening connection again, as often as it takes."""
        if self._connection is not None:
            self._connection.terminate()
            self._connection = None
        for attempt in itertools.count():
            await asyncio.sleep(RETRY_PAUSES[min(attempt, len(RETRY_PAUSES) - 1)])
            try:
                await self.start()
            except DATABASE_LOST as err:
                if attempt == 0:
                    log.warning("fanout_lost", error=repr(err))
                continue
            log.info("fanout_listening_again", attempts=attempt + 1)
            await self._catch_up_all()
            return

    async def _catch_up_all(self) -> None:
        """Send on what other processes stored while no notice could reach this one."""
        notices = [
            (race_id, room.sent + CATCH_UP_EVENTS)
            for race_id, room in list(self._hosting.rooms.items())
            if room.seq == room.sent  # else events of ours in flight (module docstring)
        ]
        try:
            await self._following.catch_up(notices)
        except ArenaError as err:
            log.error("fanout_failed", races=len(notices), error=err.code)

    def _notice(
        self,
        _conn: asyncpg.Connection[Any] | PoolConnectionProxy[Any],
        _pid: int,
        channel: str,
        payload: object,
    ) -> None:
        self._notices.put_nowait((channel, str(payload)))

    async def run(self) -> None:
        """Pass the notices of other processes on, in order, until cancelled.

        The change notices that came in while the last were handled are merged into one
        catch-up (each race to its last event named): under load, when notices come
        faster than this process reads their events, it reads once for all of them.
        """
        try:
            while True:
                notice = await self._notices.get()
                if notice is None:
                    await self._listen_again()
                    continue
                channel, payload = notice
                if channel == relay.CHANNEL:
                    await self._reported(payload)
                    continue
                last: dict[int, int] = {}
                self._merge(payload, last)
                while not self._notices.empty():
                    queued = self._notices.get_nowait()
                    if queued is None:  # lost: catch up what was named, then listen again
                        await self._catch_up(last)
                        last = {}
                        await self._listen_again()
                        continue
                    channel, payload = queued
                    if channel == relay.CHANNEL:
                        await self._catch_up(last)  # events named before the reports
                        last = {}
                        await self._reported(payload)
                    else:
                        self._merge(payload, last)
                await self._catch_up(last)
        finally:
            if self._connection is not None:
                await self._connection.close()

    def _merge(self, payload: str, last: dict[int, int]) -> None:
        """Add a change notice of another process to ``last``: each race watched here
        with the last event named."""
        origin, _, races = payload.partition(":")
        if origin == self._origin:
            return
        rooms = self._hosting.rooms
        for pair in races.split(","):
            race, _, seq = pair.partition(":")
            race_id = int(race)
            if race_id in rooms and int(seq) > last.get(race_id, 0):  # else none watch it
                last[race_id] = int(seq)

    async def _catch_up(self, last: dict[int, int]) -> None:
        if not last:
            return
        try:
            await self._following.catch_up(list(last.items()))
        except ArenaError as err:
            log.error("fanout_failed", races=len(last), error=err.code)

    async def _reported(self, payload: str) -> None:
        """Reports of mirrors: the races owned here turn them into events."""
        try:
            reports = relay.decode(payload)
        except msgspec.ValidationError as err:
            log.error("report_unreadable", error=str(err))
            return
        await self._following.reported(reports)
