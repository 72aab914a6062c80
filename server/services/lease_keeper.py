"""The leases renewed apart from the event loop while the loop is slow but alive.

A process renews its leases from its event loop (server/services/lease.py). Under more
load than its cores can serve, the loop falls behind by seconds: in bench/load.py at
6,000 players on two cores a worker's renewal came after its lease (1.5 s) had run out,
the other worker took its races over, fell behind the same way and lost them back, and
the host spent itself moving races between its workers (136 moves a second, PostgreSQL
at 5 ms a move). A process whose loop is late is not dead; its moves are only slow.

So a thread of its own, with a database connection of its own, renews the holder's row
when the loop's renewal is late, as long as the loop still shows life: a beat at least
every ``stall_seconds``. A process that dies still loses its races within a lease (the
thread dies with it), and one whose loop is stuck for good loses them ``stall_seconds``
later. The thread renews only while the leases are still good: once they could have run
out (the database away, the whole process stopped), the loop's own renewal learns which
races others took before this process acts as their owner again, as before.
"""

from __future__ import annotations

import asyncio
import threading
import time

import asyncpg
import structlog

from server.services.lease import RaceLeases
from server.store.leases import renew_holder
from server.store.pool import DATABASE_LOST

log = structlog.get_logger(__name__)


class LeaseKeeper:
    """Renews ``leases`` from a thread when the event loop is late (``start``, ``stop``)."""

    def __init__(self, leases: RaceLeases, database_url: str, stall_seconds: float) -> None:
        self._leases = leases
        self._url = database_url
        self._stall = stall_seconds
        self._beat = time.monotonic()
        self._beating: asyncio.TimerHandle | None = None
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.renewals = 0  # made by the keeper: each one a renewal the loop was late for

    def start(self) -> None:
        """Beat on the running loop and start the thread."""
        self._beat_on(asyncio.get_running_loop())
        self._thread = threading.Thread(target=self._run, name="lease-keeper", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop beating and renewing (before the leases are given up at a clean stop)."""
        if self._beating is not None:
            self._beating.cancel()
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=self._leases.seconds * 2)

    def _beat_on(self, loop: asyncio.AbstractEventLoop) -> None:
        self._beat = time.monotonic()
        self._beating = loop.call_later(self._leases.period / 2, self._beat_on, loop)

    def _run(self) -> None:
        asyncio.run(self._keep())  # a loop of the thread's own, for its connection

    async def _keep(self) -> None:
        leases = self._leases
        connection: asyncpg.Connection | None = None
        try:
            # It wakes when the loop's renewal would be late (about twice a lease), so
            # that its thread takes the interpreter from the loop as seldom as it can.
            while not self._stopping.wait(max(leases.late_in(), leases.period / 8)):
                if leases.late_in() > 0 or time.monotonic() - self._beat > self._stall:
                    continue
                try:
                    if connection is None:
                        connection = await asyncpg.connect(self._url, timeout=leases.period)
                    sent = time.monotonic()
                    async with asyncio.timeout(leases.period):
                        lapsed = await renew_holder(connection, leases.holder, leases.seconds)
                except (*DATABASE_LOST, asyncpg.PostgresError, TimeoutError) as err:
                    log.warning("lease_keeper_failed", error=repr(err))
                    if connection is not None:
                        connection.terminate()
                        connection = None
                    continue
                leases.kept_apart(sent, lapsed)
                self.renewals += 1
                log.info(
                    "leases_kept_for_a_late_loop",
                    lapsed=lapsed,
                    beat_ago=round(sent - self._beat, 3),
                )
        finally:
            if connection is not None:
                connection.terminate()
