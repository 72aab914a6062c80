"""A move that comes as a race's countdown runs out is played, whenever the clock task runs.

The soak (issue #19) met ``not_started`` for moves sent right after a race's start on a
busy server: the countdown had run out, but the race's clock task had not yet got to it.
The race's owner now starts such a race on the move's way. These tests run the server's
services with the clock set by hand and no clock task at all, so only the move's own
path can start the race.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from hand_clock import Clock, services_on

from server import protocol as p
from server.core.identity import Principal
from server.ops.config import ServerConfig
from server.protocol.errors import RaceError
from server.services.wiring import Services

START = 1_800_000_000_000
COUNTDOWN_S = 5


@pytest.fixture
def clock() -> Clock:
    return Clock(START)


@pytest.fixture
async def services(migrated_database_url: str, clock: Clock) -> AsyncIterator[Services]:
    async with services_on(migrated_database_url, clock) as services:
        yield services


async def counted_down_race(services: Services, who: Principal) -> tuple[int, int]:
    """A race of one in its countdown: its id and the player's game."""
    create = p.CreateRace(id=1, variant="klondike", seed=8, max_players=1, countdown_s=COUNTDOWN_S)
    created = await services.races.create(who, create, None)
    race, game = created.race.race, created.race.your_game
    assert game is not None
    started = await services.races.start(who, p.StartRace(id=2, race=race))
    assert started.race.state == "countdown"
    return race, game


async def test_a_move_as_the_countdown_runs_out_starts_the_race(
    services: Services, clock: Clock
) -> None:
    ann = await services.storage.create_guest("Ann", "en")
    race, game = await counted_down_race(services, ann)
    with pytest.raises(RaceError) as refused:
        await services.play.move(ann, p.Move(id=3, game=game, text="d"))
    assert refused.value.code == "not_started"

    clock.ms = START + COUNTDOWN_S * 1000 + 1
    played = await services.play.move(ann, p.Move(id=4, game=game, text="d"))
    assert played.view["counters"]["moves"] == 1
    # The start is the race's, stored at the countdown's end, before the move counted.
    rows = await services.storage.pool.fetch(
        "select kind, body from race_events where race_id = $1 order by seq", race
    )
    kinds = [row["kind"] for row in rows]
    assert kinds[kinds.index("countdown") + 1] == "start"
    state = await services.races.get(ann, p.GetRace(id=5, race=race), None)
    assert state.race.state == "running"
    assert state.race.starts_at == START + COUNTDOWN_S * 1000


async def test_a_start_made_while_the_leases_were_in_doubt_is_told_once_they_are_good(
    migrated_database_url: str, clock: Clock
) -> None:
    """A process whose leases could have run out (it did not renew in time: a stalled
    process) numbers no event: its start is stored and reported to the owner, which, for
    a process alone, is nobody. Once its leases are good again and it reads the race
    again, the start is told: else the racers would wait for it for ever."""
    config = ServerConfig(daily_prepare_ahead=False, lease_seconds=0.3)
    async with services_on(migrated_database_url, clock, config) as services:
        ann = await services.storage.create_guest("Ann", "en")
        create = p.CreateRace(id=1, variant="klondike", seed=8, max_players=1, countdown_s=0)
        race = (await services.races.create(ann, create, None)).race.race
        await asyncio.sleep(0.5)  # no renewal meanwhile: the leases are in doubt
        assert not services.leases.good()
        started = await services.races.start(ann, p.StartRace(id=2, race=race))
        assert started.race.state == "running"
        assert "start" not in await event_kinds(services, race)
        await services.leases.renew()
        state = await services.races.get(ann, p.GetRace(id=3, race=race), None)
        assert state.race.state == "running"
        kinds = await event_kinds(services, race)
        assert kinds.count("start") == 1, kinds


async def event_kinds(services: Services, race: int) -> list[str]:
    """The kinds of the race's stored events, in order."""
    rows = await services.storage.pool.fetch(
        "select kind from race_events where race_id = $1 order by seq", race
    )
    return [row["kind"] for row in rows]
