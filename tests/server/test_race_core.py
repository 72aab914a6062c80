"""The race core without sockets or sleeps: the clock is an argument."""

from __future__ import annotations

import pytest

from server import protocol as p
from server.core.race import Race, RaceSettings, RaceState, commitment
from server.core.race_records import Counters, EntryLine, RaceRecord
from server.protocol.errors import RaceError


def make_race(**settings: object) -> Race:
    race = Race(
        race_id=1,
        creator_id=10,
        settings=RaceSettings(variant="klondike", options={}, **settings),  # type: ignore[arg-type]
        seed=99,
        salt="ab",
    )
    for player in (10, 20, 30, 40):
        race.join(player, f"P{player}", f"guest:{player}", game_id=player * 100)
    return race


class TestRanking:
    def test_finished_by_time_then_moves_then_unfinished_by_foundation_then_moves(self) -> None:
        race = make_race(countdown_ms=0)
        race.start(10, now=1_000)
        race.progress(10, foundation=52, moves=120, score=0, won=True, now=61_000)
        race.progress(20, foundation=52, moves=110, score=0, won=True, now=61_000)
        race.progress(30, foundation=20, moves=50, score=0, won=False, now=62_000)
        race.progress(40, foundation=20, moves=40, score=0, won=False, now=62_000)
        events = race.resign(30, now=63_000) + race.resign(40, now=63_000)
        end = events[-1]
        assert isinstance(end, p.EndEvent)
        assert end.reason == "all_done"
        assert [line.player for line in end.ranking] == [20, 10, 40, 30]
        assert [line.time_ms for line in end.ranking] == [60_000, 60_000, None, None]
        assert race.state is RaceState.FINISHED

    def test_a_faster_finish_beats_fewer_moves(self) -> None:
        race = make_race(countdown_ms=0)
        race.start(10, now=0)
        race.progress(10, foundation=52, moves=300, score=0, won=True, now=50_000)
        race.progress(20, foundation=52, moves=90, score=0, won=True, now=70_000)
        assert [line.player for line in race.ranking()[:2]] == [10, 20]


class TestStates:
    def test_errors_name_the_state_found(self) -> None:
        race = make_race(countdown_ms=0)
        race.start(10, now=0)
        with pytest.raises(RaceError) as caught:
            race.start(10, now=1)
        assert caught.value.code == "wrong_state"
        assert caught.value.details["state"] == "running"
        assert "running" in caught.value.message("en")
        with pytest.raises(RaceError) as caught:
            race.join(50, "Late", "guest:50", game_id=5000)
        assert caught.value.details["state"] == "running"

    def test_countdown_starts_the_race_at_the_announced_time(self) -> None:
        race = make_race(countdown_ms=5_000)
        (countdown,) = race.start(10, now=1_000)
        assert countdown == p.CountdownEvent(starts_at=6_000)
        assert race.deadline() == 6_000
        assert race.tick(now=5_999) == []
        with pytest.raises(RaceError) as caught:
            race.check_playing(10)
        assert caught.value.code == "not_started"
        (start,) = race.tick(now=6_250)
        assert start == p.StartEvent(at=6_000)
        assert race.state is RaceState.RUNNING

    def test_time_limit_ends_the_race(self) -> None:
        race = make_race(countdown_ms=0, time_limit_ms=30_000)
        race.start(10, now=0)
        race.progress(20, foundation=3, moves=9, score=0, won=False, now=10_000)
        assert race.tick(now=29_999) == []
        (end,) = race.tick(now=30_000)
        assert isinstance(end, p.EndEvent) and end.reason == "time_limit"
        assert end.ranking[0].player == 20
        assert end.seed == "99" and end.commitment == commitment(99, "ab")
        assert race.progress(30, foundation=9, moves=1, score=0, won=False, now=30_001) == []

    def test_leaving_the_lobby_removes_and_leaving_a_running_race_resigns(self) -> None:
        race = make_race(countdown_ms=0)
        (lobby,) = race.leave(40, now=0)
        assert isinstance(lobby, p.LobbyEvent)
        assert [player.id for player in lobby.players] == [10, 20, 30]
        race.start(10, now=0)
        (progress,) = race.leave(30, now=5)
        assert isinstance(progress, p.ProgressEvent) and progress.standings[0].resigned
        with pytest.raises(RaceError) as caught:
            race.leave(40, now=6)
        assert caught.value.code == "not_in_race"

    def test_progress_is_gathered_and_sent_at_most_once_per_interval(self) -> None:
        race = make_race(countdown_ms=0)
        race.progress_interval_ms = 250
        race.start(10, now=1_000)
        (first,) = race.progress(10, foundation=1, moves=1, score=5, won=False, now=1_300)
        assert isinstance(first, p.ProgressEvent)
        assert race.progress(20, foundation=0, moves=1, score=0, won=False, now=1_350) == []
        assert race.progress(20, foundation=1, moves=2, score=5, won=False, now=1_400) == []
        assert race.progress(30, foundation=0, moves=1, score=0, won=False, now=1_450) == []
        assert race.deadline() == 1_550
        assert race.tick(now=1_549) == []
        (gathered,) = race.tick(now=1_550)
        assert isinstance(gathered, p.ProgressEvent)
        assert [(s.player, s.moves) for s in gathered.standings] == [(20, 2), (30, 1)]
        assert race.deadline() is None
        # a finish is never held back, and takes the waiting progress with it
        race.progress(40, foundation=2, moves=3, score=0, won=False, now=1_600)
        events = race.progress(10, foundation=52, moves=99, score=0, won=True, now=1_610)
        assert [type(e) for e in events] == [p.ProgressEvent, p.FinishEvent]
        assert [s.player for s in events[0].standings] == [40, 10]

    def test_full_race_and_double_join_are_refused(self) -> None:
        race = make_race(max_players=4)
        with pytest.raises(RaceError) as caught:
            race.join(50, "Fifth", "guest:50", game_id=1)
        assert caught.value.code == "race_full"
        with pytest.raises(RaceError) as caught:
            race.check_join(10)
        assert caught.value.code == "already_joined"


class TestStoredForm:
    """Only the race core changes a race's state and its racers' counters."""

    def test_a_race_rebuilt_from_its_record_has_its_racers_and_their_progress(self) -> None:
        settings = RaceSettings(variant="klondike", options={})
        record = RaceRecord(
            race_id=5,
            creator_id=10,
            settings=settings,
            seed=99,
            salt="ab",
            state=RaceState.RUNNING,
            starts_at=1_000,
            ends_at=None,
            end_reason=None,
            entries=[
                EntryLine(100, 10, "Ann", "guest:a", "won", finished_at=61_000),
                EntryLine(200, 20, "Bob", "guest:b", "resigned", finished_at=None),
                EntryLine(300, 30, "Cy", "guest:c", "playing", finished_at=None),
            ],
            last_seq=9,
            version=3,
        )
        counters = {100: Counters(52, 120, 0), 200: Counters(8, 30, 0), 300: Counters(20, 77, 5)}
        race = Race.from_record(record, counters, progress_interval_ms=250)
        assert race.version == 3 and race.progress_interval_ms == 250
        ann, bob, cy = (race.racers[player] for player in (10, 20, 30))
        assert (ann.finished, ann.time_ms, ann.moves) == (True, 60_000, 120)
        assert (bob.resigned, bob.foundation) == (True, 8)
        assert (cy.done, cy.foundation, cy.moves, cy.score) == (False, 20, 77, 5)

    def test_the_stored_state_is_compare_and_set_over_the_version_it_moves_on(self) -> None:
        race = make_race(countdown_ms=0)
        race.start(10, now=1_000)
        first = race.stored_state()
        second = race.stored_state()
        assert (first.version, second.version, race.version) == (0, 1, 2)
        assert (first.race_id, first.state, first.starts_at) == (1, RaceState.RUNNING, 1_000)

    def test_progress_restored_from_the_store_leaves_a_finished_racer_alone(self) -> None:
        race = make_race(countdown_ms=0)
        race.start(10, now=1_000)
        race.progress(10, foundation=52, moves=99, score=0, won=True, now=5_000)
        race.progress(20, foundation=9, moves=40, score=0, won=False, now=5_000)
        race.restore_progress(20, Counters(7, 38, 0))
        race.restore_progress(10, Counters(0, 0, 0))
        assert (race.racers[20].foundation, race.racers[20].moves) == (7, 38)
        assert race.racers[10].moves == 99


class TestRetold:
    """What a race's owner tells later of changes whose events nobody numbered."""

    def test_a_start_nobody_numbered_is_told_as_the_race_stands(self) -> None:
        race = make_race(countdown_ms=0)
        untold = race.start(10, now=1_000)
        assert race.retold(untold) == [p.StartEvent(at=1_000)]

    def test_a_countdown_that_ran_out_meanwhile_is_told_as_the_start(self) -> None:
        race = make_race(countdown_ms=5_000)
        untold = race.start(10, now=1_000)
        assert race.retold(untold) == [p.CountdownEvent(starts_at=6_000)]
        race.tick(now=6_000)
        assert race.retold(untold) == [p.StartEvent(at=6_000)]

    def test_a_join_is_told_while_the_lobby_lasts_and_nothing_else_is(self) -> None:
        race = make_race()
        untold = race.join(50, "P50", "guest:50", game_id=5_000)
        [lobby] = race.retold(untold)
        assert isinstance(lobby, p.LobbyEvent) and [i.id for i in lobby.players][-1] == 50
        race.start(10, now=0)
        assert race.retold(untold) == []
        assert race.retold([]) == []
