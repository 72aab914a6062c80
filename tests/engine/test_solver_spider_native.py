"""The compiled Spider search: replayable wins, verdicts the interpreted search
agrees with, and budgets that run out answered unknown, never unwinnable.

Budgets are in nodes only (the time budget is out of reach), so every run gives
the same answer.
"""

from __future__ import annotations

import random

import pytest

from engine.cards import Card, card
from engine.moves import STOCK, Move
from engine.position import Position
from engine.rules import Rules
from engine.solver import Verdict, _spider as native_module, solve, solve_interpreted, spider_native
from engine.spider import Spider
from engine.variants import rules_for

NO_TIME_LIMIT = 1e9
SUITS_IN_PLAY = {1: (3,), 2: (2, 3), 4: (0, 1, 2, 3)}


def replay(rules: Rules, pos: Position, moves: tuple[Move, ...]) -> Position:
    """Play ``moves`` through the engine, each one checked legal first."""
    for move in moves:
        assert move in rules.legal_moves(pos), f"{move} is not legal here"
        pos = rules.apply(pos, move)
    return pos


def suits_of(rules: Rules) -> int:
    assert isinstance(rules, Spider)
    return rules.suits


def run(suit: int) -> tuple[Card, ...]:
    """A lifted run as the engine keeps it, Ace first."""
    return tuple(card(rank, suit) for rank in range(1, 14))


def endgame(rules: Rules, rng: random.Random, runs: int, stock_rows: int) -> Position:
    """``runs`` runs still to build, shuffled into the stock (``stock_rows`` rows of
    ten) and the piles, up to two cards face up on each pile; the other runs lifted.
    The suits of the runs left are drawn from the rule set's suits, the lifted ones
    are whatever completes its deck."""
    suits = SUITS_IN_PLAY[suits_of(rules)]
    copies = {s: 8 // len(suits) for s in suits}
    left: list[Card] = []
    for _ in range(runs):
        s = rng.choice([s for s in suits if copies[s]])
        copies[s] -= 1
        left.extend(run(s))
    rng.shuffle(left)
    stock = tuple(left[: 10 * stock_rows])
    rest = left[10 * stock_rows :]
    piles: list[list[Card]] = [[] for _ in range(10)]
    for i, c in enumerate(rest):
        piles[i if i < 10 else rng.randrange(10)].append(c)
    down = tuple(max(0, len(p) - 1 - rng.randrange(2)) for p in piles)
    lifted = tuple(run(s) for s in suits for _ in range(copies[s]))
    return Position(tuple(tuple(p) for p in piles), down, stock, (), 0, lifted, 0, 0, 500)


def dead_end(rules: Rules) -> Position:
    """Two runs left, no stock, no empty pile. Kings, Jacks, Nines and Sevens lie on
    top of face-down cards that could only follow them; a Five on face-down cards;
    the other pile holds the other Five with a Four on it, which may go to and fro
    between the Fives, and nothing else ever moves."""
    a, b = {1: (3, 3), 2: (2, 3), 4: (0, 1)}[suits_of(rules)]
    piles: list[tuple[Card, ...]] = []
    down: list[int] = []
    for rank in (13, 11, 9, 7):
        for suit in (a, b):
            piles.append((card(rank - 1, suit), card(rank, suit)))
            down.append(1)
    piles.append(tuple(card(r, a) for r in (1, 2, 3, 4, 5)))
    down.append(4)
    piles.append(tuple(card(r, b) for r in (1, 2, 3, 5, 4)))
    down.append(3)
    suits = SUITS_IN_PLAY[suits_of(rules)]
    copies = {s: 8 // len(suits) for s in suits}
    copies[a] -= 1
    copies[b] -= 1
    lifted = tuple(run(s) for s in suits for _ in range(copies[s]))
    return Position(tuple(piles), tuple(down), (), (), 0, lifted, 0, 0, 500)


VARIANTS = ("spider-1", "spider-2", "spider-4")


class TestWins:
    @pytest.mark.parametrize("variant", VARIANTS)
    @pytest.mark.parametrize("layout", ["seed", "digital"])
    def test_deals_won_replay(self, variant: str, layout: str) -> None:
        rules = rules_for(variant, {"layout": layout})
        wins = 0
        for seed in range(3):
            deal = rules.deal(seed)
            result = solve(rules, deal, max_nodes=400_000, max_seconds=NO_TIME_LIMIT)
            assert result.verdict is not Verdict.UNWINNABLE
            if result.verdict is Verdict.WON:
                wins += 1
                assert rules.is_won(replay(rules, deal, result.moves))
                assert Move(STOCK, STOCK, 1) in result.moves
        if variant != "spider-4":
            assert wins > 0

    @pytest.mark.parametrize("seed", [72, 89, 103, 118])
    def test_one_suit_deals_that_want_the_stock_kept(self, seed: int) -> None:
        """One beam per weight of the stock, each position once per layer: with the
        single weight that deals everything at once none of these was won within 8
        million positions; now each is won within 300,000."""
        rules = rules_for("spider-1")
        deal = rules.deal(seed)
        result = solve(rules, deal, max_nodes=300_000, max_seconds=NO_TIME_LIMIT)
        assert result.verdict is Verdict.WON
        assert rules.is_won(replay(rules, deal, result.moves))

    def test_won_in_one(self) -> None:
        """The last run lies King to Two on one pile, its Ace on another."""
        rules = rules_for("spider-1")
        spade = tuple(card(rank, 3) for rank in range(13, 1, -1))
        piles = (spade, (card(1, 3),), *((),) * 8)
        pos = Position(piles, (0,) * 10, (), (), 0, (run(3),) * 7, 0, 0, 500)
        result = solve(rules, pos, max_nodes=1_000, max_seconds=NO_TIME_LIMIT)
        assert result.verdict is Verdict.WON
        assert result.moves == (Move(1, 0, 1),)

    @pytest.mark.parametrize("variant", VARIANTS)
    def test_endgames_with_a_deal_left(self, variant: str) -> None:
        """A deal still to come: its cards land on the piles by number."""
        rules = rules_for(variant)
        rng = random.Random(3)
        for _ in range(4):
            pos = endgame(rules, rng, 2, 1)
            result = solve(rules, pos, max_nodes=200_000, max_seconds=NO_TIME_LIMIT)
            if result.verdict is Verdict.WON:
                assert rules.is_won(replay(rules, pos, result.moves))


class TestSoundness:
    @pytest.mark.parametrize("variant", VARIANTS)
    def test_agrees_with_the_interpreted_search(self, variant: str) -> None:
        rules = rules_for(variant)
        rng = random.Random(11)
        compared = 0
        for i in range(10):
            pos = endgame(rules, rng, 2, i % 2)
            reference = solve_interpreted(rules, pos, max_nodes=3_000, max_seconds=NO_TIME_LIMIT)
            if not reference.decided:
                continue
            found = solve(rules, pos, max_nodes=300_000, max_seconds=NO_TIME_LIMIT)
            assert found.verdict is reference.verdict
            if found.verdict is Verdict.WON:
                assert rules.is_won(replay(rules, pos, found.moves))
            compared += 1
        assert compared >= 5

    @pytest.mark.parametrize("variant", VARIANTS)
    def test_provably_dead(self, variant: str) -> None:
        rules = rules_for(variant)
        pos = dead_end(rules)
        assert sorted(pos.cards()) == sorted(rules.deck())
        assert rules.legal_moves(pos)
        result = solve(rules, pos, max_nodes=100_000, max_seconds=NO_TIME_LIMIT)
        assert result.verdict is Verdict.UNWINNABLE
        reference = solve_interpreted(rules, pos, max_nodes=100_000, max_seconds=NO_TIME_LIMIT)
        assert reference.verdict is Verdict.UNWINNABLE

    @pytest.mark.parametrize("variant", VARIANTS)
    def test_a_budget_that_runs_out_is_unknown_never_unwinnable(self, variant: str) -> None:
        rules = rules_for(variant)
        for seed in range(3):
            for budget in (1, 3, 5_000):
                result = solve(rules, rules.deal(seed), max_nodes=budget, max_seconds=NO_TIME_LIMIT)
                assert result.verdict is not Verdict.UNWINNABLE
                assert result.nodes <= budget
                if budget < 100:
                    assert result.verdict is Verdict.UNKNOWN
                if result.verdict is Verdict.UNKNOWN:
                    assert result.moves == ()

    def test_same_budget_same_answer(self) -> None:
        rules = rules_for("spider-2")
        deal = rules.deal(4)
        first = solve(rules, deal, max_nodes=150_000, max_seconds=NO_TIME_LIMIT)
        second = solve(rules, deal, max_nodes=150_000, max_seconds=NO_TIME_LIMIT)
        assert (first.verdict, first.moves, first.nodes) == (
            second.verdict,
            second.moves,
            second.nodes,
        )


class TestBridge:
    def test_covers_every_spider_rule_set(self) -> None:
        for variant in VARIANTS:
            for layout in ("seed", "digital"):
                rules = rules_for(variant, {"layout": layout})
                answer = spider_native.solve_natively(rules, rules.deal(0), 10, NO_TIME_LIMIT)
                assert answer is not None

    def test_other_rules_are_left_to_others(self) -> None:
        rules = rules_for("klondike")
        assert spider_native.solve_natively(rules, rules.deal(0), 10, NO_TIME_LIMIT) is None

    def test_malformed_input_is_refused(self) -> None:
        with pytest.raises(ValueError):
            native_module.solve(((),) * 9, (0,) * 9, (), 0, 10, 1.0)
        with pytest.raises(ValueError):
            native_module.solve(((60,),) + ((),) * 9, (0,) * 10, (), 0, 10, 1.0)
        with pytest.raises(ValueError):
            native_module.solve(((1,),) + ((),) * 9, (1,) + (0,) * 9, (), 0, 10, 1.0)
