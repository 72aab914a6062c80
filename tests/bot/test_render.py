"""The emoji board: every variant, random reachable positions, Discord's limits, no hidden card."""

from __future__ import annotations

import contextlib
import random
import re
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

import engine
from bot.i18n import TEXTS
from bot.render import (
    CONTENT_LIMIT,
    CONTINUED,
    FACE_DOWN,
    KEYCAPS,
    POINTER,
    TARGET,
    card_text,
    discord_length,
    format_time,
    game_time,
    render_board,
    targets_of,
)

VARIANTS = sorted(engine.VARIANTS)
CARD = re.compile("(?:10|[2-9AJQKBD])(?:♣\ufe0e|♢|♡|♠\ufe0e)")
# The application's card emoji as Discord writes them (ids are 17 to 20 digits).
APP_SUITS = {s: f"<:sa_{s}:13{n}0000000000000000>" for n, s in enumerate("cdhs")}


def random_view(variant: str, seed: int, steps: int, chooser: random.Random) -> dict[str, Any]:
    """The view after up to ``steps`` random legal moves (and some undos) from a real deal."""
    game = engine.new_game(variant, seed=seed)
    for _ in range(steps):
        moves = list(game.legal_moves)
        if not moves:
            break
        if chooser.random() < 0.1:
            with contextlib.suppress(engine.IllegalMoveError):  # nothing to undo yet
                game.undo()
        else:
            game.play(chooser.choice(moves))
    return game.view()


def column_lines(board: str, columns: int) -> list[str]:
    """The board's column lines, in order."""
    return [
        next(line for line in board.splitlines() if line.startswith(KEYCAPS[i]))
        for i in range(columns)
    ]


RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def shown_column(board: str, number: int, locale: str) -> tuple[int, list[str]]:
    """What a board shows of column ``number``: its face-down count and its face-up cards,
    read back from its line and its continuation lines ("↳7 …"), with "🟦×5" counted and
    a same-suit run "K♠︎–8♠︎" spelled out."""
    lines = board.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(KEYCAPS[number - 1]))
    text = lines[start]
    for line in lines[start + 1 :]:
        if not line.startswith(f"{CONTINUED}{number} "):
            break
        text += " " + line.split(" ", 1)[1]
    counted = re.search(f"{FACE_DOWN}×(\\d+)", text)
    down = int(counted.group(1)) if counted else text.count(FACE_DOWN)
    cards: list[str] = []
    letters = RANKS if locale == "en" else (*RANKS[:10], "B", "D", "K")
    for run in re.finditer(f"({CARD.pattern})–({CARD.pattern})|({CARD.pattern})", text):
        if run.group(3):
            cards.append(run.group(3))
            continue
        first, last = run.group(1), run.group(2)
        suit = first[len(first.rstrip("♣♢♡♠\ufe0e")) :]
        high = letters.index(first[: -len(suit)])
        low = letters.index(last[: -len(suit)])
        assert high > low + 1, run.group(0)
        cards += [letters[r] + suit for r in range(high, low - 1, -1)]
    return down, cards


class TestEveryVariant:
    @pytest.mark.parametrize("variant", VARIANTS)
    @pytest.mark.parametrize("locale", ["en", "de"])
    @settings(max_examples=25)
    @given(seed=st.integers(0, 2**64 - 1), steps=st.integers(0, 200), pick=st.integers(0, 2**32))
    def test_random_positions_fit_and_hide(
        self, variant: str, locale: str, seed: int, steps: int, pick: int
    ) -> None:
        view = random_view(variant, seed, steps, random.Random(pick))
        sources = list(view["legal_moves"])
        selected = sources[pick % len(sources)] if sources else None
        board = render_board(view, locale, selected=selected, elapsed_ms=pick)
        assert discord_length(board) <= CONTENT_LIMIT
        assert "`" not in board  # no code blocks: emoji do not render in them
        for number, column in enumerate(view["tableau"], start=1):
            down, cards = shown_column(board, number, locale)
            assert down == column["down"]
            assert cards == [card_text(c, locale=locale) for c in column["up"]]

    @pytest.mark.parametrize("variant", VARIANTS)
    def test_every_card_on_the_table_still_fits(self, variant: str) -> None:
        """The longest text a board can have: every card of the deal face up (a face-up
        card takes more room than a face-down one), big counters and a notice."""
        game = engine.new_game(variant, seed=1)
        view = game.view()
        copies = 2 if variant.startswith("spider") else 1
        deck = [
            r + s
            for _ in range(copies)
            for s in "cdhs"
            for r in ("A", *map(str, range(2, 11)), "J", "Q", "K")
        ]
        columns = len(view["tableau"])
        view["tableau"] = [{"down": 0, "up": deck[i::columns]} for i in range(columns)]
        view["counters"] = {"moves": 99999, "undos": 9999, "hints": 9999, "score": -99999}
        if view.get("waste") is not None:
            view["waste"] = {"count": 24, "visible": ["10h", "10d", "10c"]}
        view["legal_moves"] = {"1": [f"1:13>{n}" for n in range(2, columns + 1)] + ["1>f"]}
        notice = TEXTS["help"][1][:300]
        board = render_board(view, "de", selected="1", notice=notice, elapsed_ms=10**9)
        assert discord_length(board) <= CONTENT_LIMIT


class TestSuitMarks:
    def test_text_marks_never_use_discords_dark_suit_emoji(self) -> None:
        """Red suits outlined, black ones filled and asked for as text (U+FE0E), all in
        the theme's text colour; never the ♠️ ♣️ emoji drawn in #31373D."""
        assert card_text("9h") == "9♡" and card_text("10d") == "10♢"
        assert card_text("Qs") == "Q♠\ufe0e" and card_text("Ac") == "A♣\ufe0e"
        for variant in VARIANTS:
            board = render_board(engine.new_game(variant, seed=3).view(), "en")
            assert not {"♠\ufe0f", "♣\ufe0f", "♥\ufe0f", "♦\ufe0f"} & set(
                board[i : i + 2] for i in range(len(board))
            )
            for black in "♠♣":  # never bare, which Discord may draw as its emoji
                assert board.count(black) == board.count(black + "\ufe0e")

    def test_the_applications_card_emoji_when_the_board_fits(self) -> None:
        view = engine.new_game("klondike", seed=5).view()
        board = render_board(view, "en", suits=APP_SUITS)
        top = view["tableau"][6]["up"][-1]
        assert column_lines(board, 7)[6].endswith(top[:-1] + APP_SUITS[top[-1]])
        assert "♡" not in board and "♢" not in board

    def test_a_board_too_long_with_the_emoji_falls_back_to_text_marks(self) -> None:
        view = engine.new_game("spider-4", seed=5).view()
        deck = [r + s for s in "cdhs" for r in ("A", *map(str, range(2, 11)), "J", "Q", "K")]
        view["tableau"] = [{"down": 0, "up": (deck * 2)[i::10]} for i in range(10)]
        board = render_board(view, "en", suits=APP_SUITS)
        assert "<:sa_" not in board and "♡" in board
        assert discord_length(board) <= CONTENT_LIMIT


class TestLayout:
    def test_selected_source_and_its_targets_are_marked(self) -> None:
        view = engine.new_game("klondike", seed=5).view()
        source, moves = next(
            (s, m)
            for s, m in view["legal_moves"].items()
            if s.isdigit() and any(">" in x and not x.endswith("f") for x in m)
        )
        board = render_board(view, "en", selected=source)
        lines = column_lines(board, 7)
        assert lines[int(source) - 1].startswith(KEYCAPS[int(source) - 1] + POINTER)
        for target in targets_of(moves):
            if target.isdigit():
                assert TARGET in lines[int(target) - 1]
        assert sum(TARGET in line for line in lines) == sum(t.isdigit() for t in targets_of(moves))

    def test_targets_filtered_by_size(self) -> None:
        moves = ["2:3>6", "2:8>5", "2>f"]
        assert targets_of(moves) == {"6", "5", "f"}
        assert targets_of(moves, 3) == {"6"}
        assert targets_of(moves, 1) == {"f"}

    def test_counters_outcome_and_language(self) -> None:
        view = engine.new_game("klondike-3", seed=9).view()
        view["counters"] = {"moves": 12, "undos": 2, "hints": 1, "score": 40}
        view["outcome"] = "won"
        english = render_board(view, "en", elapsed_ms=83_000)
        german = render_board(view, "de", elapsed_ms=83_000)
        # one line on a phone: undos and hints as marks when the words would not fit
        assert "⏱️ 1:23 · Moves 12 · ↶ 2 · 💡 1" in english
        assert "Won!" in english and "Gewonnen!" in german and "Züge 12" in german
        assert "Klondike · draw 3" in english

    def test_game_clock_runs_from_started_at_to_the_bots_clock(self) -> None:
        view = engine.new_game("klondike", seed=5).view()
        view |= {"status": "playing", "started_at": 1_000_000}
        english = render_board(view, "en", now_ms=1_083_000)
        german = render_board(view, "de", now_ms=1_083_000)
        assert "⏱️ 1:23 · Moves 0" in english and "⏱️ 1:23 · Züge 0" in german
        assert "⏱️" not in render_board(view, "en")  # no clock given: no time
        assert "⏱️ 0:05 ·" in render_board(view, "en", elapsed_ms=5_000, now_ms=1_083_000)

    def test_game_clock_stops_when_won_and_is_unknown_when_resigned(self) -> None:
        view = engine.new_game("klondike", seed=5).view()
        view |= {"status": "won", "started_at": 1_000_000, "finished_at": 1_125_000}
        assert game_time(view, 9_999_999) == 125_000
        assert "⏱️ 2:05 ·" in render_board(view, "en", now_ms=9_999_999)
        resigned = view | {"status": "resigned"}
        del resigned["finished_at"]
        assert game_time(resigned, 9_999_999) is None
        assert "⏱️" not in render_board(resigned, "en", now_ms=9_999_999)
        assert game_time({"status": "playing"}, 9_999_999) is None

    def test_hidden_seed_is_not_shown(self) -> None:
        view = engine.new_game("yukon", seed=77).view()
        view.pop("seed")
        view.pop("deal_code")
        assert "77" not in render_board(view, "en").splitlines()[0]

    def test_spider_shows_runs_and_deals_instead_of_foundations(self) -> None:
        view = engine.new_game("spider-2", seed=3).view()
        board = render_board(view, "en")
        assert "Runs done 0/8" in board and f"deals left {view['deals_left']}" in board
        assert "Foundations" not in board

    def test_time_format(self) -> None:
        assert format_time(0) == "0:00"
        assert format_time(61_999) == "1:01"
        assert format_time(3_726_000) == "1:02:06"
