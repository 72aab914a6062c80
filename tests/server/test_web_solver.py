"""The solver's help in the page's practice: "still winnable?" and jump back.

Klondike deal 2 is winnable; the line of tests/server/solver_cases.py throws it away.
The line is played from a second connection of the same guest, the last move by a tap
in the page, so the server's unasked verdict reaches the page's own connection.
"""

from __future__ import annotations

import json

from arena_client import Connect
from playwright.async_api import Browser
from solver_cases import LOST_LINE, LOST_SEED
from test_web_practice import assert_same_board, practice
from web_browser import DESKTOP, board_ready, browser, drawn_board, play_by_taps, snapshot

from engine import new_game
from server.transport.app import ArenaServer

__all__ = ["browser"]  # the fixture, imported for pytest


async def test_still_winnable_and_jump_back(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    page = await practice(browser, server, "klondike", LOST_SEED, viewport=DESKTOP)
    assert await page.is_visible("#check") and await page.is_hidden("#jump-back")
    await page.click("#check")
    await page.wait_for_selector("#message:has-text('Still winnable: the solver found a win')")
    assert await page.is_hidden("#jump-back")

    kept = json.loads(await page.evaluate("localStorage.getItem('solitaire.practice')"))
    token = await page.evaluate("localStorage.getItem('solitaire.token')")
    other = await connect(token=token)
    game = new_game("klondike", LOST_SEED)
    for text in LOST_LINE[:-1]:
        await other.ok("move", game=kept["game"], text=text)
        game.play(text)
    await page.reload()
    await board_ready(page, moves=game.counters["moves"])

    # The last move by a tap: the server finds the game lost and tells the page unasked.
    await play_by_taps(page, game.view(), LOST_LINE[-1])
    game.play(LOST_LINE[-1])
    await board_ready(page, moves=game.counters["moves"])
    await page.wait_for_selector("#jump-back:visible", timeout=60_000)
    lost = await page.inner_text("#message")
    # Practice has no Give up button, so the way out it names is a new game.
    assert lost == (
        "Lost: no win from here. Undo, jump back to the last winnable move, or start a new game."
    )
    await snapshot(page, "practice-lost-desktop")

    lost_at = game.counters["moves"]
    await page.click("#jump-back")
    await page.wait_for_selector("#message:has-text('Back at the last winnable position')")
    shown = int(await page.inner_text("[data-counter=moves]"))
    back = lost_at - shown
    assert back > 0
    said = await page.inner_text("#message")
    assert said.endswith(f"({back} move{'' if back == 1 else 's'} taken back).")
    for _ in range(back):
        game.undo()
    assert_same_board(await drawn_board(page), game)
    assert await page.is_hidden("#jump-back")
    # And it is winnable there, as the solver says when asked.
    await page.click("#check")
    await page.wait_for_selector("#message:has-text('Still winnable')")
    assert page.errors == []  # type: ignore[attr-defined]


async def test_no_solver_help_offline_or_in_a_daily(browser: Browser, server: ArenaServer) -> None:
    page = await practice(browser, server, "yukon", 3)
    assert await page.is_visible("#check")
    await page.click("a[data-tab=daily]")
    await page.click("[data-action=daily-play]")
    await board_ready(page, moves=0)
    assert await page.is_hidden("#check")  # a daily has no solver help
