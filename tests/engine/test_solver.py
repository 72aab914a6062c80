"""The solver: sound verdicts, replayable wins, moves the engine calls legal.

Every won solution is replayed through the engine's own ``legal_moves`` and
``apply``; every step the search takes is checked against ``legal_moves`` on
positions reached by random play; and on small positions the verdict is compared
with a plain search of all legal moves that uses no pruning at all.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Iterator

import pytest
from solver_positions import (
    DEAD_COLUMNS,
    DEAD_FOUNDATIONS,
    NO_TIME_LIMIT,
    klondike_text,
    random_endgame,
    random_position,
    replay,
    suit_run,
)

from engine.cards import Card, card
from engine.moves import FOUNDATION, STOCK, Move, is_foundation_source
from engine.position import Position
from engine.position_text import parse_position
from engine.rules import Rules
from engine.solver import SolveResult, Verdict, domain_for, solve
from engine.solver.search import Edge, search
from engine.solver.tableau import safe_alternating
from engine.variants import VARIANTS, rules_for


def same_table(a: Position, b: Position) -> bool:
    """Equal cards everywhere; counters and the waste fan aside."""
    return (a.tableau, a.down, a.stock, a.waste, a.foundations) == (
        b.tableau,
        b.down,
        b.stock,
        b.waste,
        b.foundations,
    )


def exhaustive_verdict(rules: Rules, pos: Position, limit: int) -> Verdict:
    """Won or unwinnable by trying every legal move, no pruning, no macro moves;
    unknown past ``limit`` positions. Positions are keyed by every card."""
    seen: set[tuple[object, ...]] = set()
    stack = [pos]
    while stack:
        here = stack.pop()
        key = (here.tableau, here.down, here.stock, here.waste, here.foundations, here.redeals)
        if key in seen:
            continue
        seen.add(key)
        if rules.is_won(here):
            return Verdict.WON
        if len(seen) > limit:
            return Verdict.UNKNOWN
        stack.extend(rules.apply(here, move) for move in rules.legal_moves(here))
    return Verdict.UNWINNABLE


class Unpruned:
    """The solver's own moves, keys and stock macros with every pruning rule of
    docs/solver.md switched off: no automatic moves home, every card may come back
    from a foundation, no focus, no skipped reverse moves."""

    complete = True

    def __init__(self, rules: Rules) -> None:
        self.inner = domain_for(rules)
        self.inner.safe = never_safe  # type: ignore[attr-defined]
        self.inner.settle = self.settle  # type: ignore[method-assign]

    def settle(self, pos: Position) -> tuple[tuple[Move, ...], Position]:
        return (), pos

    def key(self, pos: Position) -> Hashable:
        return self.inner.key(pos)

    def finish(self, pos: Position) -> tuple[Move, ...] | None:
        return self.inner.finish(pos)

    def edges(self, pos: Position, banned: Move | None) -> Iterator[Edge]:
        for edge in self.inner.edges(pos, None):
            yield edge._replace(banned=None)


def never_safe(heights: tuple[int, ...], c: Card) -> bool:
    return False


class TestWins:
    @pytest.mark.parametrize("variant", list(VARIANTS))
    def test_every_win_replays_to_a_won_position(self, variant: str) -> None:
        rules = rules_for(variant)
        wins = 0
        for seed in range(12):
            result = solve(rules, rules.deal(seed), max_nodes=3_000, max_seconds=NO_TIME_LIMIT)
            if result.verdict is Verdict.WON:
                wins += 1
                assert rules.is_won(replay(rules, rules.deal(seed), result.moves))
        if variant not in ("spider-2", "spider-4", "russian"):
            assert wins > 0

    def test_draw_three_macros_spell_out_each_draw(self) -> None:
        rules = rules_for("klondike-3")
        result = solve(rules, rules.deal(5), max_nodes=5_000, max_seconds=NO_TIME_LIMIT)
        assert result.verdict is Verdict.WON
        assert Move(STOCK, STOCK, 1) in result.moves
        assert rules.is_won(replay(rules, rules.deal(5), result.moves))

    def test_pass_limit_is_respected(self) -> None:
        rules = rules_for("klondike-3", {"passes": 3})
        for seed in range(6):
            result = solve(rules, rules.deal(seed), max_nodes=5_000, max_seconds=NO_TIME_LIMIT)
            if result.verdict is Verdict.WON:
                end = replay(rules, rules.deal(seed), result.moves)
                assert rules.is_won(end) and end.redeals <= 2


class TestEngineDefinesLegality:
    @pytest.mark.parametrize("variant", list(VARIANTS))
    def test_each_search_step_is_legal_and_lands_where_it_says(self, variant: str) -> None:
        rules = rules_for(variant)
        domain = domain_for(rules)
        for seed in range(8):
            pos = random_position(rules, seed, steps=seed * 9)
            _, pos = domain.settle(pos)
            for edge in domain.edges(pos, None):
                assert same_table(replay(rules, pos, edge.moves), edge.child)

    @pytest.mark.parametrize("variant", ["klondike", "klondike-3", "yukon", "russian", "alaska"])
    def test_settled_positions_keep_every_move(self, variant: str) -> None:
        """Each engine move but a draw is a step of the search or leads where one does
        (the key sees through column order and the stock's pointer)."""
        rules = rules_for(variant)
        domain = domain_for(rules)
        for seed in range(6):
            _, pos = domain.settle(random_position(rules, seed, steps=20 + seed))
            keys = {domain.key(edge.child) for edge in domain.edges(pos, None)}
            for move in rules.legal_moves(pos):
                if move.source == STOCK:
                    continue
                if is_foundation_source(move.source) or move.target == FOUNDATION:
                    continue  # pruned or played automatically; see the soundness tests
                _, child = domain.settle(rules.apply(pos, move))
                whole = move.source >= 0 and len(pos.tableau[move.source]) == move.size
                if whole and move.target >= 0 and not pos.tableau[move.target]:
                    continue  # a whole column into an empty one: columns renamed
                assert domain.key(child) in keys, f"{move} is missing"


ENDGAMES = {"klondike": 18, "klondike-3": 18, "yukon": 18, "russian": 22, "alaska": 22}


class TestSoundness:
    # Pure-Python searches without a time limit: Alaska's took two minutes on a busy
    # two-core machine, past the suite's per-test timeout (pyproject.toml).
    @pytest.mark.timeout(600)
    @pytest.mark.parametrize("variant", list(ENDGAMES))
    def test_pruning_never_changes_a_verdict(self, variant: str) -> None:
        rules = rules_for(variant)
        rng = random.Random(5)
        compared = {Verdict.WON: 0, Verdict.UNWINNABLE: 0}
        for _ in range(12):
            pos = random_endgame(rules, rng, ENDGAMES[variant])
            plain = search(Unpruned(rules), pos, max_nodes=30_000, max_seconds=NO_TIME_LIMIT)
            if plain.verdict is Verdict.UNKNOWN:
                continue
            found = solve(rules, pos, max_nodes=300_000, max_seconds=NO_TIME_LIMIT)
            assert found.verdict is plain.verdict
            if found.verdict is Verdict.WON:
                assert rules.is_won(replay(rules, pos, found.moves))
            compared[plain.verdict] += 1
        assert compared[Verdict.WON] + compared[Verdict.UNWINNABLE] >= 8, compared
        if variant in ("russian", "alaska"):
            assert compared[Verdict.UNWINNABLE] > 0

    def test_unpruned_search_agrees_with_every_legal_move_on_dead_ends(self) -> None:
        """On Russian deals small enough for a search of every legal move (no
        macros, no keys but the cards), the pruned solver says the same."""
        rules = rules_for("russian")
        compared = 0
        for seed in range(12):
            pos = rules.deal(seed)
            plain = exhaustive_verdict(rules, pos, limit=5_000)
            if plain is Verdict.UNKNOWN:
                continue
            assert solve(rules, pos, max_nodes=300_000).verdict is plain
            compared += 1
        assert compared >= 4

    def test_a_budget_that_runs_out_is_unknown_never_unwinnable(self) -> None:
        rules = rules_for("klondike")
        for seed in range(10):
            result = solve(rules, rules.deal(seed), max_nodes=3, max_seconds=NO_TIME_LIMIT)
            assert result.verdict in (Verdict.UNKNOWN, Verdict.WON)
            assert result.nodes <= 3
            if result.verdict is Verdict.UNKNOWN:
                assert result.moves == ()

    def test_time_budget_is_honoured(self) -> None:
        rules = rules_for("spider-4")
        result = solve(rules, rules.deal(1), max_nodes=10**9, max_seconds=0.0)
        assert result.verdict is Verdict.UNKNOWN


class TestKnownPositions:
    def test_won_in_three(self) -> None:
        text = klondike_text(
            f"{suit_run('c', 'K')} / {suit_run('d', 'K')} / {suit_run('h', 'J')} / "
            f"{suit_run('s', 'Q')}",
            ["Kh | Qh", "| Ks", "|", "|", "|", "|", "|"],
        )
        rules, pos = parse_position(text)
        result = solve(rules, pos)
        assert result.verdict is Verdict.WON
        assert [m.notation() for m in result.moves] == ["1>f", "1>f", "2>f"]

    def test_provably_dead(self) -> None:
        """All black cards left, their Aces buried, no empty column: nothing moves."""
        text = klondike_text(
            DEAD_FOUNDATIONS,
            DEAD_COLUMNS,
        )
        rules, pos = parse_position(text)
        result = solve(rules, pos)
        assert result.verdict is Verdict.UNWINNABLE
        assert exhaustive_verdict(rules, pos, limit=1_000) is Verdict.UNWINNABLE

    def test_klondike_needs_cards_back_from_the_foundations(self) -> None:
        """Every club lies face down under the King of clubs: each one that turns
        up needs a red card brought back from a foundation to go on."""
        text = klondike_text(
            f"- / {suit_run('d', 'K')} / {suit_run('h', 'K')} / {suit_run('s', 'K')}",
            ["Ac 2c 3c 4c 5c 6c 7c 8c 9c 10c Jc Qc | Kc", "|", "|", "|", "|", "|", "|"],
        )
        rules, pos = parse_position(text)
        result = solve(rules, pos, max_nodes=200_000, max_seconds=NO_TIME_LIMIT)
        assert result.verdict is Verdict.WON
        assert any(is_foundation_source(m.source) for m in result.moves)
        assert rules.is_won(replay(rules, pos, result.moves))

    def test_yukon_king_back_from_its_foundation_frees_the_way(self) -> None:
        """The hearts lie home up to the King; the Queen of spades covers the Jack and
        King it needs and fits only on a red King, and the empty columns take
        only Kings: the way out is the King of hearts back from its foundation."""
        text = "\n".join(
            [
                "yukon",
                "moves=0 score=0 redeals=0 fan=0",
                f"foundations: {suit_run('h', 'K')} / {suit_run('d', 'K')} / "
                f"{suit_run('c', 'K')} / {suit_run('s', '10')}",
                "stock:",
                "waste:",
                "1: Js Ks | Qs",
                *(f"{i}: |" for i in range(2, 8)),
            ]
        )
        rules, pos = parse_position(text)
        result = solve(rules, pos)
        assert result.verdict is Verdict.WON
        back = [m for m in result.moves if is_foundation_source(m.source)]
        assert back
        first = back[0]
        king = pos.foundations[-10 - first.source][-1]
        assert king in (card(13, 1), card(13, 2))
        assert rules.is_won(replay(rules, pos, result.moves))


class TestSafeHome:
    def test_rank_two_waits_for_the_other_colours_aces(self) -> None:
        two_of_hearts = card(2, 2)
        assert not safe_alternating((0, 0, 1, 0), two_of_hearts)
        assert safe_alternating((1, 0, 1, 1), two_of_hearts)

    def test_partner_suit_may_lag_by_one(self) -> None:
        five_of_hearts = card(5, 2)
        assert safe_alternating((4, 3, 4, 4), five_of_hearts)
        assert not safe_alternating((4, 2, 4, 4), five_of_hearts)
        assert not safe_alternating((3, 3, 4, 4), five_of_hearts)

    def test_aces_always(self) -> None:
        assert safe_alternating((0, 0, 0, 0), card(1, 3))


def test_result_notation() -> None:
    result = SolveResult(Verdict.WON, (Move(STOCK, STOCK, 1), Move(0, FOUNDATION, 1)), 2, 0.1)
    assert result.notation() == "d 1>f"
    assert result.decided
