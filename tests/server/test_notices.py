"""Change notices between server processes (server/store/commit.py, ``Notices``): the events
committed within ``NOTICE_SECONDS`` share one notice, and none is lost when no commit
follows. Against a real PostgreSQL, listening as another server process does."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import asyncpg
import pytest

from server.ops.metrics import Metrics
from server.store import commit
from server.store.commit import (
    CHANNEL,
    NOTICE_QUICK_SECONDS,
    NOTICE_SECONDS,
    EventRow,
    GroupCommitter,
    Notices,
)


def event(race: int, seq: int) -> EventRow:
    return EventRow(race, seq, "progress", '{"standings": []}', datetime.now(UTC))


def test_notices_wait_until_due_and_keep_the_last_event_of_each_race() -> None:
    notices = Notices("me")
    notices.settle({}, sent=True, now=5.0)  # a commit without events sends nothing
    assert notices.due(5.0)
    texts, last = notices.plan([event(1, 1), event(2, 4)], due=True)
    assert texts == ["me:1:1,2:4"]
    notices.settle(last, sent=True, now=10.0)
    assert not notices.waiting and not notices.due(10.0 + NOTICE_SECONDS / 2)
    # Not due: nothing sent, the races wait with their last event.
    texts, last = notices.plan([event(1, 2), event(1, 3)], due=False)
    assert texts == []
    notices.settle(last, sent=False, now=10.01)
    assert notices.waiting == {1: 3}
    # Due again: one notice names what waited and the commit's own races.
    texts, last = notices.plan([event(3, 1)], due=notices.due(10.0 + NOTICE_SECONDS))
    assert texts == ["me:1:3,3:1"]
    notices.settle(last, sent=True, now=10.0 + NOTICE_SECONDS)
    assert notices.waiting == {}


def test_notices_gather_for_the_longer_time_only_under_load() -> None:
    notices = Notices("me")
    _, last = notices.plan([event(1, 1)], due=True)
    notices.settle(last, sent=True, now=10.0)
    soon = 10.0 + NOTICE_QUICK_SECONDS * 1.5
    # Few writes waiting: the next commit's events go out after the short gap ...
    assert notices.due(soon, light=True)
    # ... under load they wait for the long one.
    assert not notices.due(soon, light=False)
    assert notices.due(10.0 + NOTICE_SECONDS, light=False)
    assert not notices.due(10.0 + NOTICE_QUICK_SECONDS / 2, light=True)


def test_a_long_notice_is_split_below_postgresqls_limit() -> None:
    texts, _ = Notices("me").plan([event(race, 1) for race in range(1, 3000)], due=True)
    assert len(texts) > 1 and all(len(text) < 8000 for text in texts)
    named = [pair for text in texts for pair in text.removeprefix("me:").split(",")]
    assert len(named) == 2999


class HeldClock:
    """The time the test says it is."""

    def __init__(self) -> None:
        self.now = 0.0


def notices_on(clock: HeldClock) -> type[Notices]:
    """``Notices`` that read ``clock`` instead of the committer's event loop, so whether a
    commit's notices are due depends on the test, not on the machine's speed."""

    class HeldNotices(Notices):
        def due(self, now: float, light: bool = False) -> bool:
            return super().due(clock.now, light)

        def settle(self, last: dict[int, int], sent: bool, now: float) -> None:
            super().settle(last, sent, clock.now)

    return HeldNotices


async def test_events_committed_in_quick_succession_are_all_noticed(
    migrated_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = HeldClock()
    monkeypatch.setattr(commit, "Notices", notices_on(clock))
    received: list[str] = []
    listener = await asyncpg.connect(migrated_database_url)
    await listener.add_listener(CHANNEL, lambda *args: received.append(str(args[3])))
    async with asyncpg.create_pool(migrated_database_url, min_size=1, max_size=3) as pool:
        creator = await pool.fetchval(
            "insert into players (principal, display_name) values ('guest:x', 'X') returning id"
        )
        race_ids = [
            await pool.fetchval(
                "insert into races (creator_id, variant, seed, salt, commitment, max_players, "
                "start_mode, countdown_s, allow_undo, allow_hints) "
                "values ($1, 'klondike', 1, 's', 'c', 1, 'now', 0, true, false) returning id",
                creator,
            )
            for _ in range(2)
        ]
        committer = GroupCommitter(pool, Metrics())
        running = asyncio.create_task(committer.run())
        first, second = race_ids
        await committer.submit(events=[event(first, 1)])  # noticed at once
        # The clock stands still: within NOTICE_SECONDS of that notice, these two wait.
        await committer.submit(events=[event(first, 2), event(second, 1)])
        await committer.submit(events=[event(second, 2)])
        clock.now += NOTICE_SECONDS
        for _ in range(100):  # no commit follows: the committer sends them on its own
            if any(f"{second}:2" in text for text in received):
                break
            await asyncio.sleep(NOTICE_SECONDS)
        committer.close()
        await running
    await listener.close()
    pairs = {pair for text in received for pair in text.split(":", 1)[1].split(",")}
    assert f"{first}:1" in pairs and f"{first}:2" in pairs and f"{second}:2" in pairs
    assert all(text.startswith(committer.origin + ":") for text in received)
    # One notice with the first commit; one for the waiting races, each with its last event.
    origin = committer.origin
    assert received == [f"{origin}:{first}:1", f"{origin}:{first}:2,{second}:2"]
