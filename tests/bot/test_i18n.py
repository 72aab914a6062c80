"""One language at a time: rank letters, plurals and labels of each language."""

from __future__ import annotations

import re

import pytest

import engine
from bot.i18n import TEXTS, error_text, rank_text, text
from bot.render import card_text, render_board
from bot.views import board_buttons

# A card as a board writes it: rank then a text suit mark.
CARD = re.compile("(?<![0-9A-Za-z])(10|[2-9A-Z])(?:♣\ufe0e|♢|♡|♠\ufe0e)")


def board_ranks(board: str) -> set[str]:
    return set(CARD.findall(board))


class TestRankLetters:
    def test_german_boards_write_b_d_k_like_the_engines_german_reasons(self) -> None:
        assert rank_text("J", "de") == "B" and rank_text("Q", "de") == "D"
        assert rank_text("K", "de") == "K" and rank_text("A", "de") == "A"
        assert card_text("Qs", locale="de") == "D♠\ufe0e" and card_text("Jh", locale="en") == "J♡"

    @pytest.mark.parametrize("variant", ["klondike", "spider-4", "yukon"])
    def test_every_card_of_a_board_in_one_convention(self, variant: str) -> None:
        view = engine.new_game(variant, seed=11).view()
        deck = [r + s for s in "cdhs" for r in ("A", *map(str, range(2, 11)), "J", "Q", "K")]
        columns = len(view["tableau"])
        view["tableau"] = [{"down": 0, "up": deck[i::columns]} for i in range(columns)]
        german, english = render_board(view, "de"), render_board(view, "en")
        assert {"B", "D", "K", "A"} <= board_ranks(german)
        assert not {"J", "Q"} & board_ranks(german)
        assert {"J", "Q", "K", "A"} <= board_ranks(english)
        assert not {"B", "D"} & board_ranks(english)

    def test_the_yukon_menu_speaks_german(self) -> None:
        view = engine.new_game("yukon", seed=1).view()
        ui = board_buttons(1, view, "de", sel="6")
        assert ui is not None and ui.select is not None
        menu = ui.select
        labels = [o.label for o in menu.item.options]
        assert labels[:2] == ["D♢ (2 Karten)", "D♡ (3 Karten)"]
        assert not any("Q" in label or "J" in label for label in labels)


class TestPlurals:
    def test_one_is_singular(self) -> None:
        assert text("en", "card_count", card="9♡", count=1) == "9♡ (1 card)"
        assert text("en", "card_count", card="9♡", count=2) == "9♡ (2 cards)"
        assert text("de", "card_count", card="9♡", count=1) == "9♡ (1 Karte)"
        assert text("en", "board_total", total=1) == "1 player"
        assert text("en", "board_total", total=3) == "3 players"
        line = text("en", "standing_line", rank="4", name="Ada", foundation=1, moves=1)
        assert line == "4. Ada: 1 card home, 1 move"
        line = text("de", "standing_line", rank="4", name="Ada", foundation=1, moves=2)
        assert line == "4. Ada: 1 Karte oben, 2 Züge"
        assert text("en", "board_won", time="1:00", moves=1) == "1:00, 1 move"

    def test_no_text_says_one_of_a_plural(self) -> None:
        """Every text with a number before a counted word chooses the word by the number."""
        counted = re.compile(r"\{(\w+)\} (cards|players|moves|Karten|Züge|days|Tage)\b")
        for key, pair in TEXTS.items():
            for template in pair:
                assert not counted.search(template), (key, template)


class TestWords:
    def test_undo_button_and_undo_counter_differ(self) -> None:
        for locale in ("en", "de"):
            counter = text(locale, "undos", count=2).removesuffix(" 2")
            assert counter != text(locale, "btn_undo")
        assert text("de", "undos", count=2) == "Rücknahmen 2"

    def test_the_streak_is_a_daily_streak(self) -> None:
        fields = {"variant": "Yukon", "wins": 3, "games": 4, "rate": 75, "best": "3:00"}
        english = text("en", "stats_line", streak=1, longest=5, **fields)
        german = text("de", "stats_line", streak=2, longest=5, **fields)
        assert "daily streak 1 day (longest 5)" in english
        assert "Tagesserie 2 Tage (längste 5)" in german


def test_errors_write_cards_as_boards_do() -> None:
    """The engine's reason says "♦6 only fits on a black 7."; the board shows 6♢."""
    game = engine.new_game("klondike", seed=5)
    with pytest.raises(engine.IllegalMoveError) as caught:
        game.play("3>4")
    said = error_text("en", "illegal_move", str(caught.value))
    assert "6♢ only fits on a black 7." in said and "♦" not in said
    assert card_text("6d") in said
    german = error_text("de", "illegal_move", "♠K passt nur auf ♠D.")
    assert f"{card_text('Ks', locale='de')} passt nur auf {card_text('Qs', locale='de')}" in german
