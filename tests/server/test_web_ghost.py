"""Ghost races in a real browser (ghost.html, ghost.js): started from a closed day in the
daily archive, followed beside the ghost, and the result saying whether you beat it.

The race itself is played as the page's own player by a test client holding the page's
token (the page plays it on the main page, /#race=<id>, which other tests cover).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import date, timedelta

import asyncpg
import pytest
from arena_client import Client, Connect
from playwright.async_api import Browser, Page
from test_ghosts import daily_attempt, play_line
from web_browser import DESKTOP, PHONE, browser, open_page, page_url, snapshot
from won_games import WINNABLE_KLONDIKE_SEED

from server.ops.config import ServerConfig
from server.transport.app import ArenaServer

__all__ = ["browser"]  # the fixture, imported for pytest

PAST = date.today() - timedelta(days=3)


@pytest.fixture
def server_config(server_config: ServerConfig) -> ServerConfig:
    return replace(server_config, arena_countdown_s=0)


@pytest.fixture
async def server(
    migrated_database_url: str, server_config: ServerConfig
) -> AsyncIterator[ArenaServer]:
    """A server whose database has a closed day's Klondike deal with Cy's won attempt (an
    action every 500 ms), and today's deal."""
    async with asyncpg.create_pool(migrated_database_url, min_size=1, max_size=2) as pool:
        await daily_attempt(pool, "Cy", PAST, WINNABLE_KLONDIKE_SEED, gap_ms=500)
        await pool.execute(
            "insert into daily_deals (variant, day, seed, candidate, salt, commitment, verdict, "
            "solution_length, solver_nodes, solver_ms) "
            "values ('klondike', $1, 9, 0, 'salt', 'c', 'winnable', 90, 1, 1)",
            date.today(),
        )
    async with ArenaServer(server_config, migrated_database_url) as running:
        yield running


async def as_the_page(page: Page, connect: Connect) -> Client:
    """A test client that is the page's player (its token from the page's storage)."""
    await page.wait_for_function("localStorage.getItem('solitaire.token') !== null")
    token = await page.evaluate("localStorage.getItem('solitaire.token')")
    return await connect(token=token)


async def the_race(page: Page, player: Client) -> int:
    """The ghost race the page started, once the page shows it."""
    await page.wait_for_selector("#ghost-standings li[data-side=ghost]")
    await page.wait_for_function("location.hash.startsWith('#race=')")
    race = int((await page.evaluate("location.hash")).split("=")[1])
    assert await page.get_attribute("#ghost-race-link", "href") == f"/#race={race}"
    return race


async def test_racing_the_best_of_a_closed_day_from_the_archive_and_beating_it(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    page = await open_page(browser, page_url(server.url, "#daily"), DESKTOP)
    await page.click("[data-archive] summary")
    best = page.locator(f'[data-day="{PAST}"] [data-ghost="best"]')
    await best.wait_for()
    assert await best.get_attribute("href") == f"/ghost.html#daily=klondike/{PAST}"
    await best.click()
    await page.wait_for_url("**/ghost.html#*")
    player = await as_the_page(page, connect)
    race = await the_race(page, player)
    title = await page.inner_text("#ghost-title")
    assert title == f"Klondike (draw 1) · the best of {PAST}: Cy"
    ghost_line = await page.inner_text("#ghost-standings li[data-side=ghost]")
    assert "Cy's ghost" in ghost_line

    # The page's player wins the deal at a test client's pace: far sooner than the
    # ghost's 500 ms an action. The page says so, and shows both results.
    game = (await player.ok("get_race", race=race))["race"]["your_game"]
    await play_line(player, game)
    await page.wait_for_selector("#ghost-result:not([hidden])")
    result = await page.inner_text("#ghost-result")
    assert result.startswith("You beat the ghost!"), result
    assert "You: won in" in result and "Ghost: won in" in result
    first = await page.inner_text("#ghost-standings li:first-child")
    assert first.startswith("1") and "You" in first and "52 cards home" in first
    assert await page.is_hidden("#ghost-play")
    await snapshot(page, "ghost-result-desktop")

    # Won: the player's own best on this deal (the game just won) can be raced next.
    await page.click("#ghost-yours")
    again = f"location.hash.startsWith('#race=') && location.hash !== '#race={race}'"
    await page.wait_for_function(again)
    await page.wait_for_selector("#ghost-result", state="hidden")
    assert await page.inner_text("#ghost-title") == "Klondike (draw 1) · your best on this deal"
    mine = await page.inner_text("#ghost-standings li[data-side=ghost]")
    assert f"{player.welcome['player']['name']}'s ghost" in mine
    assert page.errors == []  # type: ignore[attr-defined]


async def test_giving_up_at_once_the_ghost_wins_in_german(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    url = page_url(server.url, f"ghost.html#daily=klondike/{PAST}")
    page = await open_page(browser, url, PHONE, locale="de-DE")
    player = await as_the_page(page, connect)
    race = await the_race(page, player)
    assert "das Beste vom" in await page.inner_text("#ghost-title")
    # The ghost plays on as if live, its moves timed from the stored game.
    ghost_line = "document.querySelector('#ghost-standings li[data-side=ghost]').textContent"
    await page.wait_for_function(f"!/ 0 Züge/.test({ghost_line})")
    game = (await player.ok("get_race", race=race))["race"]["your_game"]
    await player.ok("resign", game=game)
    await page.wait_for_selector("#ghost-result:not([hidden])")
    assert (await page.inner_text("#ghost-result")).startswith("Der Geist hat gewonnen.")
    first = await page.inner_text("#ghost-standings li:first-child")
    assert "Geist von Cy" in first
    await snapshot(page, "ghost-lost-phone")
    assert page.errors == []  # type: ignore[attr-defined]


async def test_a_deal_still_played_is_refused_with_its_reason(
    browser: Browser, server: ArenaServer
) -> None:
    today = date.today().isoformat()
    page = await open_page(browser, page_url(server.url, f"ghost.html#daily=klondike/{today}"))
    await page.wait_for_selector("#ghost-error:not(:empty)")
    assert "can still be played" in await page.inner_text("#ghost-error")
    assert await page.is_hidden("#ghost")
    assert page.errors == []  # type: ignore[attr-defined]
