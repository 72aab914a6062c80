"""Play online in the page, in a real browser: quick match beside a WebSocket player, the
player's ratings with their chart, the rating board, and deal difficulty in practice and
on the daily."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest
from arena_client import Connect
from playwright.async_api import Browser
from web_browser import DESKTOP, PHONE, browser, open_page, page_url, snapshot

from server.core.ratings import SCALE
from server.ops.config import ServerConfig
from server.transport.app import ArenaServer

__all__ = ["browser"]  # the fixture, imported for pytest


@pytest.fixture
def server_config(server_config: ServerConfig) -> ServerConfig:
    """Quick matches start after half a second of waiting (the test's pace)."""
    return replace(server_config, quick_match_interval_s=0.1, quick_match_gather_s=0.5)


async def rate(server: ArenaServer, player: int, points: list[int], sigma: float) -> None:
    """Give ``player`` a klondike rating whose history passes through ``points`` (each a
    rated game of the ledger), as the ratings service stores it."""
    assert server.services is not None
    pool = server.services.storage.pool
    mu_of = [25 + (point - 1500) / SCALE for point in points]
    before = 25.0
    for mu in mu_of:
        game = await pool.fetchval(
            "insert into rated_games (variant, options) values ('klondike', '{\"passes\":0}') "
            "returning id"
        )
        await pool.execute(
            "insert into rating_changes (game_id, player_id, place, mu_before, sigma_before, "
            "mu, sigma) values ($1, $2, 1, $3, $4, $5, $4)",
            game,
            player,
            before,
            sigma,
            mu,
        )
        before = mu
    await pool.execute(
        "insert into ratings (variant, options, player_id, mu, sigma, games, rated_at) "
        "values ('klondike', '{\"passes\":0}', $1, $2, $3, $4, now())",
        player,
        mu_of[-1],
        sigma,
        len(points),
    )


async def test_ratings_chart_board_and_quick_match(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    assert server.services is not None
    server.services.boards.all_time_boards.ttl_ms = 0  # no board kept across the changes
    page = await open_page(browser, page_url(server.url, "#online"), DESKTOP)
    await page.wait_for_selector("[data-ratings] h2")
    await page.wait_for_selector("[data-board] h2")
    assert "No rating yet" in await page.inner_text("#online-panel")
    assert "Rated races are for signed-in players." in await page.inner_text("#quick-match")
    # This guest's and two others' ratings, as rated games would have left them (the
    # page's guest is the only player so far).
    assert server.services is not None
    player = await server.services.storage.pool.fetchval("select max(id) from players")
    await rate(server, player, [1510, 1540, 1525, 1580, 1562], sigma=4.0)
    bob, cy = await connect(name="Bob"), await connect(name="Cy")
    await rate(server, bob.welcome["player"]["id"], [1650], sigma=2.0)
    await rate(server, cy.welcome["player"]["id"], [1700], sigma=7.5)  # provisional

    await page.goto(page_url(server.url, "#"))
    await page.goto(page_url(server.url, "#online"))
    await page.wait_for_selector(".ratings .rating-chart")
    ratings_text = await page.inner_text("[data-ratings]")
    assert "1562" in ratings_text and "-18" in ratings_text and "5 rated" in ratings_text
    points = await page.get_attribute(".rating-chart polyline", "points")
    assert points is not None and len(points.split()) == 5
    board = await page.eval_on_selector_all(
        "[data-board] tbody tr", "rows => rows.map(r => r.innerText.replace(/\\s+/g, ' '))"
    )
    assert len(board) == 2 and board[0].startswith("1 Bob 1650 ±59")
    assert board[1].startswith("2 ") and "1562" in board[1]
    assert "1 still provisional" in await page.inner_text("[data-board]")
    await snapshot(page, "online-desktop")

    # Quick match: the page and a WebSocket player look for an unrated Yukon race.
    await page.select_option("#quick-match select[name=variant]", "yukon")
    await page.click("#quick-match [data-find]")
    await page.wait_for_selector("[data-wait]:not([hidden])")
    assert "Looking for players" in await page.inner_text("[data-wait]")
    found = await bob.ok("find_race", variant="yukon")
    assert found["rated"] is False
    await page.wait_for_url("**#race=*", timeout=20_000)
    await page.wait_for_selector("#race-panel:not([hidden])")
    race = int(page.url.rsplit("=", 1)[1])
    while True:
        message = await bob.receive(timeout=20.0)
        if message["type"] == "match_found":
            break
    assert message["race"]["race"] == race
    assert page.errors == []  # type: ignore[attr-defined]


async def test_deal_difficulty_in_practice_and_on_the_daily(
    browser: Browser, server: ArenaServer
) -> None:
    page = await open_page(browser, page_url(server.url), PHONE)
    await page.wait_for_selector("#board .card")
    assert await page.inner_text("#practice-difficulty") == ""  # any deal: unrated
    await page.select_option("#difficulty", "hard")
    await page.click("#new-game")
    badge = page.locator("#practice-difficulty .difficulty.hard")
    await badge.wait_for(timeout=30_000)
    assert await badge.inner_text() == "hard"
    assert "deal rated" in (await badge.get_attribute("title") or "")
    await snapshot(page, "practice-hard-phone")

    await page.goto(page_url(server.url, "#daily"))
    today = datetime.now(UTC).date().isoformat()
    await page.wait_for_selector(f"#daily-panel h2:has-text('{today}')", timeout=120_000)
    daily_badge = page.locator("#daily-panel h2 .difficulty")
    assert await daily_badge.inner_text() in ("easy", "medium", "hard")
    await page.click("#lang")
    await page.wait_for_selector("#difficulty option:has-text('schwer')", state="attached")
    assert await page.inner_text("nav a[data-tab=online]") == "Online"
    # The daily panel itself speaks the new language, not only the header.
    await page.wait_for_selector("#daily-panel button:has-text('Heutiges Spiel spielen')")
    # The fourth tab still fits a 360 px phone's header, in German too.
    header = await page.evaluate("() => document.querySelector('header.top').scrollWidth")
    assert header <= PHONE["width"]
    await snapshot(page, "daily-difficulty-phone")
    assert page.errors == []  # type: ignore[attr-defined]
