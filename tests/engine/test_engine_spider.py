"""Spider: one test per line of rules.md "Spider" (seed 003)."""

from __future__ import annotations

from collections import Counter

import pytest
from engine_tables import table
from hypothesis import given, settings, strategies as st

from engine import IllegalMoveError, Move, Termination, new_game
from engine.cards import CODES, RANK_NAMES, SUIT_LETTERS
from engine.moves import DRAW, FOUNDATION, foundation_source

SEEDS = st.integers(min_value=0, max_value=2**64 - 1)
SPADE_RUN = " ".join(f"{rank}s" for rank in RANK_NAMES)  # As .. Ks, as a foundation lists it
KING_TO_TWO = " ".join(f"{rank}s" for rank in reversed(RANK_NAMES[1:]))  # Ks .. 2s


def cards(pile) -> list[str]:
    return [CODES[c] for c in pile]


class TestDeck:
    # rules.md Spider: 104 cards; 1, 2 or 4 suits hold 8, 4 or 2 copies of each card.
    @settings(max_examples=10)
    @given(seed=SEEDS)
    def test_the_104_cards_of_each_difficulty(self, seed):
        for variant, suits, copies in (("spider-1", "s", 8), ("spider-2", "hs", 4)):
            counted = Counter(CODES[c] for c in new_game(variant, seed).position.cards())
            assert counted == {f"{r}{s}": copies for r in RANK_NAMES for s in suits}
        counted = Counter(CODES[c] for c in new_game("spider-4", seed).position.cards())
        assert counted == {f"{r}{s}": 2 for r in RANK_NAMES for s in SUIT_LETTERS}

    # rules.md Spider "Deal": 10 piles of 5, four face down under one face up; 54 in stock.
    @settings(max_examples=10)
    @given(seed=SEEDS)
    def test_the_seed_layout_is_ten_piles_of_five(self, seed):
        pos = new_game("spider-2", seed).position
        assert [len(p) for p in pos.tableau] == [5] * 10
        assert list(pos.down) == [4] * 10
        assert len(pos.stock) == 54 and pos.foundations == ()

    # rules.md Spider "Deal" decision: the digital layout 6,6,6,6,5,5,5,5,5,5 is an option.
    @settings(max_examples=10)
    @given(seed=SEEDS)
    def test_the_digital_layout_is_an_option(self, seed):
        pos = new_game("spider-4", seed, {"layout": "digital"}).position
        assert [len(p) for p in pos.tableau] == [6, 6, 6, 6, 5, 5, 5, 5, 5, 5]
        assert list(pos.down) == [5, 5, 5, 5, 4, 4, 4, 4, 4, 4]
        assert len(pos.stock) == 50


class TestMoving:
    def _run_of_four(self):
        # From top to bottom 4, 5, 6, 7 of spades; targets one rank above each card.
        return table(
            "spider-4",
            {1: "* | 7s 6s 5s 4s", 2: "5h", 3: "6d", 4: "7c", 5: "8h", 6: "9c", 7: "9c"}
            | {8: "9d", 9: "9d", 10: "9h"},
        )

    # rules.md Spider "Moving": a same-suit run may be split anywhere.
    def test_a_same_suit_run_may_be_split_anywhere(self):
        game = self._run_of_four()
        from_run = {(m.size, m.target) for m in game.legal_moves if m.source == 0}
        assert from_run == {(1, 1), (2, 2), (3, 3), (4, 4)}
        game.play("4s 2")
        assert cards(game.position.tableau[0][-3:]) == ["7s", "6s", "5s"]
        assert cards(game.position.tableau[1]) == ["5h", "4s"]

    # rules.md Spider "Moving": the 7 moves only once the three above it are gone.
    def test_the_bottom_card_moves_alone_only_once_the_cards_on_it_are_gone(self):
        game = self._run_of_four()
        assert [m for m in game.legal_moves if m.source == 0 and m.target == 4] == [Move(0, 4, 4)]
        game.play("6s 4")
        assert Move(0, 4, 1) in game.legal_moves
        game.play("7s 5")
        assert cards(game.position.tableau[4]) == ["8h", "7s"]

    # rules.md Spider "Moving": only a gapless same-suit sequence travels together.
    def test_cards_of_different_suits_do_not_travel_together(self):
        game = table("spider-4", {1: "* | 7s 6h", 2: "8d", 3: "7c"})
        with pytest.raises(IllegalMoveError) as error:
            game.play(Move(0, 1, 2))
        assert error.value.en == "The cards on ♠7 are not a gapless run in one suit."
        game.play("6h 3")
        assert cards(game.position.tableau[2]) == ["7c", "6h"]

    # rules.md Spider: a unit goes onto a card one rank above its bottom card, any suit.
    def test_a_unit_goes_on_one_rank_higher_whatever_its_suit(self):
        game = table("spider-4", {1: "* | 9c 8c", 2: "9h", 3: "10d", 4: "Qs"})
        assert game.play("1 3") == Move(0, 2, 2)
        with pytest.raises(IllegalMoveError) as error:
            game.play("9h 4")
        assert error.value.en == "♥9 only fits on a 10 (any suit) or an empty pile."
        assert error.value.de == "♥9 passt nur auf eine 10 (jede Farbe) oder einen freien Platz."
        game = table("spider-4", {1: "* | 9c 7c", 2: "Qs"})
        with pytest.raises(IllegalMoveError) as error:
            game.play("1 2")
        assert error.value.en == "♣7 only fits on an 8 (any suit) or an empty pile."

    # rules.md Spider: a King can only go to an empty pile; an empty pile takes any unit.
    def test_a_king_goes_only_to_an_empty_pile_which_takes_any_unit(self):
        game = table("spider-4", {1: "* | Ks", 2: "Qd", 3: "5h 4h", 4: "Kd"})
        with pytest.raises(IllegalMoveError) as error:
            game.play(Move(0, 3, 1))
        assert error.value.en == "♠K can only go to an empty pile."
        assert {m.size for m in game.legal_moves if m.source == 2 and m.target == 4} == {1, 2}
        game.play(Move(0, 4, 1))
        game.play(Move(2, 5, 2))
        assert cards(game.position.tableau[4]) == ["Ks"]
        assert cards(game.position.tableau[5]) == ["5h", "4h"]

    # rules.md Spider: when all face-up cards of a pile are gone, the next turns up.
    def test_the_next_face_down_card_turns_up(self):
        game = table("spider-4", {1: "* | 5h", 2: "6c"})
        down = game.position.down[0]
        game.play("1 2")
        assert game.position.down[0] == down - 1

    # rules.md Spider: runs leave by themselves; nothing goes to or comes back from
    # the foundations by a move.
    def test_no_card_goes_to_or_comes_back_from_the_foundations(self):
        game = table("spider-1", {1: "* | As", 2: "2s"}, foundations=SPADE_RUN)
        assert not any(m.target == FOUNDATION or m.source < 0 for m in game.legal_moves)
        with pytest.raises(IllegalMoveError):
            game.play("1 f")
        with pytest.raises(IllegalMoveError) as error:
            game.play(Move(foundation_source(0), 0, 1))
        assert error.value.en == "Cards never come back from the foundations here."


class TestDealing:
    # rules.md Spider "Dealing": whenever the player wants, one face-up card onto each
    # pile, from the stock top.
    def test_a_deal_puts_one_face_up_card_on_each_pile(self):
        game = new_game("spider-4", 8)
        before = game.position
        assert DRAW in game.legal_moves and len(game.legal_moves) > 1
        game.play("d")
        after = game.position
        for i in range(10):
            assert after.tableau[i] == (*before.tableau[i], before.stock[-1 - i])
        assert after.down == before.down and len(after.stock) == 44
        assert game.view()["tableau"][3]["up"] == cards(after.tableau[3][-2:])

    # rules.md Spider "Dealing": every empty pile must be filled first.
    def test_an_empty_pile_blocks_the_deal(self):
        kings = ["Kd", "Kd", "Kh", "Kh", "Kc", "Kc", "Qd", "Qd"]
        piles = {1: "* | 9h"} | {i: king for i, king in enumerate(kings, start=2)}
        game = table("spider-4", piles, stock="Ks")
        assert not game.position.tableau[9]
        assert DRAW not in game.legal_moves
        with pytest.raises(IllegalMoveError) as error:
            game.play("d")
        assert error.value.en == "Fill every empty pile before dealing."
        assert error.value.de == "Vor dem Austeilen müssen alle freien Plätze gefüllt sein."

    # rules.md Spider "Dealing": with the seed's layout the last deal has only four
    # cards, onto the first four piles.
    def test_the_seed_layouts_last_deal_puts_four_cards_on_the_first_four_piles(self):
        game = new_game("spider-4", 8)
        assert game.view()["deals_left"] == 6
        for _ in range(5):
            game.play("d")
        assert [len(p) for p in game.position.tableau] == [10] * 10
        last_four = game.position.stock[::-1]
        game.play("d")
        assert [len(p) for p in game.position.tableau] == [11] * 4 + [10] * 6
        assert tuple(p[-1] for p in game.position.tableau[:4]) == last_four
        assert game.view()["deals_left"] == 0
        with pytest.raises(IllegalMoveError) as error:
            game.play("d")
        assert error.value.en == "No deal is left."

    def test_the_digital_layout_deals_five_rows_of_ten(self):
        game = new_game("spider-4", 8, {"layout": "digital"})
        for _ in range(5):
            game.play("d")
        assert [len(p) for p in game.position.tableau] == [11] * 4 + [10] * 6
        assert not game.position.stock and DRAW not in game.legal_moves


class TestRunsAndEnd:
    # rules.md Spider: a complete same-suit run K..A is lifted off and leaves the game.
    def test_a_completed_run_is_lifted_off_at_once(self):
        game = table("spider-1", {1: f"* | {KING_TO_TWO}", 2: "As"})
        down = game.position.down[0]
        game.play("2 1")
        pos = game.position
        assert cards(pos.foundations[0]) == SPADE_RUN.split()
        assert pos.down[0] == down - 1 and len(pos.tableau[0]) == down
        assert game.view()["runs_removed"] == 1
        game.undo()
        assert game.position.foundations == ()

    def test_a_run_of_mixed_suits_is_not_lifted(self):
        kings_to_twos = KING_TO_TWO.replace("s", "h", 1)  # Kh on top of Qs .. 2s
        game = table("spider-4", {1: f"* | {kings_to_twos}", 2: "As"})
        game.play("2 1")
        assert game.position.foundations == ()

    def test_a_deal_that_completes_a_run_lifts_it(self):
        game = table(
            "spider-1",
            {1: KING_TO_TWO, 2: "* | 5s"} | {i: "Ks" for i in range(3, 10)} | {10: "Qs"},
            stock="Js 10s 9s 8s 7s 6s 4s 3s 2s As",
        )
        game.play("d")
        assert len(game.position.foundations) == 1
        assert game.position.tableau[0] == ()

    # rules.md Spider "Win": all 8 runs off.
    def test_the_eighth_run_wins(self):
        game = table("spider-1", {1: KING_TO_TWO, 2: "As"}, foundations=" / ".join([SPADE_RUN] * 7))
        game.play("2 1")
        assert game.outcome is not None and game.outcome.won
        assert game.foundation_cards == 104

    # rules.md Spider "Lost": no move and no deal left.
    def test_no_move_and_no_deal_left_is_lost(self):
        piles = {1: "* | 5s"} | {i: "5s" for i in range(2, 9)} | {9: "3s", 10: "3s"}
        game = table("spider-1", piles)
        assert not game.legal_moves
        assert game.outcome is not None
        assert game.outcome.termination is Termination.NO_MOVES

    def test_a_deal_left_is_not_lost(self):
        piles = {1: "* | 5s"} | {i: "5s" for i in range(2, 9)} | {9: "3s", 10: "3s"}
        game = table("spider-1", piles, stock="Ks Ks Ks Ks Ks Ks Ks Ks Qs Qs")
        assert list(game.legal_moves) == [DRAW] and game.outcome is None


class TestScore:
    """rules.md Spider "Score" decision: 500, −1 a move, +100 a run."""

    def test_each_move_and_each_deal_costs_one_point(self):
        game = new_game("spider-4", 8)
        assert game.position.score == 500
        game.play("d")
        game.play(next(m for m in game.legal_moves if m != DRAW))
        assert game.position.score == 498

    def test_a_run_brings_a_hundred(self):
        game = table("spider-1", {1: f"* | {KING_TO_TWO}", 2: "As"})
        game.play("2 1")
        assert game.position.score == 500 - 1 + 100

    def test_the_score_never_drops_below_zero(self):
        counters = "moves=600 score=0 redeals=0 fan=0"
        game = table("spider-4", {1: "* | 5h", 2: "6c"}, counters=counters)
        game.play("1 2")
        assert game.position.score == 0 and game.position.moves == 601
