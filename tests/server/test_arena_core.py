"""The arena core without a database or sockets: the clock is an argument.

Property tests of pairing and scoring are in test_arena_properties.py."""

from __future__ import annotations

import pytest
from arena_cases import MINUTE, START, end, make_arena, place_all, running

from server.core.arena import ENDING_GRACE_MS, PAIRING_TIMEOUT_MS
from server.core.arena_rules import Pacer, RaceLine, Seat, score_seat
from server.core.arena_values import (
    ArenaState,
    Paused,
    Scored,
    StateChanged,
    Status,
    Withdrawn,
)
from server.core.ratings import Skill
from server.protocol.errors import TournamentError


class TestStates:
    def test_upcoming_running_ending_finished(self) -> None:
        arena = make_arena(minutes=5)
        assert arena.tick(START - 1) == []
        assert arena.deadline() == START
        assert arena.tick(START) == [StateChanged(ArenaState.RUNNING, START)]
        assert arena.deadline() == START + 5 * MINUTE
        (ending, finished) = arena.tick(START + 5 * MINUTE)
        assert ending == StateChanged(ArenaState.ENDING, START + 5 * MINUTE)
        assert isinstance(finished, StateChanged) and finished.state is ArenaState.FINISHED
        assert arena.finished_at == START + 5 * MINUTE

    def test_errors_name_the_state_found(self) -> None:
        arena = running(2, minutes=5)
        arena.tick(START + 5 * MINUTE)
        with pytest.raises(TournamentError) as caught:
            arena.join(9, "Late", 1500, START + 5 * MINUTE)
        assert caught.value.code == "arena_state"
        assert caught.value.details == {"state": "finished", "action": "join"}
        assert "finished" in caught.value.message("en")
        assert "finished" in caught.value.message("de")

    def test_an_ending_arena_waits_for_its_last_races(self) -> None:
        arena = running(2, minutes=5)
        (pairing,) = arena.pair(START)
        arena.placed(pairing.pairing, 7, START)
        assert arena.tick(START + 5 * MINUTE) == [
            StateChanged(ArenaState.ENDING, START + 5 * MINUTE)
        ]
        assert arena.state is ArenaState.ENDING
        with pytest.raises(TournamentError) as caught:
            arena.join(9, "Late", 1500, START + 5 * MINUTE)
        assert caught.value.details["state"] == "ending"
        assert arena.pair(START + 5 * MINUTE) == []
        decisions = end(arena, 7, [2, 1], START + 5 * MINUTE + 300)
        assert [d.points for d in decisions if isinstance(d, Scored)] == [1, 0]
        (finished,) = arena.tick(START + 5 * MINUTE + 400)
        assert isinstance(finished, StateChanged)
        assert [line.player for line in finished.podium] == [2, 1]

    def test_a_race_result_that_never_comes_does_not_hold_the_end_past_its_grace(self) -> None:
        arena = running(2, minutes=5)
        (pairing,) = arena.pair(START)
        arena.placed(pairing.pairing, 7, START)
        arena.tick(START + 5 * MINUTE)
        assert arena.tick(START + 5 * MINUTE + ENDING_GRACE_MS - 1) == []
        (finished,) = arena.tick(START + 5 * MINUTE + ENDING_GRACE_MS)
        assert isinstance(finished, StateChanged) and finished.podium == ()
        assert end(arena, 7, [1, 2], START + 6 * MINUTE + ENDING_GRACE_MS) == []


class TestMembership:
    def test_join_any_time_before_the_end_and_once(self) -> None:
        arena = running(2)
        arena.join(3, "Late", 1500, START + 10 * MINUTE)
        assert arena.players[3].status is Status.WAITING
        with pytest.raises(TournamentError) as caught:
            arena.join(3, "Late", 1500, START + 10 * MINUTE)
        assert caught.value.code == "arena_joined"

    def test_leaving_before_the_start_removes_the_player(self) -> None:
        arena = make_arena()
        arena.join(1, "A", 1500, START - 10)
        arena.leave(1, START - 5)
        assert arena.players == {}
        with pytest.raises(TournamentError) as caught:
            arena.leave(1, START - 4)
        assert caught.value.code == "not_in_arena"

    def test_a_paused_player_is_not_paired_and_join_brings_them_back(self) -> None:
        arena = running(3)
        assert arena.pause(3, START) == [Paused(3, "asked")]
        (pairing,) = arena.pair(START)
        assert sorted(pairing.players) == [1, 2]
        arena.join(3, "P3", 1030, START + 1)
        assert arena.players[3].status is Status.WAITING

    def test_pausing_in_a_race_pauses_once_it_is_done(self) -> None:
        arena = running(2)
        place_all(arena, arena.pair(START))
        assert arena.pause(1, START + 10) == []
        assert arena.players[1].status is Status.RACING
        assert arena.racer_done(100, 1, moves=30, now=START + 20) == [Paused(1, "asked")]
        assert arena.players[1].status is Status.PAUSED

    def test_joining_again_while_racing_cancels_the_pause(self) -> None:
        arena = running(2)
        place_all(arena, arena.pair(START))
        arena.pause(1, START + 10)
        arena.join(1, "P1", 1010, START + 11)
        assert arena.racer_done(100, 1, moves=30, now=START + 20) == []
        assert arena.players[1].status is Status.WAITING

    def test_leaving_in_a_race_gives_it_up_and_keeps_the_score(self) -> None:
        arena = running(2)
        place_all(arena, arena.pair(START))
        end(arena, 100, [1, 2], START + MINUTE)
        place_all(arena, arena.pair(START + MINUTE), first_race=200)
        assert arena.leave(1, START + MINUTE + 5) == [Withdrawn(1, 200)]
        decisions = arena.racer_done(200, 1, moves=3, now=START + MINUTE + 6)
        assert decisions == [Paused(1, "asked")]
        assert arena.players[1].score == 1
        assert [line.player for line in arena.standings()] == [1, 2]

    def test_leaving_while_the_race_is_created_withdraws_once_it_exists(self) -> None:
        arena = running(2)
        (pairing,) = arena.pair(START)
        assert arena.leave(2, START + 1) == []
        assert arena.placed(pairing.pairing, 55, START + 2) == [Withdrawn(2, 55)]


class TestPairing:
    def test_at_the_start_by_rating_into_even_races_of_at_most_eight(self) -> None:
        arena = running(20)
        pairings = arena.pair(START)
        assert [len(p.players) for p in pairings] == [7, 7, 6]
        # Everyone has 0 points: the highest ratings race together.
        assert pairings[0].players == (20, 19, 18, 17, 16, 15, 14)
        assert pairings[2].players == (6, 5, 4, 3, 2, 1)
        assert all(arena.players[p].status is Status.PAIRED for p in range(1, 21))
        assert arena.pair(START) == []  # nobody is paired twice

    def test_ratings_not_the_order_of_joining_make_the_first_races(self) -> None:
        # The ratings players join with: a provisional newcomer is 1500, like everyone in
        # a pool they never played (server/services/arena.py, ``_joining``).
        ratings = {1: Skill(31.0, 2.0), 2: Skill(), 3: Skill(20.0, 2.0), 4: Skill(28.0, 3.0)}
        arena = make_arena(race_size=2)
        for player, skill in ratings.items():
            arena.join(player, f"P{player}", skill.rating, now=START - 100 + player)
        arena.tick(START)
        assert [p.players for p in arena.pair(START)] == [(1, 4), (2, 3)]

    def test_a_lone_waiter_waits(self) -> None:
        arena = running(3)
        place_all(arena, arena.pair(START))
        arena.join(4, "Late", 1500, START + 5)
        assert arena.pair(START + 5) == []
        assert arena.players[4].status is Status.WAITING

    def test_a_player_done_is_paired_again_with_the_closest_in_score(self) -> None:
        arena = running(6, race_size=2)
        place_all(arena, arena.pair(START))  # races 100: 6,5  101: 4,3  102: 2,1
        end(arena, 100, [6, 5], START + MINUTE)  # 6: 1 point
        end(arena, 101, [3, 4], START + MINUTE)  # 3: 1 point
        end(arena, 102, [2, 1], START + MINUTE)  # 2: 1 point
        pairings = arena.pair(START + MINUTE)
        # Scores 1 (players 6, 3, 2) together first, by rating; then the zeros.
        assert [p.players for p in pairings] == [(6, 3), (2, 5), (4, 1)]

    def test_the_race_time_is_cut_to_what_is_left_and_the_last_half_minute_pairs_nobody(
        self,
    ) -> None:
        arena = running(4, minutes=5, race_time_ms=120_000, countdown_ms=5_000)
        (pairing,) = arena.pair(START)
        assert pairing.time_limit_ms == 120_000
        arena.unplaced(pairing.pairing, START)
        late = START + 5 * MINUTE - 60_000
        (pairing,) = arena.pair(late)
        assert pairing.time_limit_ms == 55_000
        arena.unplaced(pairing.pairing, late)
        assert arena.pair(START + 5 * MINUTE - 34_999) == []
        assert all(p.status is Status.WAITING for p in arena.players.values())

    def test_a_race_never_created_sends_its_players_back_to_wait(self) -> None:
        arena = running(2)
        (pairing,) = arena.pair(START)
        assert arena.tick(START + PAIRING_TIMEOUT_MS - 1) == []
        assert arena.players[1].status is Status.PAIRED
        arena.tick(START + PAIRING_TIMEOUT_MS)
        assert arena.players[1].status is Status.WAITING
        assert arena.players[1].seats == []
        assert (pairing.pairing, 1) in arena.dropped_seats


class TestScoring:
    def test_places_beaten(self) -> None:
        arena = running(8)
        place_all(arena, arena.pair(START))
        decisions = end(arena, 100, [8, 7, 6, 5, 4, 3, 2, 1], START + MINUTE)
        points = {d.player_id: d.points for d in decisions if isinstance(d, Scored)}
        assert points == {8: 7, 7: 6, 6: 5, 5: 4, 4: 3, 3: 2, 2: 1, 1: 0}

    def test_two_won_races_in_a_row_set_a_player_on_fire_until_a_race_not_won(self) -> None:
        arena = running(2)
        scored: list[Scored] = []
        # Player 1 wins three, loses one, wins one: 1, 1, 2 (fire), 0, 1.
        for n, order in enumerate([[1, 2], [1, 2], [1, 2], [2, 1], [1, 2]]):
            now = START + n * MINUTE
            place_all(arena, arena.pair(now), first_race=100 + n)
            scored += [d for d in end(arena, 100 + n, order, now + 1) if isinstance(d, Scored)]
        mine = [(d.points, d.fire) for d in scored if d.player_id == 1]
        assert mine == [(1, False), (1, False), (2, True), (0, True), (1, False)]
        assert arena.players[1].score == 5
        assert arena.players[1].best_streak == 3
        assert arena.players[1].streak == 1
        assert arena.players[2].score == 1

    def test_fire_doubles_every_place_beaten(self) -> None:
        assert score_seat(Seat(1, 0, 5, True, rank=2, racers=8, moves=9), streak=2) == (
            12,
            True,
            False,
        )
        assert score_seat(Seat(1, 0, 5, True, rank=1, racers=8, moves=9), streak=5) == (
            14,
            True,
            True,
        )

    def test_a_player_who_never_moved_scores_nothing_and_is_paused(self) -> None:
        arena = running(3)
        place_all(arena, arena.pair(START))
        # The race's rule ranks the idle player first (fewest moves): every player who
        # moved beats them all the same.
        lines = [RaceLine(3, 1, 0), RaceLine(2, 2, 10), RaceLine(1, 3, 10)]
        decisions = arena.race_ended(100, lines, START + MINUTE)
        assert Paused(3, "absent") in decisions
        points = {d.player_id: (d.rank, d.points) for d in decisions if isinstance(d, Scored)}
        assert points == {3: (3, 0), 2: (1, 2), 1: (2, 1)}
        assert arena.players[3].status is Status.PAUSED
        assert arena.players[3].races == 1 and arena.players[3].wins == 0

    def test_races_count_in_the_order_they_were_paired(self) -> None:
        arena = running(4, race_size=2)
        place_all(arena, arena.pair(START))  # 100: 4,3  101: 2,1
        end(arena, 100, [4, 3], START + 10)
        end(arena, 101, [2, 1], START + 10)
        place_all(arena, arena.pair(START + 20), first_race=200)  # 200: 4,2  201: 3,1
        # Player 4 gives up race 200 (done, not yet ranked) and is paired into race 300…
        arena.racer_done(200, 4, moves=5, now=START + 30)
        arena.racer_done(201, 1, moves=5, now=START + 30)
        place_all(arena, arena.pair(START + 30), first_race=300)
        # …which ends first, won: it waits for race 200, lost, before it counts.
        held = end(arena, 300, [4, 1], START + 40)
        assert [d for d in held if isinstance(d, Scored) and d.player_id == 4] == []
        decisions = end(arena, 200, [2, 4], START + 50)
        fours = [(d.race_id, d.points, d.fire) for d in decisions if isinstance(d, Scored)]
        assert fours == [(200, 1, False), (200, 0, False), (300, 1, False)]
        assert arena.players[4].streak == 1


class TestStandings:
    def test_score_then_who_reached_it_first(self) -> None:
        arena = running(4, race_size=2)
        place_all(arena, arena.pair(START))  # 100: 4,3  101: 2,1
        end(arena, 101, [1, 2], START + 10)
        end(arena, 100, [3, 4], START + 20)
        table = arena.standings()
        assert [line.player for line in table] == [1, 3, 2, 4]
        assert [line.rank for line in table] == [1, 2, 3, 4]
        assert table[0].score == 1 and table[0].races == 1 and table[0].wins == 1

    def test_the_podium_holds_only_players_who_raced(self) -> None:
        arena = running(3)
        place_all(arena, arena.pair(START))
        arena.join(9, "Late", 2000, START + 5)
        end(arena, 100, [2, 1, 3], START + 10)
        assert [line.player for line in arena.podium()] == [2, 1, 3]

    def test_at_most_one_push_a_second(self) -> None:
        pacer = Pacer(1000)
        assert pacer.due(None, 5)
        assert not pacer.due(5, 1004)
        assert pacer.next_at(5, 700) == 1005
        assert pacer.due(5, 1005)
