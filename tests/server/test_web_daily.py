"""The daily deal in the page, in a real browser, beside a WebSocket player."""

from __future__ import annotations

from datetime import UTC, datetime

from arena_client import Connect
from playwright.async_api import Browser
from web_browser import DESKTOP, board_ready, browser, give_up, open_page, page_url, snapshot

from server.transport.app import ArenaServer

__all__ = ["browser"]  # the fixture, imported for pytest


async def test_a_ranked_daily_attempt_and_the_board(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    page = await open_page(browser, page_url(server.url, "#daily"), DESKTOP)
    today = datetime.now(UTC).date().isoformat()
    # The first look at the day's deal has the server's solver choose it: time to spare.
    await page.wait_for_selector(f"#daily-panel h2:has-text('{today}')", timeout=120_000)
    assert "Nobody has played yet." in await page.inner_text("[data-daily-board]")
    assert await page.locator("[data-daily-stats]").count() == 0  # no counted game yet
    assert await page.is_hidden("#game")

    bob = await connect(name="Bob")
    started = await bob.ok("daily_start", variant="klondike")
    await bob.ok("resign", game=started["game"])

    await page.click('[data-action="daily-play"]')
    await board_ready(page, moves=0)
    assert "Ranked attempt" in await page.inner_text("#daily-panel")
    assert await page.locator("#board .slot.column").count() == 7
    await page.click("#hint")  # a daily's hint is the engine's, counted
    await page.wait_for_selector("#board .hinted")
    await snapshot(page, "daily-desktop")

    await give_up(page, "daily-resign")
    await page.wait_for_selector("[data-daily-board] tbody tr >> nth=1")
    rows = await page.eval_on_selector_all(
        "[data-daily-board] tbody tr", "rows => rows.map(r => r.textContent)"
    )
    assert len(rows) == 2
    assert any("(you)" in row and "gave up" in row for row in rows)
    assert any("Bob" in row for row in rows)
    assert "ranked: gave up" in await page.inner_text("#daily-panel .attempts")
    assert "Play again (practice)" in await page.inner_text('[data-action="daily-play"]')
    # The player's record counts the ranked attempt, lost, and no streak.
    assert await page.inner_text("[data-daily-stats]") == (
        "Your record: a streak of 0 days (longest 0), 0 wins of 1, best time –."
    )

    mine = await bob.ok("daily_board", variant="klondike")
    assert mine["total"] == 2
    assert page.errors == []  # type: ignore[attr-defined]
