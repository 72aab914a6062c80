"""How a process holds a race, and what its clock does with it: no sockets, no database."""

from __future__ import annotations

import pytest

from server.core.hosting import (
    FINISHED_KEPT_MS,
    Hold,
    Hosting,
    HostingError,
    Step,
    clock_step,
    is_quiet,
)
from server.core.race import Race, RaceSettings

IDLE_MS = 300_000


def race(interval_ms: int = 0, **settings: object) -> Race:
    chosen = RaceSettings("klondike", {}, **settings)  # type: ignore[arg-type]
    made = Race(1, 10, chosen, seed=8, salt="s", progress_interval_ms=interval_ms)
    made.join(10, "Ann", "guest:10", game_id=100)
    made.join(20, "Bob", "guest:20", game_id=200)
    return made


def step(hosting: Hosting, r: Race, now: int, **given: bool) -> Step:
    facts = {"quiet": False, "watched": False, "busy": False, "lease_good": True}
    facts |= {"progress_due": False} | given
    return clock_step(hosting, r, now, **facts)


class TestHolds:
    def test_an_owner_falls_behind_fails_and_loses(self) -> None:
        hosting = Hosting.loaded(owned=True)
        assert hosting.owned and not hosting.stale
        hosting.fell_behind()
        assert hosting.hold is Hold.OWNER_BEHIND and hosting.owned and hosting.stale
        hosting.write_failed()
        assert hosting.hold is Hold.OWNER_FAILED and hosting.failed
        hosting.lost()
        assert hosting.hold is Hold.MIRROR_BEHIND and not hosting.owned

    def test_a_mirror_falls_behind_and_a_failed_write_does_the_same(self) -> None:
        hosting = Hosting.loaded(owned=False)
        assert not hosting.owned and not hosting.stale
        hosting.write_failed()
        assert hosting.hold is Hold.MIRROR_BEHIND and not hosting.failed
        hosting.lost()  # nothing to lose
        assert hosting.hold is Hold.MIRROR_BEHIND

    def test_only_a_current_owner_parks(self) -> None:
        hosting = Hosting.loaded(owned=True)
        hosting.park()
        assert hosting.hold is Hold.PARKING and hosting.stale and not hosting.owned
        with pytest.raises(HostingError, match="cannot park a race held as parking"):
            hosting.park()
        mirror = Hosting.loaded(owned=False)
        with pytest.raises(HostingError, match="held as mirror"):
            mirror.park()

    def test_a_room_let_go_comes_back_behind_as_a_mirror(self) -> None:
        hosting = Hosting.loaded(owned=True)
        hosting.let_go()
        assert hosting.hold is Hold.GONE and hosting.stale
        hosting.came_back()
        assert hosting.hold is Hold.MIRROR_BEHIND


class TestClockSteps:
    def test_a_countdown_due_ticks_on_the_owner_only_while_its_lease_is_surely_good(
        self,
    ) -> None:
        r = race(countdown_ms=5_000)
        r.start(10, now=1_000)
        owner = Hosting.loaded(owned=True)
        assert step(owner, r, 5_999) is Step.STAY
        assert step(owner, r, 6_000) is Step.TICK
        assert step(owner, r, 6_000, lease_good=False) is Step.STAY
        assert step(Hosting.loaded(owned=False), r, 6_000, watched=True) is Step.STAY

    def test_a_stale_owner_is_rebuilt_when_its_write_failed_or_its_clock_is_due(self) -> None:
        r = race(countdown_ms=5_000)
        r.start(10, now=1_000)
        behind = Hosting.loaded(owned=True)
        behind.fell_behind()
        assert step(behind, r, 2_000) is Step.STAY  # others' events need no replay
        assert step(behind, r, 6_000) is Step.REBUILD
        failed = Hosting.loaded(owned=True)
        failed.write_failed()
        assert step(failed, r, 2_000) is Step.REBUILD

    def test_progress_is_gathered_on_a_progress_pass_when_some_waits(self) -> None:
        r = race(250, countdown_ms=0)
        r.start(10, now=1_000)
        owner = Hosting.loaded(owned=True)
        assert step(owner, r, 1_100, progress_due=True) is Step.STAY  # nothing waits
        assert r.progress(20, foundation=1, moves=1, score=0, won=False, now=1_300)  # sent
        assert not r.progress(20, foundation=1, moves=2, score=0, won=False, now=1_350)
        assert step(owner, r, 1_400) is Step.STAY  # not a progress pass
        assert step(owner, r, 1_400, progress_due=True) is Step.GATHER

    def test_a_quiet_lobby_is_parked_unless_a_request_holds_it(self) -> None:
        r = race()
        owner = Hosting.loaded(owned=True)
        assert is_quiet(r, active_at=0, now=IDLE_MS, idle_ms=IDLE_MS, watched=False)
        assert not is_quiet(r, active_at=0, now=IDLE_MS, idle_ms=IDLE_MS, watched=True)
        assert step(owner, r, IDLE_MS, quiet=True) is Step.PARK
        assert step(owner, r, IDLE_MS, quiet=True, busy=True) is Step.STAY

    def test_a_mirror_goes_when_nobody_watches_and_it_is_behind_over_or_quiet(self) -> None:
        r = race()
        mirror = Hosting.loaded(owned=False)
        assert step(mirror, r, 1_000) is Step.STAY
        assert step(mirror, r, 1_000, quiet=True) is Step.LET_GO
        assert step(mirror, r, 1_000, quiet=True, watched=True) is Step.STAY
        mirror.fell_behind()
        assert step(mirror, r, 1_000) is Step.LET_GO

    def test_a_finished_race_retires_a_while_after_its_end(self) -> None:
        r = race(countdown_ms=0)
        r.start(10, now=1_000)
        for player in (10, 20):
            r.resign(player, now=2_000)
        owner = Hosting.loaded(owned=True)
        assert r.ends_at is not None
        assert step(owner, r, r.ends_at + FINISHED_KEPT_MS) is Step.STAY
        assert step(owner, r, r.ends_at + FINISHED_KEPT_MS + 1) is Step.RETIRE

    def test_a_room_being_parked_or_gone_is_left_alone(self) -> None:
        r = race()
        for hold in (Hold.PARKING, Hold.GONE):
            assert step(Hosting(hold), r, IDLE_MS, quiet=True) is Step.STAY
