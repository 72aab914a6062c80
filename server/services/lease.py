"""Which races this process owns: their leases, taken, renewed and taken over.

A race's clock and event numbering have one owner at a time: the process holding the
race's lease in PostgreSQL (server/store/leases.py). The process that creates a race
takes it; a process asked about a race whose lease has run out takes it then. While it
lives, the holder renews its leases (one row of its own, however many races it holds)
every third of ``lease_seconds``; a process that stops cleanly gives them up. The
leases of a process that died run out, and then the race's home process
(server/core/place.py) takes them over at once, any other process one lease period
later (``run``), and rebuilds the race from the database.

Fenced: a lease runs out by the database's clock, ``lease_seconds`` after the holder's
last renewal; this process counts the same time from just before it sent that renewal,
by its own steady clock, so its count ends no later than the lease itself. Once it could
have ended (``good`` is false: the database was away, or this process stalled), the
process stops acting as the owner: its clock neither starts nor ends races, and a move
is committed and reported as on a mirror, with no event numbered, and that race is read
again from the database once a renewal has made the leases good again (those another
process took meanwhile are lost: ``renew`` names them).

When the event loop renews late (more load than the cores serve) while the leases are
still good, a thread of the process's own renews them (server/services/lease_keeper.py,
``late_in`` and ``kept_apart``): a slow loop is not a dead process.

Leases are short (``lease_seconds``, 1.5 s by default, renewed every third of it), so a
race whose owner died is taken over within about two seconds: once the dead holder's row
has run out, the race's home process takes it at once and any other after a third of a
lease more (the home, restarting, gets its own races back if it is quick).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import Awaitable, Callable

import structlog

from server.core.place import Place
from server.protocol.errors import ArenaError
from server.store.leases import LeaseStore

log = structlog.get_logger(__name__)

# Seconds taken off a lease's time for the rate at which two machines' clocks may drift
# apart over one lease (far less in practice).
DRIFT_SECONDS = 0.25


class RaceLeases:
    """The leases this process holds."""

    def __init__(self, store: LeaseStore, place: Place, seconds: float) -> None:
        self.store = store
        self.place = place
        self.seconds = seconds
        self.held: set[int] = set()
        # Each held race's fencing number (sql/0140_lease_fences.sql): its owner's event
        # rows carry it, and are stored only while the lease still has it.
        self._fences: dict[int, int] = {}
        self._alive = False  # renewed at least once
        # Until when (time.monotonic) this process's leases are surely good, and when the
        # last renewal that made them so was sent (by the loop or the lease keeper).
        self._good_until = -math.inf
        self._renewed_at = -math.inf
        # The lease keeper found the holder's row run out: the loop's next renewal asks
        # which races this process still holds (server/services/lease_keeper.py).
        self._lapse_unseen = False

    @property
    def period(self) -> float:
        """Seconds between renewals (and sweeps for races whose owner is gone)."""
        return self.seconds / 3

    def good(self) -> bool:
        """Whether this process's leases are surely still good: else it does not act as
        the owner of any race until a renewal succeeds."""
        return time.monotonic() < self._good_until

    def fence(self, race_id: int) -> int:
        """The fencing number this process holds the race's lease with (0: none known,
        which no lease has: its events are refused while the race has a lease)."""
        return self._fences.get(race_id, 0)

    @property
    def holder(self) -> str:
        """This process's name in the lease table."""
        return self.store.holder

    async def claim(self, race_id: int) -> bool:
        """Whether this process owns the race, taking it if nobody does."""
        if race_id in self.held:
            return True
        if not self._alive:
            await self.renew()  # a lease is good only while its holder's row is
        holder = await self.store.take(race_id)
        if holder != self.holder:
            return False
        fences = await self.store.fences([race_id])
        if race_id not in fences:
            return False  # taken by another meanwhile
        self._fences.update(fences)
        self.held.add(race_id)
        return True

    async def created(self, race_id: int) -> None:
        """This process created the race, and its lease with it."""
        self.held.add(race_id)
        self._fences.update(await self.store.fences([race_id]))

    def let_go(self, race_id: int) -> None:
        """The race is over here: its lease goes at the next renewal."""
        self.held.discard(race_id)
        self._fences.pop(race_id, None)

    async def take_orphans(self, limit: int = 100) -> list[int]:
        """Take the leases of unfinished races whose owner is gone; their ids."""
        race_ids = await self.store.take_orphans(self.period, self.place, limit)
        if race_ids:
            self._fences.update(await self.store.fences(race_ids))
            self.held.update(race_ids)
        return race_ids

    async def holder_for_new_race(self) -> str:
        """The holder a new race's lease is stored under, with the race itself
        (``Storage.create_race``): taken after the race's row, it could go to another
        process's sweep for orphans in between, and both would act as the owner."""
        if not self._alive:
            await self.renew()  # a lease is good only while its holder's row is
        return self.holder

    async def renew(self) -> set[int]:
        """Keep this process's leases good; the races it lost (taken over by others
        while its leases had run out)."""
        sent = time.monotonic()
        held, self._lapse_unseen = self._lapse_unseen, False
        try:
            kept = await self.store.renew(self.seconds, held)
        except BaseException:
            self._lapse_unseen = self._lapse_unseen or held
            raise
        self._alive = True
        self._renewed(sent)
        if kept is None:
            return set()
        gone = self.held - kept
        self.held -= gone
        for race_id in gone:
            self._fences.pop(race_id, None)
        return gone

    def _renewed(self, sent: float) -> None:
        """A renewal sent at ``sent`` (time.monotonic) succeeded: the leases are good for
        a lease from then, less the clocks' drift. Never moved back: the loop's renewal
        and the keeper's may end in either order."""
        self._renewed_at = max(self._renewed_at, sent)
        until = sent + self.seconds - min(DRIFT_SECONDS, self.seconds / 10)
        self._good_until = max(self._good_until, until)

    def late_in(self) -> float:
        """Seconds until the loop's renewal is late (half a period past due); 0 when it
        is late now while the leases are still good, and the lease keeper renews them.
        Never more than a period."""
        now = time.monotonic()
        late_at = self._renewed_at + self.period * 1.5
        if not self._alive or now >= self._good_until:
            return self.period  # nothing the keeper may do: look again later
        return min(self.period, max(0.0, late_at - now))

    def kept_apart(self, sent: float, lapsed: bool) -> None:
        """The lease keeper renewed the holder's row (from its own thread). Had the row
        run out (the clocks drifted past ``DRIFT_SECONDS``), the leases are not taken
        as good: the loop's next renewal learns first which races others took."""
        if lapsed:
            self._lapse_unseen = True
        else:
            self._renewed(sent)

    async def run(
        self,
        lost: Callable[[set[int]], None],
        taken: Callable[[list[int]], Awaitable[None]],
        check: Callable[[], Awaitable[None]],
    ) -> None:
        """Renew, and take over the races of processes that are gone, until cancelled.

        ``lost`` hears of races whose lease another process took; ``taken`` of races
        this process took over; ``check`` is called each time, to look for what reports
        lost with their sender did not say.
        """
        while True:
            await asyncio.sleep(self.period)
            with contextlib.suppress(ArenaError):  # the database is away: next time
                gone = await self.renew()
                if gone:
                    log.warning("leases_lost", races=sorted(gone))
                    lost(gone)
                orphans = await self.take_orphans()
                if orphans:
                    log.info("leases_taken_over", races=orphans)
                    await taken(orphans)
                await check()

    async def park(self, race_ids: list[int]) -> list[int]:
        """Stop owning these races until one is asked for again (server/store/leases.py,
        ``PARKED``); the ones parked. A database away parks none: this process keeps
        their leases, and takes them back when asked, as before."""
        for race_id in race_ids:
            self.let_go(race_id)
        try:
            return await self.store.park(race_ids)
        except ArenaError:
            return []

    async def release(self) -> None:
        """Give up every lease, so another process takes the races over at once."""
        with contextlib.suppress(ArenaError):
            await self.store.release()
        self.held.clear()
        self._fences.clear()
