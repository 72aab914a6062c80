"""The standings coalescer: a burst of events becomes few edits, the last state always shown."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections import Counter
from typing import Any

from discord_fakes import FakeMessage, until

from bot.coalesce import EditCoalescer
from bot.desk import RaceDesk
from server import protocol as p
from server.core.race import Race, RaceSettings


class TestBurst:
    def test_a_burst_costs_one_edit_now_and_one_after_the_interval(self) -> None:
        coalescer: EditCoalescer[int] = EditCoalescer(interval=2.0)
        edits: list[tuple[float, int]] = []
        now = 100.0
        for i in range(500):  # 500 progress events within one second
            coalescer.mark(7)
            now = 100.0 + i / 500
            edits += [(now, key) for key in coalescer.due(now)]
        assert edits == [(100.0, 7)]
        assert coalescer.pending
        wait = coalescer.next_due(now)
        assert wait is not None and abs(now + wait - 102.0) < 1e-9
        assert coalescer.due(101.9) == []
        assert coalescer.due(102.0) == [7]
        assert not coalescer.pending and coalescer.next_due(102.0) is None

    def test_edits_of_one_message_never_come_closer_than_the_interval(self) -> None:
        coalescer: EditCoalescer[str] = EditCoalescer(interval=1.5)
        times: dict[str, list[float]] = {"a": [], "b": []}
        for step in range(1000):
            now = step * 0.01
            coalescer.mark("a")
            if step % 3 == 0:
                coalescer.mark("b")
            for key in coalescer.due(now):
                times[key].append(now)
        for edited in times.values():
            assert len(edited) >= 6
            assert all(b - a >= 1.5 - 1e-9 for a, b in itertools.pairwise(edited))

    def test_messages_are_independent_and_can_be_forgotten(self) -> None:
        coalescer: EditCoalescer[int] = EditCoalescer(interval=5.0)
        coalescer.mark(1)
        assert coalescer.due(0.0) == [1]
        coalescer.mark(1)
        coalescer.mark(2)
        assert coalescer.due(1.0) == [2]
        assert coalescer.next_due(1.0) == 4.0
        coalescer.forget(1)
        assert coalescer.next_due(1.0) is None
        coalescer.mark(1)
        assert coalescer.due(1.0) == [1]  # forgotten: no interval to wait out


class TestChannelBudget:
    def test_races_sharing_a_channel_share_its_five_edits_per_five_seconds(self) -> None:
        """Four busy races in one channel: never more than 5 edits in any 5 s there (they
        made 12 when the budget was each race's), and every race is still edited."""
        coalescer: EditCoalescer[int] = EditCoalescer(interval=2.0)
        for race in (1, 2, 3, 4):
            coalescer.place(race, "channel")
        coalescer.place(5, "elsewhere")
        edits: list[tuple[float, int]] = []
        for step in range(3000):  # 30 s of progress events every 10 ms
            now = step * 0.01
            for race in (1, 2, 3, 4, 5):
                coalescer.mark(race)
            edits += [(now, race) for race in coalescer.due(now)]
        here = [t for t, race in edits if race != 5]
        for start in here:
            assert sum(start <= t < start + 5.0 for t in here) <= 5
        counts = Counter(race for _, race in edits)
        assert all(counts[race] >= 6 for race in (1, 2, 3, 4))  # none starves
        assert counts[5] == 15  # another channel keeps its own pace: every 2 s

    def test_a_busy_channel_waits_and_others_go_on(self) -> None:
        coalescer: EditCoalescer[int] = EditCoalescer(interval=1.0)
        coalescer.place(1, "a")
        coalescer.place(2, "b")
        coalescer.mark(1)
        coalescer.mark(2)
        assert coalescer.due(0.0, busy={"a"}) == [2]
        assert coalescer.next_due(0.0, busy={"a"}) is None  # "a" says when it is free
        assert coalescer.due(0.0) == [1]


def running_race(race: int, players: int) -> Race:
    """A running race in the server's own race core, which makes its events (and ranks)."""
    core = Race(
        race_id=race,
        creator_id=1,
        settings=RaceSettings(variant="spider-1", options={}, start_mode="now", countdown_ms=0),
        seed=1,
        salt="ab",
    )
    for player in range(1, players + 1):
        core.join(player, f"P{player}", f"guest:{player}", game_id=player)
    core.open(now=1_000)
    return core


def race_info(core: Race) -> p.RaceInfo:
    """The race's full state as the bot's client hands it to the desk."""
    return core.info(seq=1, viewer=None)


def progress(core: Race, seq: int, player: int, foundation: int) -> p.Event:
    """The progress event the server sends after ``player``'s move number ``seq``."""
    (body,) = core.progress(
        player, foundation=foundation, moves=seq, score=0, won=False, now=1_000 + seq
    )
    return p.Event(race=core.race_id, seq=seq, time=1_000 + seq, event=body)


class HeldClock:
    """A clock that moves only when the test moves it, for the desk's intervals."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class TestDesk:
    async def test_a_burst_of_events_becomes_one_edit_with_the_latest_standings(self) -> None:
        clock = HeldClock(1000.0)
        # The desk waits (really) until its clock says an edit is due: with the clock held,
        # a short interval makes it look again often, and only moving the clock lets it edit.
        desk = RaceDesk(interval=0.05, clock=clock)
        message = FakeMessage("")
        race = running_race(9, 3)
        desk.on_race(race_info(race))
        desk.attach(9, message, "en")
        runner = asyncio.create_task(desk.run())
        try:
            await until(lambda: message.edits == 1, "the first edit")
            sent = [progress(race, seq, 1 + seq % 3, seq // 10) for seq in range(2, 502)]
            for event in sent:  # 500 events arrive between two turns of the loop
                desk.on_event(event)
            # Within the interval the burst waits: marked, not due, not edited.
            wait = desk.coalescer.next_due(clock())
            assert desk.coalescer.pending and wait is not None and wait > 0
            assert message.edits == 1
            clock.now += 1.0  # well past the interval
            await until(lambda: message.edits == 2, "the burst's edit")
            # Nothing more is dirty, so no later turn of the desk can edit again.
            assert not desk.coalescer.pending and desk.coalescer.next_due(clock()) is None
            assert message.edits == 2 and desk.edits == 2
            assert message.content.splitlines()[-3:] == [  # each player's last event
                "🥇1. P3: 50 cards home, 500 moves",
                "🥈2. P1: 50 cards home, 501 moves",
                "🥉3. P2: 49 cards home, 499 moves",
            ]
            desk.on_event(sent[298])  # old news (seq 300) arriving again
            clock.now += 1.0
            assert not desk.coalescer.pending  # not marked: nothing for the desk to edit
            assert message.edits == 2
        finally:
            runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await runner

    async def test_a_channel_stuck_in_a_rate_limit_wait_stalls_no_other(self) -> None:
        """One channel's edit hangs (discord.py sleeping out a 429): a race in another
        channel is still edited, and the stuck race's latest state goes out after."""
        desk = RaceDesk(interval=0.01)
        stuck, free = FakeMessage(""), FakeMessage("")
        release = asyncio.Event()
        edit = stuck.edit

        async def slow_edit(**kwargs: Any) -> FakeMessage:
            await release.wait()
            return await edit(**kwargs)

        stuck.edit = slow_edit  # type: ignore[method-assign]
        first, second = running_race(1, 2), running_race(2, 2)
        desk.on_race(race_info(first))
        desk.on_race(race_info(second))
        desk.attach(1, stuck, "en", channel=100)
        desk.attach(2, free, "en", channel=200)
        runner = asyncio.create_task(desk.run())
        try:
            await until(lambda: free.edits == 1, "the free channel's first edit")
            for seq in range(2, 6):
                desk.on_event(progress(first, seq, 1, seq))
                desk.on_event(progress(second, seq, 1, seq))
                await until(lambda s=seq: free.edits == s, "the free channel goes on")
            assert stuck.edits == 0
            release.set()
            await until(lambda: "5 cards home, 5 moves" in stuck.content, "the latest state")
        finally:
            runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await runner

    async def test_the_desk_stops_when_an_event_comes_as_it_is_cancelled(self) -> None:
        """The bot's stop (and every test's teardown) cancels the desk: an event marked in
        the same turn must not swallow the cancel and keep the desk running forever."""
        clock = HeldClock(1000.0)  # held: a marked race stays not yet due
        desk = RaceDesk(interval=0.05, clock=clock)
        message = FakeMessage("")
        race = running_race(4, 2)
        desk.on_race(race_info(race))
        desk.attach(4, message, "en")
        runner = asyncio.create_task(desk.run())
        await until(lambda: message.edits == 1, "the first edit")
        desk.on_event(progress(race, 2, 1, 3))  # marked: the desk waits with a timeout
        await asyncio.sleep(0.01)
        desk.on_event(progress(race, 3, 2, 3))  # sets the wake event...
        runner.cancel()  # ...in the same turn as the cancel
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(runner, 5)
        assert runner.cancelled()
