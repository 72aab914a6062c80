"""Klondike: one test per line of rules.md "Klondike" (seeds 000 and 001), and every
illegal move the seed 000 lists under "Typische nicht erlaubte Züge"."""

from __future__ import annotations

import pytest
from engine_tables import table
from hypothesis import given, settings, strategies as st

from engine import IllegalMoveError, Move, Termination, new_game, rules_for
from engine.cards import CODES
from engine.moves import DRAW, FOUNDATION, WASTE, foundation_source, is_foundation_source
from engine.solver import Verdict, solve

SEEDS = st.integers(min_value=0, max_value=2**64 - 1)


def cards(pile) -> list[str]:
    return [CODES[c] for c in pile]


class TestDeal:
    # rules.md Klondike "Deal": 7 columns of 1..7 cards, only the last face up; 24 in
    # the stock; waste and foundations empty.
    @settings(max_examples=25)
    @given(seed=SEEDS)
    def test_seven_columns_of_one_to_seven_and_a_stock_of_24(self, seed):
        for variant in ("klondike", "klondike-3"):
            pos = new_game(variant, seed).position
            assert [len(c) for c in pos.tableau] == [1, 2, 3, 4, 5, 6, 7]
            assert [len(c) - d for c, d in zip(pos.tableau, pos.down, strict=True)] == [1] * 7
            assert len(pos.stock) == 24
            assert pos.waste == () and pos.foundations == ((),) * 4
            assert sorted(pos.cards()) == list(range(52))


class TestIllegalMovesOfSeed000:
    """Seed 000, "Typische nicht erlaubte Züge", one test per line."""

    def test_two_cards_of_the_same_rank_on_each_other(self):
        game = table("klondike", {1: "* | 9h", 2: "9s"})
        with pytest.raises(IllegalMoveError) as error:
            game.play("2 1")
        assert error.value.en == "♠9 only fits on a red 10."

    def test_the_same_colour_instead_of_red_and_black(self):
        game = table("klondike", {1: "* | 9h", 2: "8d"})
        with pytest.raises(IllegalMoveError) as error:
            game.play("8d 1")
        assert error.value.en == "♦8 only fits on a black 9."
        assert error.value.de == "♦8 passt nur auf 9 in Schwarz."

    def test_skipping_a_rank_a_seven_on_a_nine(self):
        game = table("klondike", {1: "* | 9h", 2: "7s"})
        with pytest.raises(IllegalMoveError) as error:
            game.play("7s 1")
        assert error.value.en == "♠7 only fits on a red 8."

    def test_a_run_whose_inner_order_is_not_valid(self):
        game = table("klondike", {1: "* | 9d", 2: "8s 7h 6h"})
        with pytest.raises(IllegalMoveError) as error:
            game.play(Move(1, 0, 3))
        assert error.value.en == "The cards on ♠8 are not an ordered run."
        assert error.value.de == "Die Karten auf ♠8 bilden keine geordnete Folge."

    def test_another_card_than_a_king_on_an_empty_column(self):
        game = table("klondike", {1: "* | 9d", 2: "Qs"})
        with pytest.raises(IllegalMoveError) as error:
            game.play("Qs 3")
        assert error.value.en == "Only a King may go to an empty column, not ♠Q."

    def test_starting_a_foundation_with_another_card_than_the_ace(self):
        game = table("klondike", {1: "* | 2h"})
        with pytest.raises(IllegalMoveError) as error:
            game.play("2h f")
        assert error.value.en == (
            "♥2 cannot go to a foundation before ♥A; a foundation starts with an Ace."
        )

    def test_using_a_face_down_card_before_the_card_on_it_is_gone(self):
        game = table("klondike", {1: "* | 10h", 2: "9s 5c | 8d"})
        with pytest.raises(IllegalMoveError) as error:
            game.play("9s 1")
        assert error.value.en == "♠9 is not a face-up card you can take."
        with pytest.raises(IllegalMoveError) as error:
            game.play(Move(1, 0, 3))
        assert "face-down cards never move" in error.value.en


class TestBuilding:
    # rules.md Klondike "Building": one rank higher and the opposite colour.
    def test_a_black_eight_goes_on_a_red_nine(self):
        game = table("klondike", {1: "* | 9h", 2: "8s"})
        game.play("2 1")
        assert cards(game.position.tableau[0][-2:]) == ["9h", "8s"]

    # rules.md Klondike "Runs": the whole run goes, its order kept, its first card fits.
    def test_a_run_moves_together_in_its_order(self):
        game = table("klondike", {1: "* | 9d", 2: "Kh | 8s 7h 6c"})
        assert game.play("2 1") == Move(1, 0, 3)
        assert cards(game.position.tableau[0][-4:]) == ["9d", "8s", "7h", "6c"]

    # rules.md Klondike "Runs": any face-up card may be taken with the run on it.
    def test_any_face_up_card_of_a_run_may_be_taken_with_the_cards_on_it(self):
        game = table("klondike", {1: "* | 8c", 2: "9d 8s 7h 6c"})
        game.play("7h 1")
        assert cards(game.position.tableau[0][-3:]) == ["8c", "7h", "6c"]
        assert cards(game.position.tableau[1]) == ["9d", "8s"]

    # rules.md Klondike "Runs": a card cannot be pulled out of the middle.
    def test_a_card_cannot_be_pulled_out_of_the_middle_of_a_run(self):
        game = table("klondike", {1: "* | 8c", 2: "9d 8s 7h 6c"})
        picks_the_seven = [m for m in game.legal_moves if m.source == 1 and m.size >= 2]
        assert picks_the_seven == [Move(1, 0, 2)]
        with pytest.raises(IllegalMoveError):
            game.play(Move(1, 0, 1))

    # rules.md Klondike: the face-down card below turns up at once; not optional.
    def test_the_card_below_turns_up_when_the_last_face_up_card_leaves(self):
        game = table("klondike", {1: "* | 9d", 2: "Kh 3c | 8s"})
        game.play("2 1")
        assert game.position.down[1] == 1
        assert cards(game.position.tableau[1]) == ["Kh", "3c"]
        assert game.view()["tableau"][1] == {"down": 1, "up": ["3c"]}

    # rules.md Klondike "Empty column": only a King, alone or leading its run.
    def test_a_king_alone_or_leading_its_run_opens_an_empty_column(self):
        game = table("klondike", {1: "* | 5c", 2: "3c | Kh Qs Jd", 3: "Ks"})
        game.play("2 4")
        assert cards(game.position.tableau[3]) == ["Kh", "Qs", "Jd"]
        game.play("Ks 5")
        assert cards(game.position.tableau[4]) == ["Ks"]


class TestFoundations:
    # rules.md Klondike "Foundations": one per suit, Ace first, then 2..K of that suit.
    def test_each_foundation_belongs_to_one_suit(self):
        game = table("klondike", {1: "* | Ah", 2: "2h", 3: "2d"})
        game.play("Ah f")
        assert [cards(pile) for pile in game.position.foundations] == [[], [], ["Ah"], []]
        with pytest.raises(IllegalMoveError) as error:
            game.play("2d f")
        assert error.value.en.startswith("♦2 cannot go to a foundation before ♦A")
        game.play("2h f")
        assert cards(game.position.foundations[2]) == ["Ah", "2h"]
        assert game.view()["foundations"][2] == {"suit": "h", "cards": 2, "top": "2h"}

    # rules.md Klondike "Foundations": one card at a time.
    def test_one_card_at_a_time_goes_to_a_foundation(self):
        game = table("klondike", {1: "* | 2c Ah"}, foundations="Ac / - / - / -")
        with pytest.raises(IllegalMoveError) as error:
            game.play(Move(0, FOUNDATION, 2))
        assert error.value.de == "Aufs Fundament kommt immer nur eine Karte."

    # rules.md Klondike "Foundations": from a column end or the waste top.
    def test_the_waste_top_goes_to_its_foundation_but_not_a_card_below_it(self):
        game = table("klondike", {1: "* | 9d"}, waste="Ah 5c", counters=_fan(1))
        with pytest.raises(IllegalMoveError) as error:
            game.play("Ah f")
        assert error.value.en == "♥A is not a face-up card you can take."
        game = table("klondike", {1: "* | 9d"}, waste="5c Ah", counters=_fan(1))
        game.play("w f")
        assert cards(game.position.foundations[2]) == ["Ah"]

    # rules.md Klondike: a foundation's top card may come back if it fits.
    def test_a_foundation_card_comes_back_onto_a_column_it_fits(self):
        game = table("klondike", {1: "* | 4h"}, foundations="Ac 2c 3c / - / - / -")
        assert Move(foundation_source(0), 0, 1) in game.legal_moves
        game.play("f♣ 1")
        assert cards(game.position.tableau[0][-2:]) == ["4h", "3c"]
        assert cards(game.position.foundations[0]) == ["Ac", "2c"]


def _fan(fan: int, score: int = 0, redeals: int = 0) -> str:
    return f"moves=0 score={score} redeals={redeals} fan={fan}"


class TestStock:
    # rules.md Klondike "Stock", draw 1: one card per tap; only the waste top plays.
    def test_draw_one_turns_one_card_and_only_the_waste_top_plays(self):
        game = table("klondike", {1: "* | 10c"}, stock="9h 8d 9d")
        game.play("d")
        assert cards(game.position.waste) == ["9d"] and cards(game.position.stock) == ["9h", "8d"]
        game.play("d")
        assert cards(game.position.waste) == ["9d", "8d"]
        assert game.view()["waste"] == {"count": 2, "visible": ["8d"]}
        assert not any(m.source == WASTE for m in game.legal_moves)
        with pytest.raises(IllegalMoveError):
            game.play("9d 1")

    # rules.md Klondike "Stock", draw 3: up to three a tap, only the last one plays,
    # taking it exposes the one beneath; the last group may hold 1 or 2 cards.
    @pytest.mark.parametrize(("stock", "last_group"), [("5h 6h 7h 8h 9d", 2), ("6h 7h 8h 9d", 1)])
    def test_draw_three_groups_and_the_last_short_group(self, stock, last_group):
        game = table("klondike-3", {1: "* | 10c", 2: "Ks"}, stock=stock)
        game.play("d")
        assert cards(game.position.waste) == ["9d", "8h", "7h"]
        assert game.view()["waste"] == {"count": 3, "visible": ["9d", "8h", "7h"]}
        assert [m for m in game.legal_moves if m.source == WASTE] == []
        game.play("d")
        assert len(game.position.waste) == 3 + last_group
        assert game.position.fan == last_group and not game.position.stock
        assert game.view()["waste"]["visible"] == cards(game.position.waste[-last_group:])

    def test_draw_three_taking_the_top_exposes_the_card_beneath(self):
        game = table("klondike-3", {1: "* | 9c", 2: "Qs"}, stock="Jd 8h 9d")
        game.play("d")
        assert cards(game.position.waste) == ["9d", "8h", "Jd"]
        assert [m for m in game.legal_moves if m.source == WASTE] == [Move(WASTE, 1, 1)]
        game.play("w 2")
        assert game.view()["waste"]["visible"] == ["9d", "8h"]
        assert [m for m in game.legal_moves if m.source == WASTE] == [Move(WASTE, 0, 1)]
        game.play("w 1")
        assert game.view()["waste"] == {"count": 1, "visible": ["9d"]}

    # rules.md Klondike "Redeal": the waste turns over as the new stock, order kept.
    @pytest.mark.parametrize("variant", ["klondike", "klondike-3"])
    def test_the_redeal_keeps_the_order_of_the_stock(self, variant):
        game = new_game(variant, 5)
        stock = game.position.stock
        while game.position.stock:
            game.play("d")
        score = game.position.score
        game.play("d")
        assert game.position.stock == stock and game.position.waste == ()
        assert game.position.redeals == 1
        assert game.position.score == score

    # rules.md Klondike "Redeal": unlimited by default.
    def test_redeals_are_unlimited_by_default(self):
        game = new_game("klondike-3", 5)
        for _ in range(20):
            for _ in range(8):
                game.play("d")
            game.play("d")
        assert game.position.redeals == 20 and DRAW in game.legal_moves

    # rules.md Klondike "Redeal" decision: a pass limit is an option.
    def test_the_pass_limit_ends_the_redeals(self):
        game = new_game("klondike", 5, {"passes": 2})
        for _ in range(24 * 2 + 1):
            game.play("d")
        assert not game.position.stock and game.position.redeals == 1
        assert DRAW not in game.legal_moves
        with pytest.raises(IllegalMoveError) as error:
            game.play("d")
        assert error.value.en == "The stock is empty and all 2 passes are used."
        assert error.value.de == "Der Talon ist leer und alle 2 Durchgänge sind verbraucht."

    def test_one_pass_means_no_redeal(self):
        game = new_game("klondike-3", 5, {"passes": 1})
        for _ in range(8):
            game.play("d")
        assert DRAW not in game.legal_moves

    # rules.md Klondike: nothing forces a move; the stock may be used meanwhile.
    def test_the_stock_may_be_used_while_a_tableau_move_exists(self):
        game = table("klondike", {1: "* | 9h", 2: "8s"}, stock="Kd")
        assert Move(1, 0, 1) in game.legal_moves and DRAW in game.legal_moves
        game.play("d")
        assert cards(game.position.waste) == ["Kd"]


class TestScore:
    """rules.md Klondike "Score" (seed 001)."""

    def test_ten_for_each_card_onto_a_foundation(self):
        game = table("klondike", {1: "* | 9d", 2: "Ah"}, waste="Ac", counters=_fan(1))
        game.play("2 f")
        assert game.position.score == 10
        game.play("w f")
        assert game.position.score == 20

    def test_five_for_a_card_from_the_waste_to_a_column(self):
        game = table("klondike", {1: "* | 9d"}, waste="8s", counters=_fan(1))
        game.play("w 1")
        assert game.position.score == 5

    def test_five_for_each_face_down_card_turned_up(self):
        game = table("klondike", {1: "* | 9d", 2: "Kh | 8s", 3: "Qd | Ac"})
        game.play("2 1")
        assert game.position.score == 5
        game.play("3 f")
        assert game.position.score == 5 + 10 + 5

    def test_fifteen_off_for_a_card_taken_back_from_a_foundation(self):
        game = table(
            "klondike", {1: "* | 4h"}, foundations="Ac 2c 3c / - / - / -", counters=_fan(0, 40)
        )
        game.play("f1 1")
        assert game.position.score == 25

    def test_the_score_never_drops_below_zero(self):
        game = table(
            "klondike", {1: "* | 4h"}, foundations="Ac 2c 3c / - / - / -", counters=_fan(0, 10)
        )
        game.play("f1 1")
        assert game.position.score == 0

    def test_column_moves_draws_and_redeals_cost_nothing(self):
        game = table("klondike", {1: "* | 9d", 2: "8s 7h"}, stock="Kd", counters=_fan(0, 30))
        game.play("2 1")
        game.play("d")
        game.play("d")
        assert game.position.redeals == 1 and game.position.score == 30


class TestUndoAndHint:
    # rules.md Klondike "Undo": up to 400 moves back (the engine keeps them all).
    def test_four_hundred_moves_are_taken_back_exactly(self):
        game = new_game("klondike", 11)
        start = game.position
        for _ in range(400):
            game.play("d")
        assert game.position.moves == 400
        for _ in range(400):
            game.undo()
        assert game.position == start and game.undos == 400

    # rules.md Klondike "Hint": shows a move that is possible now.
    def test_a_hint_is_a_legal_move_and_is_counted(self):
        game = table("klondike", {1: "* | 9d", 2: "Ah"}, stock="Kd")
        assert game.hint() == Move(1, FOUNDATION, 1)
        assert game.hints == 1 and game.actions == ["hint"]


class TestEnd:
    # rules.md Klondike "Win": all 52 cards on the foundations.
    def test_the_last_card_home_wins(self):
        game = table(
            "klondike",
            {4: "Kh"},
            foundations="Ac 2c 3c 4c 5c 6c 7c 8c 9c 10c Jc Qc Kc / "
            "Ad 2d 3d 4d 5d 6d 7d 8d 9d 10d Jd Qd Kd / Ah 2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh / "
            "As 2s 3s 4s 5s 6s 7s 8s 9s 10s Js Qs Ks",
        )
        assert game.outcome is None
        game.play("4")
        assert game.outcome is not None and game.outcome.termination is Termination.WON

    # rules.md Klondike "Finishing": once every card is face up and stock and waste
    # are empty, the rest goes home one card at a time; undo takes it back card by card.
    def test_finishing_carries_the_rest_home_one_card_at_a_time(self):
        game = table(
            "klondike",
            {1: "Kc Qh Jc 10h", 2: "Kd Qs Jd", 3: "Ks Qd", 5: "Kh Qc Jh 10c"},
            foundations="Ac 2c 3c 4c 5c 6c 7c 8c 9c / Ad 2d 3d 4d 5d 6d 7d 8d 9d 10d / "
            "Ah 2h 3h 4h 5h 6h 7h 8h 9h / As 2s 3s 4s 5s 6s 7s 8s 9s 10s Js",
        )
        assert game.can_finish and game.view()["can_finish"] is True
        finish = game.finishing_moves()
        assert len(finish) == 13 and all(m.target == FOUNDATION for m in finish)
        before = game.position
        for move in finish:
            game.play(move)
        assert game.outcome is not None and game.outcome.won
        game.undo()
        assert game.foundation_cards == 51
        for _ in finish[1:]:
            game.undo()
        assert game.position == before

    def test_no_finishing_while_the_stock_or_a_face_down_card_is_left(self):
        game = table("klondike", {1: "Kc | Qh", 2: "*"})
        assert not game.can_finish and game.finishing_moves() == []
        game = table("klondike", {1: "Kc Qh"}, stock="*")
        assert not game.can_finish

    # rules.md Klondike "No more moves": no helpful move in the tableau or from the
    # waste, and further passes bring no new card within reach (engine is_stuck).
    # rules.md: "Not every deal is winnable": such a dead end is reported, not avoided.
    def test_no_helpful_move_and_nothing_in_the_stock_is_no_more_moves(self):
        game = _dead_end("klondike", stock="Kd Kh 7s 7c")
        assert Move(5, 6, 1) in game.legal_moves  # 9c onto 10d frees nothing
        assert game.outcome is not None
        assert game.outcome.termination is Termination.NO_MOVES

    def test_a_stock_card_that_fits_keeps_the_game_going(self):
        game = _dead_end("klondike", stock="7s 7c 4h")
        assert game.outcome is None

    def test_a_card_no_draw_three_pass_brings_to_the_top_does_not_count(self):
        # Draw 3 turns the three cards as one group: 4h, on top of the stock, ends
        # under the other two every pass.
        game = _dead_end("klondike-3", stock="7s 7c 4h")
        assert game.outcome is not None
        assert game.outcome.termination is Termination.NO_MOVES

    def test_a_move_that_turns_up_a_card_keeps_the_game_going(self):
        game = _dead_end("klondike", stock="", extra={4: "5h | 4d"})
        assert game.outcome is None

    # Seed 000 "Wann eine Partie blockiert ist": before giving up, "kontrolliere …
    # mögliche Fundamentzüge": a card taken back from a foundation can open play.
    def test_a_card_back_from_a_foundation_that_takes_a_column_card_keeps_it_going(self):
        # 4h back onto 5c or 5s, then 3s or 3c onto it empties their column
        game = _dead_end("klondike", stock="", foundations="- / - / Ah 2h 3h 4h / -")
        assert Move(foundation_source(2), 0, 1) in game.legal_moves
        assert game.outcome is None

    def test_a_card_back_that_takes_a_stock_card_keeps_it_going(self):
        # 6d back onto 7s, then the stock's 5s onto it; nothing else fits anywhere
        columns = {1: "* | 7s", 2: "Kc", 3: "Ks", 4: "Kh", 5: "Kd", 6: "10h 9c", 7: "10d"}
        foundations = "- / Ad 2d 3d 4d 5d 6d / - / -"
        game = table("klondike", columns, foundations=foundations, stock="5s")
        assert game.outcome is None
        game = table("klondike", columns, foundations=foundations, stock="3s")
        assert game.outcome is not None  # the 3s fits nowhere, even on the 6d
        assert game.outcome.termination is Termination.NO_MOVES

    def test_a_card_back_that_only_goes_home_again_opens_nothing(self):
        # the 8h can come back onto the 9c, but no black 7 is within reach
        hearts = "Ah 2h 3h 4h 5h 6h 7h 8h"
        game = _dead_end("klondike", stock="Kd Kh", foundations=f"- / - / {hearts} / -")
        assert Move(foundation_source(2), 5, 1) in game.legal_moves
        assert game.outcome is not None
        assert game.outcome.termination is Termination.NO_MOVES

    @pytest.mark.parametrize(("seed", "at"), [(1, 136), (6, 122)])
    def test_draw_three_lines_that_go_on_through_a_foundation_card(self, seed, at):
        """Klondike draw 3 deals 1 and 6: the solver's win takes a card back from a
        foundation at move 136 and 122 (the only way on); those positions are playable."""
        rules = rules_for("klondike-3")
        result = solve(rules, rules.deal(seed), max_nodes=5_000_000, max_seconds=120.0)
        assert result.verdict is Verdict.WON
        game = new_game("klondike-3", seed)
        for index, move in enumerate(result.moves):
            assert game.outcome is None, f"reported stuck at move {index}"
            if index == at:  # the named position: only the card from the foundation helps
                assert is_foundation_source(move.source)
            game.play(move)
        assert game.outcome is not None and game.outcome.won

    # rules.md Klondike: Restart replays the same deal; New game deals another.
    def test_restart_is_the_same_deal_and_a_new_game_another(self):
        assert new_game("klondike", 99).position == new_game("klondike", 99).position
        assert new_game("klondike", 99).position != new_game("klondike", 100).position


def _dead_end(
    variant: str, stock: str, extra: dict[int, str] | None = None, foundations: str | None = None
):
    """Only black tops, no Ace in sight and no empty column: no helpful move."""
    columns = {1: "* | 5c", 2: "5s", 3: "3s", 4: "3c", 5: "Kc", 6: "10h 9c", 7: "10d"}
    return table(variant, columns | (extra or {}), stock=stock, foundations=foundations)
