"""The compiled Yukon-family search: replayable wins, the interpreted search's verdicts.

``solve_interpreted`` (engine/solver/yukon.py) is the reference: on many small and
end positions of Yukon, Russian and Alaska the compiled search must give the verdict
it gives wherever it decides. Every win is replayed through the engine's own
``legal_moves``/``apply``. Budgets are in nodes, never in seconds, so every run
answers the same.
"""

from __future__ import annotations

import random

import pytest
from solver_positions import (
    DEAD_COLUMNS,
    DEAD_FOUNDATIONS,
    NO_TIME_LIMIT,
    agreement,
    position_text,
    random_endgame,
    random_position,
    replay,
    suit_run,
)

from engine.cards import card
from engine.moves import Move, is_foundation_source
from engine.position import Position
from engine.position_text import parse_position
from engine.rules import Rules
from engine.solver import Verdict, _yukon as native, solve_interpreted
from engine.solver.yukon_native import solve_natively
from engine.variants import rules_for
from engine.yukon import Yukon

VARIANTS = ["yukon", "russian", "alaska"]


def compiled(rules: Rules, pos: Position, max_nodes: int) -> Verdict:
    """The compiled verdict, a win replayed to the end."""
    result = solve_natively(rules, pos, max_nodes, NO_TIME_LIMIT)
    assert result is not None
    if result.verdict is Verdict.WON:
        assert rules.is_won(replay(rules, pos, result.moves))
    else:
        assert result.moves == ()
    return result.verdict


class TestWins:
    @pytest.mark.parametrize("variant", VARIANTS)
    def test_deals_won_replay_to_a_won_position(self, variant: str) -> None:
        rules = rules_for(variant)
        verdicts = [compiled(rules, rules.deal(seed), 100_000) for seed in range(20)]
        assert verdicts.count(Verdict.WON) >= 1

    def test_the_answer_is_the_engines_moves(self) -> None:
        rules = rules_for("yukon")
        pos = rules.deal(1)
        word, steps, nodes = native.solve(
            0, pos.tableau, pos.down, pos.foundations, 200_000, NO_TIME_LIMIT
        )
        assert word == "won" and nodes >= 1
        assert rules.is_won(replay(rules, pos, tuple(Move(*step) for step in steps)))


# Cards left to go home, and the interpreted search's budget (it is slow on Alaska).
ENDGAMES = {"yukon": ((20, 34), 10_000), "russian": ((22, 30), 20_000), "alaska": ((22, 34), 4_000)}


class TestSameVerdictAsTheInterpretedSearch:
    @pytest.mark.parametrize("variant", VARIANTS)
    def test_end_positions(self, variant: str) -> None:
        rules = rules_for(variant)
        rng = random.Random(11)
        sizes, budget = ENDGAMES[variant]
        compared = agreement(
            (random_endgame(rules, rng, size) for size in sizes for _ in range(20)),
            lambda pos: solve_interpreted(rules, pos, budget, NO_TIME_LIMIT).verdict.value,
            lambda pos: compiled(rules, pos, 2_000_000).value,
        )
        assert compared["won"] >= 5 and compared["unwinnable"] >= 3, compared

    @pytest.mark.parametrize("variant", VARIANTS)
    def test_positions_in_play(self, variant: str) -> None:
        rules = rules_for(variant)
        compared = agreement(
            (random_position(rules, seed, steps=10 + seed * 4) for seed in range(24)),
            lambda pos: solve_interpreted(rules, pos, 3_000, NO_TIME_LIMIT).verdict.value,
            lambda pos: compiled(rules, pos, 2_000_000).value,
        )
        assert compared.total() >= 6


def native_verdict(variant: str, pos: Position, nodes: int, **options: bool) -> str:
    code = VARIANTS.index(variant)
    return native.solve(
        code, pos.tableau, pos.down, pos.foundations, nodes, NO_TIME_LIMIT, **options
    )[0]


class TestLockedCards:
    """A position where some card can never again be the bottom card of a move is
    lost at once (docs/solver.md, "Locked cards"); the search without that rule agrees."""

    def test_queens_that_need_the_kings_beneath_them(self) -> None:
        """Both black Queens need a red King: the King of hearts lies beneath the
        Queen of spades, the King of diamonds face down beneath the Queen of clubs,
        and neither Queen can go home before the Jack of clubs, which waits in turn
        on cards locked behind them."""
        text = position_text(
            "yukon",
            "Ac 2c 3c 4c 5c / Ad 2d 3d / Ah / As 2s 3s 4s",
            [
                "| Kh Qs Jd 10c 9h 8s 7h 6s 5d",
                "| Ks Qh Jc 10d 9c 8d 7s 6d",
                "|",
                "|",
                "| Kc Qd Js 10h 9s 8h 7c 6h 5s 4h",
                "Kd 3h 2h 4d | Qc Jh 10s 9d 8c 7d 6c 5h",
                "|",
            ],
        )
        rules, pos = parse_position(text)
        result = solve_natively(rules, pos, 1_000, NO_TIME_LIMIT)
        assert result is not None and result.verdict is Verdict.UNWINNABLE
        assert result.nodes == 1
        plain = native_verdict("yukon", pos, 3_000_000, locked=False, probes=False)
        assert plain in ("unwinnable", "unknown")

    @pytest.mark.parametrize("variant", VARIANTS)
    def test_the_search_without_the_rule_agrees(self, variant: str) -> None:
        rules = rules_for(variant)
        rng = random.Random(23)
        compared = agreement(
            (random_endgame(rules, rng, size) for size in (20, 28, 36) for _ in range(25)),
            lambda pos: native_verdict(variant, pos, 300_000, locked=False, probes=False),
            lambda pos: native_verdict(variant, pos, 3_000_000),
        )
        assert compared["won"] >= 5 and compared["unwinnable"] >= 5, compared

    @pytest.mark.parametrize("variant", VARIANTS)
    def test_the_search_without_the_rule_agrees_in_play(self, variant: str) -> None:
        rules = rules_for(variant)
        compared = agreement(
            (random_position(rules, seed, steps=30 + seed * 3) for seed in range(30)),
            lambda pos: native_verdict(variant, pos, 200_000, locked=False, probes=False),
            lambda pos: native_verdict(variant, pos, 2_000_000),
        )
        assert compared.total() >= 5


class TestKnownPositions:
    def test_won_in_three(self) -> None:
        text = position_text(
            "yukon",
            f"{suit_run('c', 'K')} / {suit_run('d', 'K')} / {suit_run('h', 'J')} / "
            f"{suit_run('s', 'Q')}",
            ["Kh | Qh", "| Ks", "|", "|", "|", "|", "|"],
        )
        rules, pos = parse_position(text)
        result = solve_natively(rules, pos, 1_000, NO_TIME_LIMIT)
        assert result is not None and result.verdict is Verdict.WON
        assert [m.notation() for m in result.moves] == ["1>f", "1>f", "2>f"]

    @pytest.mark.parametrize("variant", VARIANTS)
    def test_provably_dead(self, variant: str) -> None:
        """The black cards left, each column's low cards buried under higher ones of
        the same suit, no empty column and no card home that could come back to help:
        nothing fits anywhere."""
        text = position_text(
            variant,
            DEAD_FOUNDATIONS,
            DEAD_COLUMNS,
        )
        rules, pos = parse_position(text)
        assert compiled(rules, pos, 100_000) is Verdict.UNWINNABLE
        assert solve_interpreted(rules, pos, 100_000, NO_TIME_LIMIT).verdict is Verdict.UNWINNABLE

    def test_king_back_from_its_foundation_frees_the_way(self) -> None:
        """The hearts lie home up to the King; the Queen of spades covers the Jack and
        King it needs and fits only on a red King, and the empty columns take only
        Kings: the way out is a red King back from its foundation."""
        text = position_text(
            "yukon",
            f"{suit_run('h', 'K')} / {suit_run('d', 'K')} / {suit_run('c', 'K')} / "
            f"{suit_run('s', '10')}",
            ["Js Ks | Qs", *(["|"] * 6)],
        )
        rules, pos = parse_position(text)
        result = solve_natively(rules, pos, 10_000, NO_TIME_LIMIT)
        assert result is not None and result.verdict is Verdict.WON
        back = [m for m in result.moves if is_foundation_source(m.source)]
        assert back
        king = pos.foundations[-10 - back[0].source][-1]
        assert king in (card(13, 1), card(13, 2))
        assert rules.is_won(replay(rules, pos, result.moves))


class TestBudgets:
    @pytest.mark.parametrize("variant", VARIANTS)
    def test_nodes_that_run_out_are_unknown_never_unwinnable(self, variant: str) -> None:
        rules = rules_for(variant)
        for seed in range(10):
            result = solve_natively(rules, rules.deal(seed), 3, NO_TIME_LIMIT)
            assert result is not None
            assert result.nodes <= 3
            if result.verdict is Verdict.UNKNOWN:
                assert result.moves == ()
            elif result.verdict is Verdict.UNWINNABLE:
                # proven before the budget ran out: lost at a glance (locked cards)
                assert result.nodes == 1
                assert compiled(rules, rules.deal(seed), 10**6) is Verdict.UNWINNABLE

    def test_memory_that_runs_out_is_unknown(self) -> None:
        rules = rules_for("yukon")
        for seed in range(6):
            pos = rules.deal(seed)
            word, steps, _ = native.solve(
                0, pos.tableau, pos.down, pos.foundations, 10**9, NO_TIME_LIMIT, max_bytes=200_000
            )
            assert word in ("unknown", "won")
            if word == "unknown":
                assert steps == []

    def test_node_budgets_give_the_same_answer_every_time(self) -> None:
        rules = rules_for("yukon")
        for seed in range(8):
            pos = rules.deal(seed)
            first = native.solve(0, pos.tableau, pos.down, pos.foundations, 30_000, NO_TIME_LIMIT)
            again = native.solve(0, pos.tableau, pos.down, pos.foundations, 30_000, NO_TIME_LIMIT)
            assert first == again

    def test_no_time_is_unknown(self) -> None:
        rules = rules_for("yukon")
        hard = [s for s in range(40) if compiled(rules, rules.deal(s), 5_000) is Verdict.UNKNOWN]
        pos = rules.deal(hard[0])
        result = solve_natively(rules, pos, 10**9, 0.0)
        assert result is not None and result.verdict is Verdict.UNKNOWN


class TestCoverage:
    def test_other_rules_are_left_to_the_interpreted_search(self) -> None:
        class Variant(Yukon):
            name = "yukon-variant"

        rules = Variant()
        assert solve_natively(rules, rules.deal(3), 100, NO_TIME_LIMIT) is None

    def test_a_position_without_the_whole_deck_is_left_to_the_interpreted_search(self) -> None:
        rules = rules_for("yukon")
        pos = rules.deal(3)
        short = pos._replace(
            tableau=(pos.tableau[0][:0], *pos.tableau[1:]), down=(0, *pos.down[1:])
        )
        assert solve_natively(rules, short, 100, NO_TIME_LIMIT) is None
