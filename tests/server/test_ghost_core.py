"""A ghost's timeline from a stored game, without a database: times are arguments."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, strategies as st
from won_games import WINNABLE_KLONDIKE_SEED, winning_line

import engine
from server.core.ghost import GHOST_ID, Ghost, beat, order
from server.core.racers import Racer


def ghost_of(actions: list[str], offsets: list[int], finish_ms: int | None = None) -> Ghost:
    return Ghost.from_game(
        name="Best",
        game_id=77,
        variant="klondike",
        options={},
        seed=WINNABLE_KLONDIKE_SEED,
        actions=actions,
        offsets=offsets,
        finish_ms=finish_ms,
    )


def player(foundation: int = 0, moves: int = 0, time_ms: int | None = None) -> Racer:
    racer = Racer(player_id=5, name="Ann", user="guest:a", game_id=9)
    racer.foundation, racer.moves, racer.time_ms = foundation, moves, time_ms
    return racer


class TestTimeline:
    def test_the_ghost_has_the_counts_its_game_had_after_the_same_time(self) -> None:
        actions = winning_line()
        offsets = [1000 * (i + 1) for i in range(len(actions))]
        ghost = ghost_of(actions, offsets, finish_ms=offsets[-1] + 40)
        assert len(ghost.steps) == len(actions)
        start = ghost.racer_at(999)
        assert (start.player_id, start.foundation, start.moves, start.finished) == (
            GHOST_ID,
            0,
            0,
            False,
        )
        for played in (1, 10, len(actions) // 2):
            replayed = engine.replay("klondike", WINNABLE_KLONDIKE_SEED, {}, actions[:played])
            at = ghost.racer_at(offsets[played - 1])
            assert at.foundation == replayed.foundation_cards
            assert at.moves == replayed.counters["moves"]
            assert ghost.racer_at(offsets[played - 1] + 999).moves == at.moves
        assert not ghost.racer_at(offsets[-1]).finished
        finished = ghost.racer_at(offsets[-1] + 40)
        assert finished.finished and finished.time_ms == offsets[-1] + 40
        assert finished.foundation == 52

    def test_a_game_not_won_never_finishes(self) -> None:
        actions = winning_line()[:20]
        ghost = ghost_of(actions, list(range(100, 2100, 100)), finish_ms=5000)
        assert ghost.time_ms is None
        assert not ghost.final(None).finished
        assert (
            ghost.final(None).moves == engine.replay("klondike", 43, {}, actions).counters["moves"]
        )

    def test_undo_takes_a_move_back_in_the_ghost_too(self) -> None:
        first = winning_line()[0]
        ghost = ghost_of([first, "undo", first], [100, 200, 300])
        assert [ghost.racer_at(t).moves for t in (100, 200, 300)] == [1, 0, 1]

    def test_times_out_of_order_are_made_non_decreasing(self) -> None:
        actions = winning_line()[:3]
        ghost = ghost_of(actions, [500, 400, 900])
        assert [step.at_ms for step in ghost.steps] == [500, 500, 900]

    def test_a_damaged_record_is_refused(self) -> None:
        with pytest.raises(ValueError, match="3 actions but 2 times"):
            ghost_of(winning_line()[:3], [1, 2])
        with pytest.raises(ValueError):
            ghost_of(["9>9"], [1])

    def test_the_next_change_and_the_final_standing_within_a_time_limit(self) -> None:
        actions = winning_line()
        offsets = [1000 * (i + 1) for i in range(len(actions))]
        ghost = ghost_of(actions, offsets, finish_ms=offsets[-1] + 500)
        assert ghost.next_change(0) == 1000
        assert ghost.next_change(1000) == 2000
        assert ghost.next_change(offsets[-1]) == offsets[-1] + 500
        assert ghost.next_change(offsets[-1] + 500) is None
        assert ghost.final(None).finished
        cut = ghost.final(10_500)
        assert not cut.finished and cut.moves == ghost.racer_at(10_000).moves


class TestResult:
    def test_finishing_sooner_beats_the_ghost_and_a_tie_does_not(self) -> None:
        ghost = Racer(GHOST_ID, "Best", "", 77, foundation=52, moves=100, time_ms=60_000)
        assert beat(player(52, 120, time_ms=59_999), ghost)
        assert not beat(player(52, 120, time_ms=60_001), ghost)
        assert beat(player(52, 99, time_ms=60_000), ghost)
        assert not beat(player(52, 100, time_ms=60_000), ghost)
        assert not beat(player(51, 10), ghost)

    def test_unfinished_by_cards_on_the_foundations(self) -> None:
        ghost = Racer(GHOST_ID, "Best", "", 77, foundation=30, moves=100)
        assert beat(player(31, 200), ghost)
        assert beat(player(52, 150, time_ms=400_000), ghost)
        assert not beat(player(29, 10), ghost)

    def test_the_live_order_is_the_race_rule(self) -> None:
        ghost = Racer(GHOST_ID, "Best", "", 77, foundation=12, moves=40)
        assert order(player(11, 30), ghost) == [GHOST_ID, 5]
        assert order(player(13, 30), ghost) == [5, GHOST_ID]


@given(seed=st.integers(0, 2**32), length=st.integers(0, 60), data=st.data())
def test_the_ghost_at_any_time_is_the_replay_of_what_was_played_by_then(
    seed: int, length: int, data: st.DataObject
) -> None:
    """Random legal play (undo included) at random times: at any moment the ghost's
    counts are those of the stored game replayed up to the actions played by then."""
    choose = random.Random(seed)
    game = engine.new_game("klondike", seed)
    actions: list[str] = []
    for _ in range(length):
        legal = game.legal_list()
        if actions and actions[-1] != "undo" and choose.random() < 0.1:
            game.undo()
            actions.append("undo")
        elif legal:
            move = choose.choice(legal)
            game.play(move)
            actions.append(move.notation())
    gaps = data.draw(st.lists(st.integers(0, 5000), min_size=len(actions), max_size=len(actions)))
    offsets = [sum(gaps[: i + 1]) for i in range(len(actions))]
    ghost = Ghost.from_game(
        name="G",
        game_id=1,
        variant="klondike",
        options={},
        seed=seed,
        actions=actions,
        offsets=offsets,
    )
    moment = data.draw(st.integers(0, (offsets[-1] if offsets else 0) + 1000))
    played = [a for a, t in zip(actions, offsets, strict=True) if t <= moment]
    replayed = engine.replay("klondike", seed, {}, played)
    at = ghost.racer_at(moment)
    assert (at.foundation, at.moves, at.score) == (
        replayed.foundation_cards,
        replayed.counters["moves"],
        replayed.counters["score"],
    )
