"""Yukon, Russian Solitaire and Alaska: one test per line of rules.md "Yukon" (seed 004)."""

from __future__ import annotations

import pytest
from engine_tables import table
from hypothesis import given, settings, strategies as st

from engine import IllegalMoveError, Move, Termination, new_game
from engine.cards import CODES
from engine.moves import DRAW, FOUNDATION, foundation_source
from engine.position_text import game_text

SEEDS = st.integers(min_value=0, max_value=2**64 - 1)


def worked_example():
    """rules.md "Worked example": column 3 holds ♠9 ♦4 ♣J ♥2 ♠6 on a face-down card,
    column 5 ends with ♥10, column 6 with ♣10 (no other column ends with a red 10)."""
    return table(
        "yukon",
        {1: "Kd", 2: "* | Qs", 3: "3c | 9s 4d Jc 2h 6s", 5: "10h", 6: "10c", 7: "7d"},
    )


class TestDeal:
    # rules.md Yukon "Deal": 7 columns of 1, 6, 7, 8, 9, 10, 11; 21 down, 31 up.
    @settings(max_examples=25)
    @given(seed=SEEDS)
    def test_seven_columns_of_1_6_7_8_9_10_11_with_five_face_up(self, seed):
        for variant in ("yukon", "russian", "alaska"):
            pos = new_game(variant, seed).position
            assert [len(c) for c in pos.tableau] == [1, 6, 7, 8, 9, 10, 11]
            assert list(pos.down) == [0, 1, 2, 3, 4, 5, 6]
            assert sum(pos.down) == 21
            assert sum(len(c) - d for c, d in zip(pos.tableau, pos.down, strict=True)) == 31
            assert sorted(pos.cards()) == list(range(52))

    # rules.md Yukon "Deal": no stock, no waste, no free cells.
    def test_there_is_no_stock_to_draw_from(self):
        game = new_game("yukon", 7)
        assert not game.position.stock and not game.position.waste
        assert DRAW not in game.legal_moves
        with pytest.raises(IllegalMoveError) as error:
            game.play("d")
        assert error.value.en == "This game has no stock."
        assert error.value.de == "Dieses Spiel hat keinen Talon."
        assert game.view()["stock"] is None and game.view()["waste"] is None


class TestWorkedExample:
    """rules.md Yukon "Worked example (a rule test)"."""

    def test_taking_the_nine_lifts_all_five_cards_and_only_column_5_takes_them(self):
        game = worked_example()
        from_column_3 = [m for m in game.legal_moves if m.source == 2 and m.size == 5]
        assert from_column_3 == [Move(2, 4, 5)]
        assert game.view()["legal_moves"]["3"] == ["3>7", "3:5>5"]

    def test_dropped_on_column_5_they_keep_their_order_and_the_card_below_turns_up(self):
        game = worked_example()
        assert game.play("♠9 5") == Move(2, 4, 5)
        pos = game.position
        assert [CODES[c] for c in pos.tableau[4]] == ["10h", "9s", "4d", "Jc", "2h", "6s"]
        assert [CODES[c] for c in pos.tableau[2]] == ["3c"]
        assert pos.down[2] == 0
        assert pos.moves == 1

    def test_column_6_is_refused_with_the_seeds_reason(self):
        game = worked_example()
        before = game.position
        with pytest.raises(IllegalMoveError) as error:
            game.play("♠9 6")
        assert error.value.de == "♠9 passt nur auf 10 in Rot."
        assert error.value.en == "♠9 only fits on a red 10."
        assert game.position is before

    def test_the_same_reason_for_the_move_written_by_columns(self):
        with pytest.raises(IllegalMoveError) as error:
            worked_example().play(Move(2, 5, 5))
        assert error.value.message("de") == "♠9 passt nur auf 10 in Rot."


class TestMoving:
    # rules.md Yukon "Moving": any face-up card with everything on it, ordered or not.
    def test_any_face_up_card_moves_with_the_unordered_cards_on_it(self):
        game = table("yukon", {1: "* | 10s", 2: "Qh 2c 9d 3s", 3: "10c 5h"})
        game.play("9d 1")
        assert [CODES[c] for c in game.position.tableau[0][-3:]] == ["10s", "9d", "3s"]
        assert [CODES[c] for c in game.position.tableau[1]] == ["Qh", "2c"]

    # rules.md Yukon "Moving": only the taken card matters; opposite colour, one higher.
    def test_the_taken_card_needs_the_other_colour_one_rank_higher(self):
        game = table("yukon", {1: "* | 8s", 2: "Qh 7d 3s", 3: "9s"})
        with pytest.raises(IllegalMoveError) as error:
            game.play("7d 3")
        assert error.value.en == "♦7 only fits on a black 8."
        game.play("7d 1")
        assert [CODES[c] for c in game.position.tableau[0][-3:]] == ["8s", "7d", "3s"]

    # rules.md Yukon "Empty column": only a stack whose taken card is a King.
    def test_an_empty_column_takes_a_stack_led_by_a_king(self):
        game = table("yukon", {1: "* | 8s", 2: "Kd 2c 9h", 3: "Qd 5c"})
        with pytest.raises(IllegalMoveError) as error:
            game.play("Qd 4")
        assert error.value.en == "Only a King may go to an empty column, not ♦Q."
        assert error.value.de == "Auf eine leere Spalte darf nur ein König, nicht ♦D."
        game.play("Kd 4")
        assert [CODES[c] for c in game.position.tableau[3]] == ["Kd", "2c", "9h"]

    # rules.md Yukon: "Face-down cards are never taken and no stack reaches into them."
    def test_no_stack_reaches_into_face_down_cards(self):
        game = table("yukon", {1: "* | Js", 2: "10h 9c | 5d"})
        assert all(m.source != 1 or m.size == 1 for m in game.legal_moves)
        with pytest.raises(IllegalMoveError) as error:
            game.play(Move(1, 0, 2))
        assert "face-down cards never move" in error.value.en
        with pytest.raises(IllegalMoveError):
            game.play("10h 1")

    # rules.md Yukon: the turn-up is part of the same move and undone with it.
    def test_the_turn_up_counts_no_extra_move_and_is_undone_with_it(self):
        game = table("yukon", {1: "* | 9s", 2: "6c | 8d"})
        before = game.position
        game.play("8d 1")
        assert game.position.down[1] == 0 and game.position.moves == 1
        game.undo()
        assert game.position == before
        assert game.position.down[1] == 1 and game.position.moves == 0


class TestFoundations:
    # rules.md Yukon "Foundations": belong to no suit; the first Ace takes a free one.
    def test_the_first_ace_takes_the_first_free_foundation_whatever_its_suit(self):
        game = table("yukon", {1: "* | Ah", 2: "Kc 2h", 3: "Ac"})
        assert game.view()["foundations"][0]["suit"] is None
        game.play("1 f")
        assert [CODES[c] for c in game.position.foundations[0]] == ["Ah"]
        assert game.view()["foundations"][0]["suit"] == "h"
        game.play("3 f")
        assert CODES[game.position.foundations[1][0]] == "Ac"

    # rules.md Yukon "Foundations": then the same suit upwards.
    def test_a_foundation_then_takes_only_its_suit_upwards(self):
        game = table("yukon", {1: "* | 2d", 2: "2h"}, foundations="Ah / - / - / -")
        with pytest.raises(IllegalMoveError) as error:
            game.play("1 f")
        assert error.value.en.startswith("♦2 cannot go to a foundation before ♦A")
        game.play("2 f")
        assert [CODES[c] for c in game.position.foundations[0]] == ["Ah", "2h"]

    # rules.md Yukon "Foundations": one card at a time, from a column's top card.
    def test_only_a_columns_top_card_goes_to_a_foundation(self):
        game = table("yukon", {1: "* | 9s", 2: "Ah 4c"})
        with pytest.raises(IllegalMoveError) as error:
            game.play(Move(1, FOUNDATION, 2))
        assert error.value.en == "Only one card at a time goes to a foundation."
        with pytest.raises(IllegalMoveError):
            game.play("Ah f")

    # rules.md Yukon: "A foundation's top card may come back onto a column by the normal rule."
    def test_a_foundation_card_comes_back_by_the_normal_rule(self):
        game = table("yukon", {1: "* | 4s", 2: "4h"}, foundations="Ac 2c 3c / Ad 2d 3d / - / -")
        legal_back = {m for m in game.legal_moves if m.source <= foundation_source(0)}
        assert legal_back == {Move(foundation_source(1), 0, 1), Move(foundation_source(0), 1, 1)}
        game.play("f2 1")
        assert [CODES[c] for c in game.position.tableau[0][-2:]] == ["4s", "3d"]


class TestEnd:
    # rules.md Yukon "Undo is unlimited and free".
    def test_undo_is_unlimited_and_restores_moves_and_score(self):
        game = new_game("yukon", 3)
        start = game.position
        played = 0
        while played < 60 and game.legal_moves:
            game.play(next(iter(game.legal_moves)))
            played += 1
        for _ in range(played):
            game.undo()
        assert game.position == start
        assert game.counters == {"moves": 0, "undos": played, "hints": 0, "score": 0}

    # rules.md Yukon "Win": all 52 on the foundations.
    def test_the_last_card_home_wins(self):
        game = table(
            "yukon",
            {3: "Ks"},
            foundations="Ac 2c 3c 4c 5c 6c 7c 8c 9c 10c Jc Qc Kc / "
            "Ad 2d 3d 4d 5d 6d 7d 8d 9d 10d Jd Qd Kd / Ah 2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh / "
            "As 2s 3s 4s 5s 6s 7s 8s 9s 10s Js Qs",
        )
        assert game.outcome is None
        game.play("3 f")
        assert game.outcome is not None and game.outcome.won
        assert game.foundation_cards == 52

    # rules.md Yukon "Win": "Finish all" once nothing is face down and every column is
    # sorted in alternating colours, descending.
    def test_finish_all_is_offered_on_sorted_columns_and_wins(self):
        game = table(
            "yukon",
            {1: "Kc Qh Jc", 2: "Kh Qs Jh 10s", 3: "Jd 10c", 4: "Ks Qd Js 10d", 5: "Kd Qc"},
            foundations="Ac 2c 3c 4c 5c 6c 7c 8c 9c / Ad 2d 3d 4d 5d 6d 7d 8d 9d / "
            "Ah 2h 3h 4h 5h 6h 7h 8h 9h 10h / As 2s 3s 4s 5s 6s 7s 8s 9s",
        )
        assert game.can_finish
        finish = game.finishing_moves()
        assert len(finish) == 15
        for move in finish:
            game.play(move)
        assert game.outcome is not None and game.outcome.won

    def test_finish_all_is_not_offered_on_an_unsorted_column(self):
        game = table("yukon", {1: "*", 2: "Kh 5c"})
        assert not game.can_finish
        assert game.finishing_moves() == []

    def test_finish_all_is_not_offered_while_a_card_lies_face_down(self):
        game = table(
            "yukon",
            {1: "Kc | Qh", 2: "Kh Qc"},
            foundations="Ac 2c 3c 4c 5c 6c 7c 8c 9c 10c Jc / "
            "Ad 2d 3d 4d 5d 6d 7d 8d 9d 10d Jd Qd Kd / Ah 2h 3h 4h 5h 6h 7h 8h 9h 10h Jh / "
            "As 2s 3s 4s 5s 6s 7s 8s 9s 10s Js Qs Ks",
        )
        assert not game.can_finish

    # rules.md Yukon: the result shows moves, time, undos and hints.
    def test_the_counters_show_moves_undos_and_hints(self):
        game = worked_example()
        game.play("9s 5")
        game.hint()
        game.undo()
        game.play("9s 5")
        assert game.counters == {"moves": 1, "undos": 1, "hints": 1, "score": 5}

    # rules.md Yukon: a player can play a deal into a dead end; with no move left but
    # moves back from the foundations the engine reports no more moves.
    def test_no_move_but_from_the_foundations_is_no_more_moves(self):
        game = table(
            "yukon",
            {1: "* | 5c", 2: "5s", 3: "3s", 4: "3c", 5: "Js", 6: "Jc", 7: "9s"},
            foundations="Ah 2h 3h 4h / - / - / -",
        )
        assert [m.source for m in game.legal_moves] == [foundation_source(0)] * 2
        assert game.outcome is not None
        assert game.outcome.termination is Termination.NO_MOVES


class TestRussianAndAlaska:
    # rules.md Yukon "Variants": Russian Solitaire builds down in the same suit.
    def test_russian_builds_down_in_the_same_suit(self):
        game = table("russian", {1: "* | 9h", 2: "Qs 8h", 3: "Qc 8d"})
        with pytest.raises(IllegalMoveError) as error:
            game.play("8d 1")
        assert error.value.en == "♦8 only fits on ♦9."
        assert error.value.de == "♦8 passt nur auf ♦9."
        game.play("8h 1")
        assert [CODES[c] for c in game.position.tableau[0][-2:]] == ["9h", "8h"]

    # rules.md Yukon "Variants": Alaska builds in the same suit, up or down.
    def test_alaska_builds_in_the_same_suit_up_or_down(self):
        game = table("alaska", {1: "* | 9h", 2: "Qs 8h", 3: "Qc 10h", 4: "Jd 8s"})
        targets = {(m.source, m.size) for m in game.legal_moves if m.target == 0}
        assert targets == {(1, 1), (2, 1)}
        with pytest.raises(IllegalMoveError) as error:
            game.play("8s 1")
        assert error.value.en == "♠8 only fits on ♠7 or ♠9."
        game.play("10h 1")
        assert [CODES[c] for c in game.position.tableau[0][-2:]] == ["9h", "10h"]

    def test_yukon_itself_takes_the_other_colour_not_the_same_suit(self):
        game = table("yukon", {1: "* | 9h", 2: "Qs 8h", 3: "Qc 8s"})
        assert {m.source for m in game.legal_moves if m.target == 0} == {2}

    def test_the_variants_share_the_yukon_layout(self):
        layouts = {
            v: game_text(new_game(v, 42)).split("\n", 1)[1] for v in ("yukon", "russian", "alaska")
        }
        assert layouts["yukon"] == layouts["russian"] == layouts["alaska"]
