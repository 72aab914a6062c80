"""The compiled Klondike search: the engine replays its wins, and where the
interpreted search (the reference, itself tested against a search with no pruning)
decides, the compiled one says the same.

Budgets are in nodes, never in seconds, so every run gives the same answer.
"""

from __future__ import annotations

import random

import pytest
from solver_positions import (
    DEAD_COLUMNS,
    DEAD_FOUNDATIONS,
    cards_left,
    klondike_text,
    random_position,
    replay,
    suit_run,
)

from engine.cards import Card, card
from engine.moves import DRAW, is_foundation_source
from engine.position import Position
from engine.position_text import parse_position
from engine.rules import Rules
from engine.solver import SolveResult, Verdict, klondike_native, solve, solve_interpreted
from engine.variants import rules_for

NO_TIME_LIMIT = 1e9
RULE_SETS = [
    ("klondike", {}),
    ("klondike-3", {}),
    ("klondike", {"passes": 2}),
    ("klondike-3", {"passes": 3}),
]


def native(rules: Rules, pos: Position, nodes: int) -> SolveResult:
    result = klondike_native.solve_natively(rules, pos, nodes, NO_TIME_LIMIT)
    assert result is not None, "the compiled search covers every Klondike rule set"
    if result.verdict is Verdict.WON:
        assert rules.is_won(replay(rules, pos, result.moves))
    else:
        assert result.moves == ()
    return result


def klondike_endgame(rng: random.Random, left: int) -> Position:
    """``left`` cards still to go home, the lowest of each suit home already; the
    others shuffled into the stock, the waste and the columns, most face down."""
    piles, rest = cards_left(rng, left)
    split = rng.randrange(len(rest) // 2 + 1)
    talon, rest = rest[:split], rest[split:]
    cut = rng.randrange(len(talon) + 1)
    columns: list[list[Card]] = [[] for _ in range(7)]
    used = rng.randrange(3, 8)  # fewer columns: deeper piles, more dead ends
    for c in rest:
        columns[rng.randrange(used)].append(c)
    down = tuple(max(0, len(col) - 1) for col in columns)
    tableau = tuple(tuple(col) for col in columns)
    stock, waste = tuple(talon[cut:]), tuple(talon[:cut])
    return Position(tableau, down, stock, waste, 0, tuple(piles), 0, 0, 0)


class TestWins:
    @pytest.mark.parametrize(("variant", "options"), RULE_SETS)
    def test_deals_won_replay(self, variant: str, options: dict[str, int]) -> None:
        rules = rules_for(variant, options)
        wins = 0
        for seed in range(10):
            result = native(rules, rules.deal(seed), 20_000)
            wins += result.verdict is Verdict.WON
        # A pass limit makes most deals far harder to decide.
        assert wins >= (0 if options else 5)

    def test_draw_three_spells_out_each_draw(self) -> None:
        rules = rules_for("klondike-3")
        result = native(rules, rules.deal(5), 20_000)
        assert result.verdict is Verdict.WON
        assert DRAW in result.moves

    def test_pass_limit_is_obeyed(self) -> None:
        rules = rules_for("klondike-3", {"passes": 2})
        won = 0
        for seed in range(10):
            start = rules.deal(seed)
            result = native(rules, start, 50_000)
            if result.verdict is Verdict.WON:
                won += 1
                assert replay(rules, start, result.moves).redeals <= 1
        assert won


class TestAgreement:
    @pytest.mark.parametrize(("variant", "options"), RULE_SETS)
    def test_endgames(self, variant: str, options: dict[str, int]) -> None:
        rules = rules_for(variant, options)
        rng = random.Random(len(variant) * 7 + len(options))
        compared = {Verdict.WON: 0, Verdict.UNWINNABLE: 0}
        for _ in range(40):
            pos = klondike_endgame(rng, rng.randrange(20, 34))
            reference = solve_interpreted(rules, pos, 4_000, NO_TIME_LIMIT)
            if reference.verdict is Verdict.UNKNOWN:
                continue
            assert native(rules, pos, 1_000_000).verdict is reference.verdict
            compared[reference.verdict] += 1
        assert compared[Verdict.WON] >= 3 and compared[Verdict.UNWINNABLE] >= 3, compared

    @pytest.mark.parametrize(("variant", "options"), RULE_SETS)
    def test_positions_in_play(self, variant: str, options: dict[str, int]) -> None:
        rules = rules_for(variant, options)
        compared = 0
        for seed in range(16):
            pos = random_position(rules, seed, steps=40 + 5 * seed)
            reference = solve_interpreted(rules, pos, 3_000, NO_TIME_LIMIT)
            if reference.verdict is Verdict.UNKNOWN:
                continue
            assert native(rules, pos, 1_000_000).verdict is reference.verdict
            compared += 1
        assert compared >= 3


class TestKnownPositions:
    def test_won_in_three(self) -> None:
        rules, pos = parse_position(
            klondike_text(
                f"{suit_run('c', 'K')} / {suit_run('d', 'K')} / {suit_run('h', 'J')} / "
                f"{suit_run('s', 'Q')}",
                ["Kh | Qh", "| Ks", "|", "|", "|", "|", "|"],
            )
        )
        result = native(rules, pos, 10)
        assert [m.notation() for m in result.moves] == ["1>f", "1>f", "2>f"]

    def test_provably_dead(self) -> None:
        rules, pos = parse_position(
            klondike_text(
                DEAD_FOUNDATIONS,
                DEAD_COLUMNS,
            )
        )
        assert native(rules, pos, 1_000).verdict is Verdict.UNWINNABLE

    def test_needs_cards_back_from_the_foundations(self) -> None:
        rules, pos = parse_position(
            klondike_text(
                f"- / {suit_run('d', 'K')} / {suit_run('h', 'K')} / {suit_run('s', 'K')}",
                ["Ac 2c 3c 4c 5c 6c 7c 8c 9c 10c Jc Qc | Kc", "|", "|", "|", "|", "|", "|"],
            )
        )
        result = native(rules, pos, 200_000)
        assert result.verdict is Verdict.WON
        assert any(is_foundation_source(m.source) for m in result.moves)

    def test_a_second_pass_is_needed(self) -> None:
        """Draw 3, clubs A..5 in the stock: the first pass turns 2c up before the Ace
        and 3c, so only a second pass, with the Ace gone, regroups the cards."""
        rest = f"- / {suit_run('d', 'K')} / {suit_run('h', 'K')} / {suit_run('s', 'K')}"
        kings = " ".join(f"{r}c" for r in ["K", "Q", "J", "10", "9", "8", "7", "6"])
        columns = [f"| {kings}", "|", "|", "|", "|", "|", "|"]
        stock = "Ac 3c 2c 4c 5c"  # top card last: the first draw turns 5c 4c 2c
        for passes, expected in ((1, Verdict.UNWINNABLE), (2, Verdict.WON), (0, Verdict.WON)):
            head = f"klondike-3 passes={passes}"
            rules, pos = parse_position(klondike_text(rest, columns, stock, head))
            result = native(rules, pos, 10_000)
            assert result.verdict is expected, passes
            assert solve_interpreted(rules, pos, 10_000, NO_TIME_LIMIT).verdict is expected
            if passes == 2:
                assert replay(rules, pos, result.moves).redeals == 1


class TestBudget:
    def test_a_budget_that_runs_out_is_unknown_never_unwinnable(self) -> None:
        for variant in ("klondike", "klondike-3"):
            rules = rules_for(variant)
            for seed in range(10):
                result = native(rules, rules.deal(seed), 3)
                assert result.verdict in (Verdict.UNKNOWN, Verdict.WON)
                assert result.nodes <= 3

    def test_hard_deal_with_a_small_budget(self) -> None:
        rules = rules_for("klondike-3")
        result = native(rules, rules.deal(8), 20_000)
        assert result.verdict is Verdict.UNKNOWN
        assert result.nodes <= 20_000

    def test_time_budget_of_zero(self) -> None:
        rules = rules_for("klondike")
        result = klondike_native.solve_natively(rules, rules.deal(8), 10**9, 0.0)
        assert result is not None and result.verdict is Verdict.UNKNOWN


class TestCoverage:
    def test_rules_and_positions_it_cannot_hold_fall_back(self) -> None:
        """A pass limit past one byte, or a foundation out of order, is left to the
        interpreted search; ``solve`` still answers."""
        rules = rules_for("klondike", {"passes": 300})
        assert klondike_native.solve_natively(rules, rules.deal(2), 1_000, NO_TIME_LIMIT) is None
        assert solve(rules, rules.deal(2), 1_000, NO_TIME_LIMIT).nodes > 0
        plain = rules_for("klondike")
        pos = plain.deal(2)
        swapped = pos._replace(foundations=((card(1, 1),), (), (), ()))
        stock = tuple(c for c in pos.stock if c != card(1, 1))
        assert klondike_native.pack(swapped._replace(stock=stock)) is None
        assert klondike_native.pack(pos._replace(stock=pos.stock[1:])) is None
