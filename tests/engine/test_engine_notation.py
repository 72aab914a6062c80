"""Move notation: the canonical form round-trips; the forgiving parser reads what people
type (design.md "engine/", docs/notation.md); errors are typed and bilingual."""

from __future__ import annotations

import pytest
from engine_tables import table
from hypothesis import given, strategies as st

from engine import (
    AmbiguousMoveError,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    MoveError,
    is_undo_text,
)
from engine.moves import DRAW, FOUNDATION, STOCK, WASTE, foundation_source


def columns_table():
    """Klondike: an empty column 1, ♠K alone in 2, ♠10 on 3, ♦10 on 5 with ♦A..9
    home, ♣6 on 6 with ♥A..5 home, ♥9 on 7; the rest in the stock."""
    return table(
        "klondike",
        {1: "", 2: "Ks", 3: "10s", 4: "2c | 7c", 5: "10d", 6: "6c", 7: "Qd | 9h"},
        foundations="- / Ad 2d 3d 4d 5d 6d 7d 8d 9d / Ah 2h 3h 4h 5h / -",
        stock="*",
    )


def waste_table():
    """Klondike: ♣2 on the waste with ♣A home, ♥3 on column 3, ♥A alone on column 6,
    ♦A on column 7."""
    return table(
        "klondike",
        {1: "* | Qc", 2: "Jh", 3: "3h", 4: "Kd", 5: "Qs", 6: "Ah", 7: "Ad"},
        foundations="Ac / - / - / -",
        waste="2c",
        counters="moves=0 score=0 redeals=0 fan=1",
    )


class TestCanonicalForm:
    # docs/notation.md: the canonical forms, read back exactly.
    @pytest.mark.parametrize(
        ("text", "move"),
        [
            ("d", Move(STOCK, STOCK, 1)),
            ("7>3", Move(6, 2, 1)),
            ("7:3>2", Move(6, 1, 3)),
            ("10:12>1", Move(9, 0, 12)),
            ("7>f", Move(6, FOUNDATION, 1)),
            ("w>3", Move(WASTE, 2, 1)),
            ("w>f", Move(WASTE, FOUNDATION, 1)),
            ("f2>5", Move(foundation_source(1), 4, 1)),
        ],
    )
    def test_each_canonical_form(self, text, move):
        assert Move.from_notation(text) == move
        assert move.notation() == text == str(move)
        assert repr(move) == f"Move.from_notation('{text}')"

    @pytest.mark.parametrize(
        "text", ["7 3", "7:1>3", "w:2>3", "f2:2>1", "0>3", "11>1", "7>f2", "f9>1", "D", "d "]
    )
    def test_other_texts_are_not_canonical(self, text):
        with pytest.raises(ValueError, match="canonical"):
            Move.from_notation(text)

    @given(
        source=st.one_of(
            st.integers(0, 9), st.just(WASTE), st.integers(0, 7).map(foundation_source)
        ),
        target=st.one_of(st.integers(0, 9), st.just(FOUNDATION)),
        size=st.integers(1, 99),
    )
    def test_every_move_round_trips(self, source, target, size):
        move = Move(source, target, size if source >= 0 else 1)
        assert Move.from_notation(move.notation()) == move


class TestForgivingParser:
    # design.md: `7 3`, `7>3`, `9h 3`, German and English words, symbols or letters.
    @pytest.mark.parametrize(
        ("text", "canonical"),
        [
            ("7 3", "7>3"),
            ("7>3", "7>3"),
            ("7-3", "7>3"),
            ("7,3", "7>3"),
            ("7 to 3", "7>3"),
            ("7 auf 3", "7>3"),
            ("9h 3", "7>3"),
            ("9♥ 3", "7>3"),
            ("♥9 3", "7>3"),
            ("9h-3", "7>3"),
            ("10d f", "5>f"),
            ("10♦ f", "5>f"),
            ("T♦ f", "5>f"),
            ("5 f", "5>f"),
            ("K♠ 1", "2>1"),
            ("Ks 1", "2>1"),
            ("f♥ 6", "f3>6"),
            ("fh 6", "f3>6"),
            ("f3 6", "f3>6"),
            ("Fundament♥ 6", "f3>6"),
            ("f 6", "f3>6"),
        ],
    )
    def test_columns_cards_and_foundations(self, text, canonical):
        assert columns_table().parse(text).notation() == canonical

    @pytest.mark.parametrize(
        ("text", "canonical"),
        [
            ("w f", "w>f"),
            ("7 f", "7>f"),
            ("7 Fundament", "7>f"),
            ("Ablage Fundament", "w>f"),
            ("ablage f", "w>f"),
            ("w 3", "w>3"),
            ("Ablage 3", "w>3"),
            ("B♥ 1", "2>1"),  # Bube
            ("Bh 1", "2>1"),
            ("D♠ 4", "5>4"),  # Dame
            ("Ds 4", "5>4"),
            ("A♥ f", "6>f"),  # Ass
            ("♥A f", "6>f"),
        ],
    )
    def test_the_waste_and_german_words(self, text, canonical):
        assert waste_table().parse(text).notation() == canonical

    @pytest.mark.parametrize(
        "text", ["d", "draw", "deal", "ziehen", "geben", "austeilen", "Talon", " D "]
    )
    def test_the_stock_words(self, text):
        assert columns_table().parse(text) == DRAW

    @pytest.mark.parametrize(
        "text", ["undo", "u", "z", "back", "zurück", "Zurück", "rückgängig", " UNDO "]
    )
    def test_the_undo_words(self, text):
        assert is_undo_text(text)

    @pytest.mark.parametrize("text", ["d", "w", "7 3", "undo 3", "f"])
    def test_other_texts_are_not_undo(self, text):
        assert not is_undo_text(text)


class TestSourceAlone:
    """rules.md Klondike: "a move may be named by its source alone" (seed 001: tap a
    card and it goes to wherever it legally fits)."""

    def test_a_tapped_ace_and_a_tapped_two_go_home(self):
        game = waste_table()
        assert game.parse("Ah").notation() == "6>f"
        assert game.parse("6").notation() == "6>f"
        assert game.parse("w").notation() == "w>f"
        assert game.parse("Ablage").notation() == "w>f"

    def test_a_card_still_needed_in_the_tableau_goes_to_a_column(self):
        foundations = "- / - / Ah 2h 3h 4h / -"
        game = table("klondike", {1: "* | 5h", 2: "6c"}, foundations=foundations)
        assert game.parse("5h").notation() == "1>2"
        home = "Ac 2c 3c 4c / - / Ah 2h 3h 4h / As 2s 3s 4s"
        game = table("klondike", {1: "* | 5h", 2: "6c"}, foundations=home)
        assert game.parse("5h").notation() == "1>f"

    def test_between_equal_columns_the_lowest_number(self):
        game = columns_table()
        assert game.parse("f").notation() == "f2>3"
        assert game.parse("♥9").notation() == "7>3"

    def test_a_card_that_fits_nowhere_says_so(self):
        with pytest.raises(IllegalMoveError) as error:
            waste_table().parse("Kd")
        assert error.value.en == "♦K fits nowhere now."
        assert error.value.de == "♦K passt gerade nirgends."

    def test_a_column_with_nothing_to_move_says_so(self):
        with pytest.raises(IllegalMoveError) as error:
            waste_table().parse("4")
        assert error.value.en == "Nothing in column 4 can move."
        assert error.value.de == "Aus Spalte 4 lässt sich nichts bewegen."


class TestTypedErrors:
    # design.md: invalid input, illegal move (with the human reason), ambiguous move.
    @pytest.mark.parametrize("text", ["hello", "", "7 3 2", "8 3", "1 x", "3 0", "f9 1"])
    def test_unreadable_text_is_an_invalid_move(self, text):
        game = columns_table()
        before = game.position
        with pytest.raises(InvalidMoveError) as error:
            game.play(text)
        assert error.value.en == (
            f"Cannot read {text!r} as a move; try '7 3', 'w f', '9h 3' or 'd'."
        )
        assert error.value.de == (
            f"{text!r} ist kein lesbarer Zug; versuche '7 3', 'w f', '9h 3' oder 'd'."
        )
        assert game.position is before and game.actions == []

    def test_an_illegal_move_gives_its_reason_in_both_languages(self):
        game = columns_table()
        with pytest.raises(IllegalMoveError) as error:
            game.play("9h 5")
        assert str(error.value) == "♥9 only fits on a black 10."
        assert error.value.message("de") == "♥9 passt nur auf 10 in Schwarz."
        assert error.value.message("de-CH") == error.value.reason_de
        assert error.value.message("en") == error.value.reason_en
        assert game.position.moves == 0 and game.actions == []

    def test_an_ambiguous_move_lists_the_candidates(self):
        game = table("yukon", {1: "* | 8s", 3: "10h", 7: "9s 4d 9c 2h"})
        with pytest.raises(AmbiguousMoveError) as error:
            game.play("7 3")
        assert error.value.candidates == ["7:2>3", "7:4>3"]
        assert error.value.en == "'7 3' could mean several moves: 7:2>3, 7:4>3. Say which one."
        assert error.value.de == (
            "'7 3' passt auf mehrere Züge: 7:2>3, 7:4>3. Bitte genauer angeben."
        )
        assert game.play("9c 3") == Move(6, 2, 2)

    def test_a_unit_into_an_empty_spider_pile_is_ambiguous_without_a_size(self):
        game = table("spider-4", {1: "* | 9c 8c", 2: "Kh", 3: "Kd"})
        with pytest.raises(AmbiguousMoveError):
            game.parse("1 4")
        assert game.parse("1:2 4") == Move(0, 3, 2)
        assert game.parse("8c 4") == Move(0, 3, 1)

    def test_every_error_is_a_value_error_and_a_move_error(self):
        for kind in (InvalidMoveError, IllegalMoveError, AmbiguousMoveError):
            assert issubclass(kind, MoveError) and issubclass(kind, ValueError)
