"""The solver pool and its worker functions (server/services/solving.py), in real processes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from concurrent.futures.process import BrokenProcessPool

import pytest
from solver_cases import LOST_LINE, LOST_SEED

import engine
from engine.moves import FOUNDATION
from server.services.solving import (
    Budget,
    SolverPool,
    find_winnable_seed,
    hint_line,
    last_winnable,
    prove_deal,
    winnability,
    without_detours,
)

BUDGET = Budget(max_nodes=50_000, max_seconds=5.0)


@pytest.fixture
async def pool() -> AsyncIterator[SolverPool]:
    solver = SolverPool(1)
    yield solver
    solver.close()


async def test_a_closed_pool_takes_no_more_searches() -> None:
    """Once the server's stop closed it, a search fails at once (every caller takes that
    as "no answer") instead of spawning a new pool."""
    pool = SolverPool(1)
    pool.close()
    with pytest.raises(BrokenProcessPool):
        await pool.run(prove_deal, "yukon", {}, 1, BUDGET)


async def test_a_deal_is_proven_in_a_worker_process(pool: SolverPool) -> None:
    proof = await pool.run(prove_deal, "yukon", {}, 1, BUDGET)
    assert proof.winnable and proof.seed == 1
    assert proof.solution_length > 50  # a Yukon win moves all 52 cards home


async def test_a_drawn_seed_is_proven_winnable(pool: SolverPool) -> None:
    proof = await pool.run(find_winnable_seed, "yukon", {}, 10, 20.0, BUDGET)
    assert proof.winnable
    again = prove_deal("yukon", {}, proof.seed, BUDGET)
    assert again.winnable and again.solution_length == proof.solution_length


def test_no_tries_left_gives_an_unproven_seed() -> None:
    proof = find_winnable_seed("yukon", {}, 5, 0.0, BUDGET)
    assert not proof.winnable
    assert 0 <= proof.seed < 2**64


async def test_a_thrown_away_game_is_lost_and_its_start_winnable(pool: SolverPool) -> None:
    assert await pool.run(winnability, "klondike", {}, LOST_SEED, LOST_LINE, BUDGET) == "lost"
    assert winnability("klondike", {}, LOST_SEED, [], BUDGET) == "winnable"


def test_bisection_finds_the_last_winnable_position() -> None:
    keep = last_winnable("klondike", {}, LOST_SEED, LOST_LINE, BUDGET)
    assert keep is not None and 0 < keep < len(LOST_LINE)
    assert winnability("klondike", {}, LOST_SEED, LOST_LINE[:keep], BUDGET) == "winnable"
    assert winnability("klondike", {}, LOST_SEED, LOST_LINE[: keep + 1], BUDGET) != "winnable"


def test_undone_moves_are_not_on_the_line_of_play() -> None:
    # the same lost line with a move played and taken back in the middle
    line = [*LOST_LINE[:10], "d", "undo", *LOST_LINE[10:]]
    assert last_winnable("klondike", {}, LOST_SEED, line, BUDGET) == last_winnable(
        "klondike", {}, LOST_SEED, LOST_LINE, BUDGET
    )


def test_a_hint_line_leads_from_the_deal_to_a_win() -> None:
    line = hint_line("yukon", {}, 1, [], BUDGET)
    assert line is not None
    game = engine.replay("yukon", 1, {}, line)
    assert game.rules.is_won(game.position)


def test_a_hint_line_goes_through_where_the_game_stands() -> None:
    played = ["hint", "3:4>5", "undo", "4:2>1"]  # the record; only 4:2>1 stands
    line = hint_line("yukon", {}, 1, played, BUDGET)
    assert line is not None and line[0] == "4:2>1"
    assert engine.rules_for("yukon").is_won(engine.replay("yukon", 1, {}, line).position)


def test_no_hint_line_from_a_lost_position() -> None:
    assert hint_line("klondike", {}, LOST_SEED, LOST_LINE, BUDGET) is None


def test_a_detour_back_to_a_position_passed_is_cut_out() -> None:
    # The solver's wins can hold one (a card from a foundation onto a column and home
    # again): here one is put into a win, after the first card home that could come
    # back to the column it came from.
    line = hint_line("yukon", {}, 1, [], BUDGET)
    assert line is not None
    game = engine.new_game("yukon", 1)
    detour: list[str] = []
    for done, text in enumerate(line, start=1):
        move = game.play(text)
        back = [m for m in game.legal_moves if m.source <= -10 and m.target == move.source]
        if move.target == FOUNDATION and back:
            detour = [*line[:done], back[0].notation(), text, *line[done:]]
            break
    rules = engine.rules_for("yukon")
    assert rules.is_won(engine.replay("yukon", 1, {}, detour).position)  # a win still
    moves = [engine.Move.from_notation(t) for t in detour]
    assert [m.notation() for m in without_detours(rules, rules.deal(1), moves)] == line
