"""Race leases in a real PostgreSQL: one holder at a time, renewed, taken over."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import pytest

from server.core.place import ALONE, Place
from server.core.race import RaceSettings
from server.store.leases import LeaseStore
from server.store.storage import Storage

LEASE = 0.4  # seconds: short, so a lease runs out within the test


@pytest.fixture
async def pool(migrated_database_url: str) -> AsyncIterator[asyncpg.Pool]:
    async with asyncpg.create_pool(migrated_database_url, min_size=1, max_size=4) as opened:
        yield opened


async def new_race(storage: Storage, place: Place = ALONE) -> int:
    creator = await storage.create_guest("Ann", "en")
    return await storage.create_race(
        creator.player_id, RaceSettings("klondike", {}), 8, "salt", "c", place
    )


async def test_one_holder_at_a_time_until_its_lease_runs_out(pool: asyncpg.Pool) -> None:
    race = await new_race(Storage(pool))
    first, second = LeaseStore(pool, "first"), LeaseStore(pool, "second")
    # Both try at once: exactly one holds it, and both are told which.
    holders = await asyncio.gather(first.take(race, LEASE), second.take(race, LEASE))
    assert holders[0] == holders[1] in ("first", "second")
    owner, other = (first, second) if holders[0] == "first" else (second, first)
    assert await owner.take(race, LEASE) == owner.holder  # taking again renews
    assert await owner.renew(LEASE) == {race}
    assert await other.renew(LEASE) == set()
    await asyncio.sleep(LEASE * 1.5)  # the owner stops renewing: its lease runs out
    assert await other.take(race, LEASE) == other.holder
    assert await owner.renew(LEASE) == set()  # the old owner learns it has lost it
    assert await owner.take(race, LEASE) == other.holder


async def test_a_dead_owners_races_go_home_first_then_to_anyone(pool: asyncpg.Pool) -> None:
    storage = Storage(pool)
    home, away = Place(0, 2), Place(1, 2)
    race = await new_race(storage, home)
    assert race % 2 == 0
    dead = LeaseStore(pool, "dead")
    assert await dead.take(race, LEASE) == "dead"
    stranger, heir = LeaseStore(pool, "stranger"), LeaseStore(pool, "heir")
    assert await stranger.take_orphans(LEASE, away) == []  # the lease is still live
    await asyncio.sleep(LEASE * 1.5)
    # Run out, but only just: the race's home takes it; another process would wait.
    assert await stranger.take_orphans(LEASE, away) == []
    assert await heir.take_orphans(LEASE, home) == [race]
    assert await dead.renew(LEASE) == set()
    # The heir dies too: after a lease and the grace of another, anyone takes it.
    await asyncio.sleep(LEASE * 2.5)
    assert await stranger.take_orphans(LEASE, away) == [race]


async def test_finished_races_leave_and_a_clean_stop_frees_every_lease(pool: asyncpg.Pool) -> None:
    storage = Storage(pool)
    done, running = await new_race(storage), await new_race(storage)
    leaving = LeaseStore(pool, "leaving")
    for race in (done, running):
        assert await leaving.take(race, 30) == "leaving"
    await pool.execute("update races set state = 'finished' where id = $1", done)
    assert await leaving.renew(30) == {running}
    await leaving.release()
    # Freed: another process takes it at once, though it is not the race's home.
    assert await LeaseStore(pool, "next").take_orphans(30, Place(1, 2)) == [running]
