"""Race events between server processes: LISTEN/NOTIFY on a connection of its own.

The group commit sends notices naming each race with its last committed event:
``<origin>:<race id>:<last seq>,<race id>:<last seq>,...`` on ``solitaire_race_events``
(split in several notices only when long), in the transaction of a commit, for every
event committed since the last notices, at most every ``NOTICE_QUICK_SECONDS`` (10 ms)
under a light load and ``NOTICE_SECONDS`` (50 ms) under load, and on their own when no
commit comes by then (server/store/commit.py, ``Notices``). Each
process listens on a dedicated connection (a pooled one would be reset with
``UNLISTEN *`` on release), skips its own notices, and hands the others to
``RaceService.catch_up``, which sends the stored events to the watchers connected here.

The same connection listens for reports (``solitaire_race_reports``, server/services/relay.py):
what other processes' players did in races this process owns, for ``RaceService.reported``.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import asyncpg
import msgspec
import structlog

from server.protocol.errors import ArenaError
from server.services import relay
from server.services.races import RaceService
from server.store.commit import CHANNEL

if TYPE_CHECKING:
    from asyncpg.pool import PoolConnectionProxy

log = structlog.get_logger(__name__)


class Fanout:
    """Listens for other processes' race events and passes them to the race service."""

    def __init__(self, database_url: str, races: RaceService, origin: str) -> None:
        self._database_url = database_url
        self._races = races
        self._origin = origin
        self._notices: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self._connection: asyncpg.Connection | None = None

    async def start(self) -> None:
        """Open the listening connection (before the server accepts clients)."""
        self._connection = await asyncpg.connect(self._database_url)
        await self._connection.add_listener(CHANNEL, self._notice)
        await self._connection.add_listener(relay.CHANNEL, self._notice)

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
                channel, payload = await self._notices.get()
                if channel == relay.CHANNEL:
                    await self._reported(payload)
                    continue
                last: dict[int, int] = {}
                self._merge(payload, last)
                while not self._notices.empty():
                    channel, payload = self._notices.get_nowait()
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
        rooms = self._races.rooms
        for pair in races.split(","):
            race, _, seq = pair.partition(":")
            race_id = int(race)
            if race_id in rooms and int(seq) > last.get(race_id, 0):  # else none watch it
                last[race_id] = int(seq)

    async def _catch_up(self, last: dict[int, int]) -> None:
        if not last:
            return
        try:
            await self._races.catch_up(list(last.items()))
        except ArenaError as err:
            log.error("fanout_failed", races=len(last), error=err.code)

    async def _reported(self, payload: str) -> None:
        """Reports of mirrors: the races owned here turn them into events."""
        try:
            reports = relay.decode(payload)
        except msgspec.ValidationError as err:
            log.error("report_unreadable", error=str(err))
            return
        await self._races.reported(reports)
