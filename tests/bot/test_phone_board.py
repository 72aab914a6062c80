"""Boards on a 360 px phone, laid out as Discord's app does, in a real browser.

Every variant's opening, the position of its solver-won line with the longest column,
and Spider 4-suit in the middle of its won line, drawn by the bot's own board builder
with the application's card emoji and laid out by tests/bot/phone_board.py in Debian's
chromium: the layout properties of docs/discord.md ("Phone first") hold for each.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest
from board_sweep import APP_SUITS, board_table
from phone_board import PHONE_WIDTH, SCREEN_HEIGHT, Layout, Shown, boards_to_show, measure
from playwright.async_api import async_playwright

from bot.render import CONTINUED
from tests.server.web_browser import CHROMIUM

SHOWN = boards_to_show(board_table(), APP_SUITS)
GERMAN = boards_to_show(board_table(), APP_SUITS, "de")  # longer words, same rules


@pytest.fixture(scope="module")
async def phone() -> AsyncIterator[Any]:
    """A page 360 css px wide in Debian's chromium."""
    assert CHROMIUM.exists(), f"{CHROMIUM} is missing: apt-get install chromium"
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"]
        )
        page = await browser.new_page(viewport={"width": PHONE_WIDTH, "height": 900})
        yield page
        await browser.close()


async def laid_out(phone: Any, board: Shown) -> Layout:
    return await measure(phone, board.content, board.view)


@pytest.mark.timeout(300)
async def test_no_line_wraps_and_the_counters_keep_to_one_line(phone: Any) -> None:
    for board in SHOWN + GERMAN:
        layout = await laid_out(phone, board)
        assert layout.wrapped == [], (board.name, layout.wrapped)
        assert not layout.counters_wrapped, board.name


@pytest.mark.timeout(300)
async def test_openings_show_every_column_unwrapped(phone: Any) -> None:
    for board in SHOWN + GERMAN:
        if board.state != "opening":
            continue
        layout = await laid_out(phone, board)
        # Coloured suits are wider: a long opening column (Russian, Yukon) may go on on
        # a line named for it, never wrapped by the phone.
        columns = 10 if board.variant.startswith("spider") else 7
        assert layout.columns >= columns and layout.wrapped_columns == 0, board.name
        if board.variant.startswith(("klondike", "spider")):
            assert CONTINUED not in board.content, board.content


@pytest.mark.timeout(300)
async def test_a_long_column_goes_on_only_on_a_line_named_for_it(phone: Any) -> None:
    continued = 0
    for board in SHOWN:
        lines = board.content.split("\n")
        for before, line in itertools.pairwise(lines):
            if line.startswith(CONTINUED):
                continued += 1
                number = line[1:].split(" ")[0]
                assert number.isdigit(), line  # "↳7 …": which column goes on
                # it follows its own column's line (or that column's last continuation)
                assert before.startswith((f"{CONTINUED}{number} ",)) or number in before[:6]
    assert continued > 0  # the long columns along the won lines do go on


@pytest.mark.timeout(300)
async def test_boards_with_room_beside_every_column_fit_one_screen(phone: Any) -> None:
    """A board whose every column has its button beside it fits one phone screen; a
    crowded Spider board (its buttons in rows under the text) takes at most 1.3 screens
    (its coloured pile buttons are wider, three to a row)."""
    for board in SHOWN + GERMAN:
        layout = await laid_out(phone, board)
        sections = [c for c in board.view.children if isinstance(c, discord.ui.Section)]
        if len(sections) >= len(board.view.children) // 2:
            assert layout.height <= SCREEN_HEIGHT, (board.name, layout.height)
        else:
            assert layout.height <= SCREEN_HEIGHT * 1.3, (board.name, layout.height)


@pytest.mark.timeout(300)
async def test_pile_buttons_name_their_card_in_colour_and_rows_do_not_wrap(phone: Any) -> None:
    for board in SHOWN + GERMAN:
        layout = await laid_out(phone, board)
        piles = [c for c in board.view.walk_children() if getattr(c, "pile", None)]
        for button in piles:
            label = button.item.label
            assert label, board.name
            empty = ("Empty", "Leer", f"{button.pile} ")
            if button.pile.isdigit() and not label.startswith(empty):
                # a card: its rank, and its suit as the application's card emoji
                assert button.item.emoji is not None, label
                assert button.item.emoji.name.startswith("sa_"), label
        # the rows of buttons do not wrap on the phone (the controls may)
        assert layout.wrapped_rows <= 1, board.name
        # the foundation as a target stays hidden until a source is selected
        if "👉" not in board.content:
            assert "f" not in [c.pile for c in piles], board.name
