"""Practice statistics per variant in the page (stats.js): games, wins, the streak, the
best streak and the best time, counted as games are won or left, kept in the browser."""

from __future__ import annotations

import re

from arena_client import Connect
from playwright.async_api import Browser
from test_web_finish import one_move_from_the_finish
from test_web_practice import moves_shown, practice
from web_browser import DESKTOP, browser, play_by_taps, snapshot

from engine import new_game
from engine.solver import solve
from server.transport.app import ArenaServer

__all__ = ["browser"]  # the fixture, imported for pytest


async def test_wins_streaks_and_games_left(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    page = await practice(browser, server, "yukon", 1, viewport=DESKTOP)
    await page.click("#stats-open")
    assert await page.inner_text("#stats") == (
        "Statistics\n\nNo practice game played in this browser yet."
    )
    game = await one_move_from_the_finish(page, connect, 1)
    last = solve(game.rules, game.position).moves[0].notation()
    await play_by_taps(page, game.view(), last)
    game.play(last)
    await moves_shown(page, game.counters["moves"] + len(game.finishing_moves()))
    line = await page.inner_text("[data-stats-line]")
    assert re.fullmatch(r"Practice: 1 win of 1 · streak 1 · best time 0:\d\d", line), line

    # A new deal played and left for another: a loss, the streak ends.
    await page.goto(page.url.split("#")[0] + "#deal=yukon:5")
    await moves_shown(page, 0)
    five = new_game("yukon", seed=5)
    hint = five.hint()
    assert hint is not None
    await play_by_taps(page, five.view(), hint.notation())
    await moves_shown(page, 1)
    await page.goto(page.url.split("#")[0] + "#deal=yukon:6")
    await moves_shown(page, 0)
    await page.click("#stats-open")
    row = page.locator('#stats tr[data-variant="yukon"]')
    cells = await row.locator("td").all_inner_texts()
    assert cells[:6] == ["Yukon", "2", "1", "50%", "0", "1"]
    assert re.fullmatch(r"0:\d\d", cells[6])
    assert await page.locator("#stats tbody tr").count() == 1  # only the variant played
    await snapshot(page, "stats-desktop")

    # A deal looked at and left without a move is no game; and it all stays after a reload.
    await page.goto(page.url.split("#")[0] + "#deal=klondike:1")
    await moves_shown(page, 0)
    await page.reload()
    await moves_shown(page, 0)
    await page.click("#stats-open")
    cells = await page.locator('#stats tr[data-variant="yukon"] td').all_inner_texts()
    assert cells[:6] == ["Yukon", "2", "1", "50%", "0", "1"]
    assert await page.locator("#stats tbody tr").count() == 1
    assert page.errors == []  # type: ignore[attr-defined]
