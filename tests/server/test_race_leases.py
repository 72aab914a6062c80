"""Race leases in a real PostgreSQL: one holder at a time, renewed, taken over."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import asyncpg
import pytest

from server.core.place import ALONE, Place
from server.core.race import RaceSettings
from server.core.session import MoveRow
from server.ops.metrics import Metrics
from server.protocol.errors import ConflictError
from server.store.commit import GroupCommitter
from server.store.commit_rows import EventRow
from server.store.leases import LeaseStore
from server.store.storage import Storage
from server.store.writes import Statement

# Seconds. Long, so no lease runs out by itself while a test runs on a busy machine; a
# test makes a holder's time run out by moving its expiry into the past (``run_out``).
LEASE = 60.0


@pytest.fixture
async def pool(migrated_database_url: str) -> AsyncIterator[asyncpg.Pool]:
    async with asyncpg.create_pool(migrated_database_url, min_size=1, max_size=4) as opened:
        yield opened


async def new_race(storage: Storage, place: Place = ALONE) -> int:
    creator = await storage.create_guest("Ann", "en")
    return await storage.create_race(
        creator.player_id, RaceSettings("klondike", {}), 8, "salt", "c", place
    )


async def alive(pool: asyncpg.Pool, holder: str) -> LeaseStore:
    store = LeaseStore(pool, holder)
    assert await store.renew(LEASE) == set()  # a first renewal: it holds nothing yet
    return store


async def run_out(pool: asyncpg.Pool, store: LeaseStore, seconds_ago: float) -> None:
    """The holder stops renewing: its leases ran out ``seconds_ago``."""
    await pool.execute(
        "update lease_holders set expires_at = now() - $2 * interval '1 second' where holder = $1",
        store.holder,
        seconds_ago,
    )


async def test_one_holder_at_a_time_until_it_stops_renewing(pool: asyncpg.Pool) -> None:
    race = await new_race(Storage(pool))
    first, second = await alive(pool, "first"), await alive(pool, "second")
    # Both try at once: exactly one holds it, and both are told which.
    holders = await asyncio.gather(first.take(race), second.take(race))
    assert holders[0] == holders[1] in ("first", "second")
    owner, other = (first, second) if holders[0] == "first" else (second, first)
    assert await owner.take(race) == owner.holder
    assert await owner.renew(LEASE) is None  # renewed in time: it holds what it held
    await run_out(pool, owner, 1)  # the owner stops renewing: its leases run out
    assert await other.renew(LEASE) is None  # the other renews: its own stayed good
    assert await other.take(race) == other.holder
    # The old owner renews late and learns which races it has lost.
    assert await owner.renew(LEASE) == set()
    assert await owner.take(race) == other.holder


async def test_a_late_renewal_keeps_what_nobody_took(pool: asyncpg.Pool) -> None:
    storage = Storage(pool)
    race = await new_race(storage)
    slow = await alive(pool, "slow")
    assert await slow.take(race) == "slow"
    await run_out(pool, slow, 1)
    assert await slow.renew(LEASE) == {race}


async def test_a_dead_owners_races_go_home_first_then_to_anyone(pool: asyncpg.Pool) -> None:
    storage = Storage(pool)
    home, away = Place(0, 2), Place(1, 2)
    race = await new_race(storage, home)
    assert race % 2 == 0
    dead = await alive(pool, "dead")
    assert await dead.take(race) == "dead"
    stranger, heir = await alive(pool, "stranger"), await alive(pool, "heir")
    assert await stranger.take_orphans(LEASE, away) == []  # its holder still lives
    await run_out(pool, dead, 1)
    # Run out, but only just: the race's home takes it; another process would wait.
    assert await stranger.take_orphans(LEASE, away) == []
    assert await heir.take_orphans(LEASE, home) == [race]
    assert await dead.renew(LEASE) == set()
    # The heir dies too: after a lease and the grace of another, anyone takes it.
    await run_out(pool, heir, LEASE + 1)
    assert await stranger.take_orphans(LEASE, away) == [race]


async def test_finished_races_leave_and_a_clean_stop_frees_every_lease(pool: asyncpg.Pool) -> None:
    storage = Storage(pool)
    done, running = await new_race(storage), await new_race(storage)
    leaving = LeaseStore(pool, "leaving")
    assert await leaving.renew(30) == set()
    for race in (done, running):
        assert await leaving.take(race) == "leaving"
    await pool.execute("update races set state = 'finished' where id = $1", done)
    assert await leaving.renew(30) is None
    assert await pool.fetchval("select count(*) from race_leases") == 1
    await leaving.release()
    # Freed: another process takes it at once, though it is not the race's home.
    assert await (await alive(pool, "next")).take_orphans(30, Place(1, 2)) == [running]
    assert await pool.fetchval("select count(*) from lease_holders") == 1


async def test_a_new_race_is_held_by_its_creator_from_its_first_moment(pool: asyncpg.Pool) -> None:
    """The race and its lease are one statement: a sweep for orphans that runs as the race
    is created never finds it without an owner (two processes would both act as it)."""
    storage = Storage(pool)
    creator, sweeper = await alive(pool, "creator"), await alive(pool, "sweeper")
    player = await storage.create_guest("Ann", "en")
    race = await storage.create_race(
        player.player_id, RaceSettings("klondike", {}), 8, "s", "c", ALONE, holder="creator"
    )
    assert await sweeper.take_orphans(LEASE, ALONE) == []
    assert await sweeper.take(race) == "creator"
    assert await creator.take(race) == "creator"
    # Without a holder the race is an orphan at once, and the first sweep takes it.
    orphan = await new_race(storage)
    assert await sweeper.take_orphans(LEASE, ALONE) == [orphan]


TOUCH_RACE = "update races set version = version where id = $1 returning id"


async def test_a_write_under_an_old_fence_keeps_its_moves_and_loses_its_events(
    pool: asyncpg.Pool,
) -> None:
    """An owner that lost its race without knowing it yet: its player's move is committed
    (no false ``conflict``), the events it numbered are not (they are the new owner's)."""
    race = await new_race(Storage(pool))
    first, second = await alive(pool, "first"), await alive(pool, "second")
    assert await first.take(race) == "first"
    old = (await first.fences([race]))[race]
    await run_out(pool, first, 1)
    assert await second.take(race) == "second"
    new = (await second.fences([race]))[race]
    assert new != old and await first.fences([race]) == {}
    committer = GroupCommitter(pool, Metrics())
    task = asyncio.create_task(committer.run())
    try:
        at = datetime.now(UTC)
        late = committer.submit(
            [MoveRow(7, 0, "d")], [EventRow(race, 1, "progress", "{}", at, old)]
        )
        assert await late is False
        with pytest.raises(ConflictError):  # the race changed: a statement's write fails
            await committer.submit(
                [MoveRow(7, 1, "d")],
                [EventRow(race, 1, "start", "{}", at, old)],
                [
                    Statement(
                        "update races set version = version where id = $1 returning id",
                        (race,),
                        True,
                    )
                ],
            )
        assert await committer.submit((), [EventRow(race, 1, "progress", "{}", at, new)]) is True
    finally:
        committer.close()
        await task
    assert await pool.fetchval("select count(*) from moves where game_id = 7") == 1
    assert await pool.fetchval("select count(*) from race_events where race_id = $1", race) == 1
