"""The daily archive (``daily_archive``): the past days with a deal, through the services
on a real PostgreSQL with the server clock set by hand, and once over a real socket."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import date, timedelta

import pytest
from arena_client import Connect
from hand_clock import Clock, services_on
from test_daily import deal, guest

from server import protocol as p
from server.core.calendar import closes_at_ms, day_start_ms
from server.protocol.errors import GameError
from server.services.wiring import Services
from server.transport.app import ArenaServer

DAY = date(2026, 3, 14)
LIMIT_MS = 3_600_000


@pytest.fixture
def clock() -> Clock:
    return Clock(day_start_ms(DAY) + 30 * 60_000)  # 00:30 UTC: yesterday is not closed yet


@pytest.fixture
async def services(migrated_database_url: str, clock: Clock) -> AsyncIterator[Services]:
    async with services_on(migrated_database_url, clock) as services:
        yield services


async def test_past_days_newest_first_with_the_players_own_ranked_attempt(
    services: Services, clock: Clock
) -> None:
    ada = await guest(services, "Ada")
    bob = await guest(services, "Bob")
    for back in (3, 2, 1, 0):
        await deal(services, DAY - timedelta(days=back))
    await deal(services, DAY - timedelta(days=2), variant="yukon")
    # Ada and Bob played three days ago, Bob two days ago; Bob's later attempt is practice.
    three_ago = DAY - timedelta(days=3)
    clock.ms = day_start_ms(three_ago) + 3_600_000
    ada_attempt = await services.dailies.start(ada, p.DailyStart(variant="klondike"))
    await services.play.resign(ada, p.Resign(game=ada_attempt.game))
    await services.dailies.start(bob, p.DailyStart(variant="klondike"))
    clock.ms = day_start_ms(DAY - timedelta(days=2)) + 3_600_000
    await services.dailies.start(bob, p.DailyStart(variant="klondike"))
    await services.dailies.start(bob, p.DailyStart(variant="klondike"))
    clock.ms = day_start_ms(DAY) + 30 * 60_000

    reply = await services.archive.days(ada, p.DailyArchive(id=1, variant="klondike"))
    assert reply.variant == "klondike"
    assert [d.date for d in reply.days] == [
        (DAY - timedelta(days=n)).isoformat() for n in (1, 2, 3)
    ]  # today's deal is not in the archive
    yesterday, two_ago, three = reply.days
    # Yesterday's deal is live until 01:00 today (its last attempt's play time).
    assert not yesterday.closed and yesterday.closes_at == closes_at_ms(
        DAY - timedelta(1), LIMIT_MS
    )
    assert two_ago.closed and three.closed
    assert [d.players for d in reply.days] == [0, 1, 2]
    assert yesterday.yours is None and two_ago.yours is None
    assert three.yours is not None
    assert (three.yours.game, three.yours.status, three.yours.moves) == (
        ada_attempt.game,
        "resigned",
        0,
    )
    assert [d.solution_length for d in reply.days] == [100, 100, 100]

    # Pages: the newest first, then before a day.
    first = await services.archive.days(ada, p.DailyArchive(variant="klondike", limit=1))
    assert [d.date for d in first.days] == [yesterday.date]
    older = await services.archive.days(
        ada, p.DailyArchive(variant="klondike", before=two_ago.date)
    )
    assert [d.date for d in older.days] == [three.date]
    # A day after today names no future deal.
    later = (DAY + timedelta(days=5)).isoformat()
    ahead = await services.archive.days(ada, p.DailyArchive(variant="klondike", before=later))
    assert [d.date for d in ahead.days] == [d.date for d in reply.days]
    # Each variant has its own days.
    yukon = await services.archive.days(ada, p.DailyArchive(variant="yukon"))
    assert [d.date for d in yukon.days] == [two_ago.date]
    spider = await services.archive.days(ada, p.DailyArchive(variant="spider-4"))
    assert spider.days == []


async def test_a_variant_without_dailies_or_a_date_that_does_not_exist_is_refused(
    services: Services,
) -> None:
    ada = await guest(services)
    with pytest.raises(GameError) as refused:
        await services.archive.days(ada, p.DailyArchive(variant="russian"))
    assert refused.value.code == "invalid_options"
    with pytest.raises(GameError) as refused:
        await services.archive.days(ada, p.DailyArchive(variant="klondike", before="2026-02-30"))
    assert refused.value.code == "invalid_options"


async def test_over_a_socket(server: ArenaServer, connect: Connect) -> None:
    ada = await connect(name="Ada")
    reply = await ada.ok("daily_archive", variant="klondike", limit=5)
    assert reply == {"type": "daily_days", "id": reply["id"], "variant": "klondike", "days": []}
    await ada.error("daily_archive", "invalid_message", variant="klondike", limit=0)
    await ada.error("daily_archive", "invalid_options", variant="alaska")
