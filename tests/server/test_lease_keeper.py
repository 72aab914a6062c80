"""The lease keeper in a real PostgreSQL: a slow event loop keeps its races, a stuck one
loses them, and a lapse the keeper finds is learnt by the loop before it acts as owner."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Iterator

import asyncpg
import pytest
from test_race_leases import new_race, run_out

from server.core.place import ALONE
from server.services.lease import RaceLeases
from server.services.lease_keeper import LeaseKeeper
from server.store.leases import LeaseStore, renew_holder
from server.store.storage import Storage

# Seconds: blocking the loop for a few leases takes a few seconds, and each of the
# keeper's renewals may take a period (a third of it): on a CI machine running the suite
# four tests at a time, a lease of 1.2 s once saw a renewal take longer than its 0.4 s.
LEASE = 3.0


@pytest.fixture
async def pool(migrated_database_url: str) -> AsyncIterator[asyncpg.Pool]:
    async with asyncpg.create_pool(migrated_database_url, min_size=1, max_size=4) as opened:
        yield opened


async def owner_of_a_race(pool: asyncpg.Pool) -> tuple[RaceLeases, LeaseStore, int]:
    """A process ("slow") holding a race's lease, and another ("other") alive beside it."""
    race = await new_race(Storage(pool))
    leases = RaceLeases(LeaseStore(pool, "slow"), ALONE, LEASE)
    assert await leases.claim(race)
    other = LeaseStore(pool, "other")
    assert await other.renew(60) == set()
    return leases, other, race


@contextlib.contextmanager
def keeping(leases: RaceLeases, database_url: str, stall_seconds: float) -> Iterator[LeaseKeeper]:
    """The lease keeper's thread running for ``leases`` until the block ends."""
    keeper = LeaseKeeper(leases, database_url, stall_seconds=stall_seconds)
    keeper.start()
    try:
        yield keeper
    finally:
        keeper.stop()


async def test_a_loop_held_for_several_leases_keeps_its_races(
    pool: asyncpg.Pool, migrated_database_url: str
) -> None:
    leases, other, race = await owner_of_a_race(pool)
    with keeping(leases, migrated_database_url, stall_seconds=30) as keeper:
        time.sleep(LEASE * 4)  # the loop is held: neither its renewal nor its beat runs
        assert leases.good()
        assert keeper.renewals >= 2
        assert await other.take(race) == "slow"


async def test_a_loop_stuck_past_the_stall_limit_loses_its_races(
    pool: asyncpg.Pool, migrated_database_url: str
) -> None:
    leases, other, race = await owner_of_a_race(pool)
    with keeping(leases, migrated_database_url, stall_seconds=LEASE):
        time.sleep(LEASE * 5)  # the beat stops: the keeper renews no more after LEASE
        assert not leases.good()
        assert await other.take(race) == "other"
    assert await leases.renew() == {race}  # the loop, back, learns what it lost


async def test_a_loop_that_keeps_time_needs_no_keeper(
    pool: asyncpg.Pool, migrated_database_url: str
) -> None:
    leases, _, _ = await owner_of_a_race(pool)
    with keeping(leases, migrated_database_url, stall_seconds=30) as keeper:
        for _ in range(8):  # the loop renews every period itself, as ``run`` does
            await leases.renew()
            time.sleep(leases.period / 2)
        assert keeper.renewals == 0


async def test_a_lapse_the_keeper_finds_is_learnt_before_the_loop_acts_as_owner(
    pool: asyncpg.Pool, migrated_database_url: str
) -> None:
    leases, other, race = await owner_of_a_race(pool)
    time.sleep(LEASE)  # the process stalled, keeper and all...
    await run_out(pool, leases.store, 1)
    assert await other.take(race) == "other"  # ...and another took its race
    # The keeper's renewal (the loop still late) finds the row run out: the leases stay
    # in doubt...
    connection = await asyncpg.connect(migrated_database_url)
    try:
        sent = time.monotonic()
        leases.kept_apart(sent, await renew_holder(connection, "slow", LEASE))
    finally:
        await connection.close()
    assert not leases.good()
    # ...and the loop's next renewal, which finds the row good, still names the race lost.
    assert await leases.renew() == {race}
    assert race not in leases.held
    assert leases.good()
