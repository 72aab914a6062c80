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
    agreement,
    cards_left,
    klondike_text,
    random_position,
    replay,
    suit_run,
)

from engine.cards import RANK, RED, SUIT, Card, card
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


def native(rules: Rules, pos: Position, nodes: int, *, locked: bool = True) -> SolveResult:
    result = klondike_native.solve_natively(rules, pos, nodes, NO_TIME_LIMIT, locked=locked)
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
        compared = agreement(
            (klondike_endgame(rng, rng.randrange(20, 34)) for _ in range(40)),
            lambda pos: solve_interpreted(rules, pos, 4_000, NO_TIME_LIMIT).verdict.value,
            lambda pos: native(rules, pos, 1_000_000).verdict.value,
        )
        assert compared["won"] >= 3 and compared["unwinnable"] >= 3, compared

    @pytest.mark.parametrize(("variant", "options"), RULE_SETS)
    def test_positions_in_play(self, variant: str, options: dict[str, int]) -> None:
        rules = rules_for(variant, options)
        compared = agreement(
            (random_position(rules, seed, steps=40 + 5 * seed) for seed in range(16)),
            lambda pos: solve_interpreted(rules, pos, 3_000, NO_TIME_LIMIT).verdict.value,
            lambda pos: native(rules, pos, 1_000_000).verdict.value,
        )
        assert compared.total() >= 3


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

    def test_one_pass_wins_only_by_bringing_cards_back(self) -> None:
        """Draw 3, clubs A..5 in the stock: the first pass turns 2c up before the Ace
        and 3c, so a second pass, with the Ace gone, regroups the cards; with one
        pass only hundreds of cards back from the foundations, built up and taken
        home again, free the clubs. The postponed moves (rules 5 and 6) once made
        both searches call this position lost: the full searches use them no more."""
        rest = f"- / {suit_run('d', 'K')} / {suit_run('h', 'K')} / {suit_run('s', 'K')}"
        kings = " ".join(f"{r}c" for r in ["K", "Q", "J", "10", "9", "8", "7", "6"])
        columns = [f"| {kings}", "|", "|", "|", "|", "|", "|"]
        stock = "Ac 3c 2c 4c 5c"  # top card last: the first draw turns 5c 4c 2c
        for passes, redeals in ((1, 0), (2, 1), (0, 1)):
            head = f"klondike-3 passes={passes}"
            rules, pos = parse_position(klondike_text(rest, columns, stock, head))
            result = native(rules, pos, 10_000)
            assert result.verdict is Verdict.WON, passes
            assert replay(rules, pos, result.moves).redeals == redeals
            back = [m for m in result.moves if is_foundation_source(m.source)]
            assert bool(back) is (passes == 1)
            assert solve_interpreted(rules, pos, 10_000, NO_TIME_LIMIT).verdict is Verdict.WON


def locked_cards(pos: Position) -> set[Card]:
    """The cards never to be lifted again (docs/solver.md, Klondike rule 9), computed
    from the rule's words alone, as a reference for the compiled search's."""
    columns = pos.tableau
    place = {c: (i, p) for i, col in enumerate(columns) for p, c in enumerate(col)}

    def cover(c: Card) -> Card | None:
        i, p = place[c]
        return columns[i][p + 1] if p + 1 < len(columns[i]) else None

    def free(c: Card | None) -> bool:
        return c is None or c not in stuck

    def comes(P: Card) -> bool:
        """Whether P, in the talon or home, can come to the tableau: a King once a
        column can empty, another card onto a card it fits that is uncovered, or is
        in the talon or home and can come itself."""
        if RANK[P] == 13:
            return empty
        above = [card(RANK[P] + 1, k) for k in range(4)]
        return any(free(cover(Q)) if Q in place else comes(Q) for Q in above if RED[Q] != RED[P])

    stuck = set(place)
    empty = False
    changed = True
    while changed:
        changed = False
        empty = any(not col or col[0] not in stuck for col in columns)
        for c in sorted(stuck):
            i, p = place[c]
            up = free(cover(c))
            if p < pos.down[i] and not up:
                continue
            rank, suit = RANK[c], SUIT[c]
            parents = [card(rank + 1, k) for k in range(4) if rank < 13]
            parents = [P for P in parents if RED[P] != RED[c]]
            out = any(free(cover(P)) if P in place else comes(P) for P in parents)
            out = out or (rank == 13 and p > 0 and empty)
            if not out and up:
                lower = [card(r, suit) for r in range(len(pos.foundations[suit]) + 1, rank)]
                out = all(x not in place or (free(x) and free(cover(x))) for x in lower)
                for x in reversed(columns[i][:p]):
                    if SUIT[x] == suit and RANK[x] < rank:
                        out = False
                    if not out or x not in stuck:
                        break
            if out:
                stuck.discard(c)
                changed = True
    return stuck


def safe_move_home(rules: Rules, pos: Position) -> bool:
    """Whether the search plays a safe move home (rule 1) before it looks for locked
    cards: a column top, or in draw 1 without a pass limit any talon card."""
    heights = [len(f) for f in pos.foundations]
    cards = [col[-1] for col in pos.tableau if col]
    if rules.draw == 1 and not rules.passes:
        cards += [*pos.stock, *pos.waste]
    for c in cards:
        rank = RANK[c]
        other = [heights[k] for k in range(4) if RED[card(1, k)] != RED[c]]
        partner = [heights[k] for k in range(4) if RED[card(1, k)] == RED[c] and k != SUIT[c]]
        if heights[SUIT[c]] == rank - 1 and min(other) >= rank - 1 and partner[0] >= rank - 2:
            return True
    return False


class TestLockedCards:
    """Rule 9: a card that can never be lifted again makes the position lost."""

    def test_a_card_over_its_parents_and_its_lower_suit(self) -> None:
        """7h lies on both black 8s and on 5h, all face down: it can go on neither 8
        and not home (5h is beneath it), so nothing under it ever turns up. The rule
        sees it at once; without it the search plays the whole talon out first (some
        450,000 positions)."""
        rules, pos = parse_position(
            klondike_text(
                f"{suit_run('c', '7')} / {suit_run('d', 'K')} / {suit_run('h', '4')} / "
                f"{suit_run('s', '7')}",
                ["5h 8s 8c | 7h", "|", "|", "|", "|", "|", "|"],
                "9c 10c Jc Qc Kc 9s 10s Js Qs Ks 6h 8h 9h 10h Jh Qh Kh",
            )
        )
        assert locked_cards(pos) == {card(r, s) for r, s in ((7, 2), (8, 3), (8, 0), (5, 2))}
        quick = native(rules, pos, 10)
        assert quick.verdict is Verdict.UNWINNABLE and quick.nodes <= 2
        slow = native(rules, pos, 1_000_000, locked=False)
        assert slow.verdict is Verdict.UNWINNABLE and slow.nodes > 100_000

    def test_deals_locked_from_the_start(self) -> None:
        """Of the first 200 deals seven hold a locked card. In 38 the 5d lies on 4d
        and on both black 6s. In 47 the 7c lies on 8d and both black 9s, and 8h, its
        other way out, can come to the tableau only onto a black 9. The search
        without the rule proves 99 and 196 lost in both draws, and 47 and 159 in
        draw 3, after 400 to 1.8 million positions."""
        locked = [38, 47, 64, 99, 140, 159, 196]
        rules = rules_for("klondike")
        assert [s for s in range(200) if locked_cards(rules.deal(s))] == locked
        for variant in ("klondike", "klondike-3"):
            rules = rules_for(variant)
            for seed in locked:
                assert native(rules, rules.deal(seed), 2).verdict is Verdict.UNWINNABLE

    @pytest.mark.parametrize(("variant", "options"), RULE_SETS)
    def test_the_search_finds_what_the_rule_says(
        self, variant: str, options: dict[str, int]
    ) -> None:
        """A position the compiled search answers unwinnable from its first node, but
        not without the rule, is one the reference finds a locked card in, and the
        other way round (positions with a safe move home are left out: the search
        plays those first; so are those without any move)."""
        rules = rules_for(variant, options)
        rng = random.Random(9 + len(variant) + len(options))
        found = 0
        for trial in range(200):
            if trial % 2:
                pos = klondike_endgame(rng, rng.randrange(30, 45))
            else:
                pos = random_position(rules, trial, steps=rng.randrange(60))
            if safe_move_home(rules, pos):
                continue
            if native(rules, pos, 2, locked=False).verdict is Verdict.UNWINNABLE:
                continue  # no move at all: nothing to tell the rule by
            says = native(rules, pos, 2).verdict is Verdict.UNWINNABLE
            assert says == bool(locked_cards(pos)), pos
            found += says
        assert found >= 5, found

    @pytest.mark.parametrize(("variant", "options"), RULE_SETS)
    def test_same_verdict_without_the_rule(self, variant: str, options: dict[str, int]) -> None:
        """On random endgames the search with the rule answers as the one without it
        wherever that one decides, and searches no more positions for a loss."""
        rules = rules_for(variant, options)
        rng = random.Random(99 + len(variant) * 3 + len(options))
        compared = {Verdict.WON: 0, Verdict.UNWINNABLE: 0}
        for _ in range(60):
            pos = klondike_endgame(rng, rng.randrange(20, 34))
            without = native(rules, pos, 200_000, locked=False)
            if without.verdict is Verdict.UNKNOWN:
                continue
            with_rule = native(rules, pos, 1_000_000)
            assert with_rule.verdict is without.verdict
            if without.verdict is Verdict.UNWINNABLE:
                assert with_rule.nodes <= without.nodes
            compared[without.verdict] += 1
        assert compared[Verdict.WON] >= 3 and compared[Verdict.UNWINNABLE] >= 3, compared


class TestBudget:
    def test_a_budget_that_runs_out_is_unknown_never_unwinnable(self) -> None:
        for variant in ("klondike", "klondike-3"):
            rules = rules_for(variant)
            for seed in range(10):
                result = native(rules, rules.deal(seed), 3)
                assert result.verdict in (Verdict.UNKNOWN, Verdict.WON)
                assert result.nodes <= 3

    def test_hard_deal_with_a_small_budget(self) -> None:
        """Draw-3 deal 134 is lost, but the proof takes some 26 million positions."""
        rules = rules_for("klondike-3")
        result = native(rules, rules.deal(134), 20_000)
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
