"""The race clock sends the progress left in many races a few races a commit.

On a busy host the clock finds hundreds of races with progress due at each pass. Sent
in one commit and one loop turn (eight frames a race), every move that came meanwhile
waited for all of it: that was the p99 of bench/load.py at 5,000 players
(docs/performance.md). The clock now sends it ``PROGRESS_PART`` races a commit, each
part numbered as it goes, and every race still gets its progress, in number order.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator

import pytest
from hand_clock import Clock, services_on

from server import protocol as p
from server.ops.config import ServerConfig
from server.services.race_clock import PROGRESS_PART
from server.services.wiring import Services

START = 1_800_000_000_000
INTERVAL_MS = 250
RACES = 2 * PROGRESS_PART + 3


@pytest.fixture
def clock() -> Clock:
    return Clock(START)


@pytest.fixture
async def services(migrated_database_url: str, clock: Clock) -> AsyncIterator[Services]:
    # No lease keeper runs here: a lease long enough for a slow machine to seat every race
    # (else the process rightly numbers nothing once its leases are in doubt).
    config = ServerConfig(
        daily_prepare_ahead=False, progress_interval_ms=INTERVAL_MS, lease_seconds=120
    )
    async with services_on(migrated_database_url, clock, config) as services:
        yield services


async def progress_numbers(services: Services, races: list[int]) -> dict[int, list[int]]:
    """Each race's stored progress events, by number."""
    rows = await services.storage.pool.fetch(
        "select race_id, seq from race_events where race_id = any($1) and kind = 'progress'"
        " order by race_id, seq",
        races,
    )
    found: dict[int, list[int]] = {race: [] for race in races}
    for row in rows:
        found[row["race_id"]].append(row["seq"])
    return found


async def test_the_progress_left_in_many_races_goes_out_a_few_races_a_commit(
    services: Services, clock: Clock
) -> None:
    races: list[int] = []
    for n in range(RACES):
        who = await services.storage.create_guest(f"Racer {n}", "en")
        create = p.CreateRace(id=1, variant="klondike", seed=8, max_players=1, countdown_s=0)
        created = await services.races.create(who, create, None)
        race, game = created.race.race, created.race.your_game
        assert game is not None
        await services.races.start(who, p.StartRace(id=2, race=race))
        # The first move's progress goes out with it; the second's waits its interval.
        await services.play.move(who, p.Move(id=3, game=game, text="d"))
        await services.play.move(who, p.Move(id=4, game=game, text="d"))
        races.append(race)
    assert all(len(seqs) == 1 for seqs in (await progress_numbers(services, races)).values())

    clock.ms = START + INTERVAL_MS + 1
    await services.leases.renew()
    writes_before = services.metrics.commit_writes
    ticking = asyncio.create_task(services.race_clock.run())
    try:
        async with asyncio.timeout(20):
            while any(len(s) < 2 for s in (await progress_numbers(services, races)).values()):
                await asyncio.sleep(0.05)
    finally:
        ticking.cancel()
        await asyncio.gather(ticking, return_exceptions=True)

    found = await progress_numbers(services, races)
    assert all(len(seqs) == 2 and seqs[0] < seqs[1] for seqs in found.values()), found
    # One write to the group commit a part: not one for all races, not one a race.
    assert services.metrics.commit_writes - writes_before == math.ceil(RACES / PROGRESS_PART)
