"""The arena page (arena.html) in a real browser, against the real server and test clients.

The server's clock runs with real time plus an offset the test moves on (as in
tests/server/test_arenas.py), so an arena starts and ends when the test says.
"""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest
from arena_client import Connect
from arena_events import arena_event
from playwright.async_api import Browser, Page
from web_browser import DESKTOP, PHONE, browser, open_page, page_url, snapshot

from server.ops.config import ServerConfig
from server.transport.app import ArenaServer

__all__ = ["browser"]  # the fixture, imported for pytest


class MovingClock:
    """Real server time plus an offset a test moves on."""

    def __init__(self) -> None:
        self.offset = 0

    def __call__(self) -> int:
        return time.time_ns() // 1_000_000 + self.offset


@pytest.fixture
def clock() -> MovingClock:
    return MovingClock()


@pytest.fixture
def server_config(server_config: ServerConfig) -> ServerConfig:
    return replace(server_config, arena_round_ms=50, arena_poll_ms=50, arena_countdown_s=0)


@pytest.fixture
async def server(
    migrated_database_url: str, server_config: ServerConfig, clock: MovingClock
) -> AsyncIterator[ArenaServer]:
    async with ArenaServer(server_config, migrated_database_url, clock=clock) as running:
        yield running


async def lines(page: Page, count: int) -> None:
    await page.wait_for_function(
        "n => document.querySelectorAll('#standings li[data-player]').length === n", arg=count
    )


async def test_opening_joining_and_following_an_arena(
    browser: Browser, server: ArenaServer, connect: Connect, clock: MovingClock
) -> None:
    page = await open_page(browser, page_url(server.url, "arena.html"), PHONE)
    await page.wait_for_selector("#no-arenas:not([hidden])")
    await page.select_option("#arena-variant", "klondike")
    await page.fill("#arena-minutes", "5")
    await page.fill("#arena-starts", "1")
    await page.click("#create-arena button[type=submit]")
    await page.wait_for_function("location.hash.startsWith('#arena=')")
    arena = int((await page.evaluate("location.hash")).split("=")[1])
    await lines(page, 1)
    assert re.fullmatch(r"Starts in [01]:\d\d", await page.inner_text("#arena-clock"))
    assert "You: #1" in await page.inner_text("#arena-you")
    assert await page.is_hidden("#arena-join") and await page.is_visible("#arena-leave")

    bob = await connect(name="Bob")
    await bob.ok("join_arena", arena=arena)
    await lines(page, 2)
    await snapshot(page, "arena-upcoming-phone")

    # The arena starts: the page's player and Bob race; the page offers the race.
    clock.offset += 60_000
    await page.wait_for_selector("#arena-next:not([hidden])")
    href = await page.get_attribute("#arena-race", "href")
    race = (await arena_event(bob, "race"))["event"]["race"]
    assert href == f"/#race={race}"
    assert (await page.inner_text("#arena-clock")).startswith("Ends in ")

    # Bob wins nothing and gives up; the page's player leaves the arena (giving up the
    # race): the race is scored, and the standings show both, the page's player paused.
    game = (await bob.ok("get_race", race=race))["race"]["your_game"]
    await bob.ok("move", game=game, text="d")
    await bob.ok("resign", game=game)
    await page.click("#arena-leave")
    await page.wait_for_function(
        "() => [...document.querySelectorAll('#standings .score')].some(s => s.textContent === '1')"
    )
    statuses = await page.eval_on_selector_all(
        "#standings .state", "e => e.map(x => x.textContent)"
    )
    assert "paused" in statuses
    assert await page.is_visible("#arena-join")

    # The arena ends: the page shows its podium.
    clock.offset += 5 * 60_000
    await page.wait_for_selector("#podium:not([hidden]) li")
    assert await page.inner_text("#arena-clock") == "Finished"
    assert await page.locator("#podium li").count() == 2
    assert await page.is_hidden("#arena-join")
    await snapshot(page, "arena-finished-phone")
    assert page.errors == []  # type: ignore[attr-defined]


async def test_the_list_shows_open_arenas_in_german(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    ann = await connect(name="Ann")
    await ann.ok(
        "create_arena", variant="spider-1", minutes=20, starts_in_s=600, title="Abendrunde"
    )
    page = await open_page(browser, page_url(server.url, "arena.html"), DESKTOP, locale="de-DE")
    await page.wait_for_selector("#arenas li")
    text = await page.inner_text("#arenas li")
    assert "Abendrunde" in text and "Beginnt in " in text and "1 Spieler" in text
    await snapshot(page, "arena-list-desktop")
    await page.click("#arenas li a")
    await lines(page, 1)
    assert await page.is_visible("#arena-join")
    await page.click("#arena-join")
    await lines(page, 2)
    await page.wait_for_function(
        "document.querySelector('#arena-you').textContent.startsWith('Du: #')"
    )
    assert await page.is_hidden("#arena-join") and await page.is_visible("#arena-pause")
    assert page.errors == []  # type: ignore[attr-defined]


async def test_a_spectator_sees_a_player_on_fire(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    bob = await connect(name="Bob")
    cy = await connect(name="Cy")
    arena = (await bob.ok("create_arena", variant="klondike", minutes=30))["arena"]["arena"]
    await cy.ok("join_arena", arena=arena)
    page = await open_page(browser, page_url(server.url, f"arena.html#arena={arena}"), DESKTOP)
    await lines(page, 2)
    assert await page.is_visible("#arena-join") and await page.inner_text("#arena-you") == ""
    # Two races in a row: both play a card and give up, and the lower id (Bob) ranks
    # first on equal counts: Bob has won two in a row.
    for number in range(2):
        race = await arena_event(bob, "race", lambda m, n=number: m["event"]["pairing"] == n + 1)
        race_id = race["event"]["race"]
        for client in (bob, cy):
            game = (await client.ok("get_race", race=race_id))["race"]["your_game"]
            await client.ok("move", game=game, text="d")
            await client.ok("resign", game=game)
        await arena_event(bob, "scored", lambda m, r=race_id: m["event"]["race"] == r)
    await page.wait_for_selector("#standings li[data-player] .fire")
    first = await page.inner_text("#standings li[data-player]:first-child")
    assert "Bob" in first and "×2" in first and first.strip().endswith("2")
    await snapshot(page, "arena-running-desktop")
    assert page.errors == []  # type: ignore[attr-defined]
