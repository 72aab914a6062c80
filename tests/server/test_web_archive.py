"""The dailies of other days in the page (archive.js): the past days of a variant with
their boards and replays, and a past deal played again, unranked, as practice from its
revealed seed. The server's clock is the test's, so past days can be played on."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from datetime import date, timedelta

import asyncpg
import pytest
from arena_client import Client
from playwright.async_api import Browser
from test_web_practice import assert_same_board, moves_shown
from web_browser import DESKTOP, browser, drawn_board, open_page, page_url, snapshot
from websockets.asyncio.client import connect as ws_connect

from engine import new_game
from server.core.calendar import day_of, day_start_ms
from server.core.race import commitment
from server.ops.config import ServerConfig
from server.transport.app import ArenaServer

__all__ = ["browser"]  # the fixture, imported for pytest

SEEDS = {3: 2, 2: 5}  # days back: the deal's seed (any deal: the archive shows what is stored)


class Now:
    """The server's clock: real time, or a moment the test sets."""

    def __init__(self) -> None:
        self.ms: int | None = None

    def __call__(self) -> int:
        return self.ms if self.ms is not None else time.time_ns() // 1_000_000


@pytest.fixture
async def past_days(
    migrated_database_url: str, server_config: ServerConfig
) -> AsyncIterator[tuple[ArenaServer, date, Now]]:
    """A server whose database has the Klondike deals of three and two days ago and of
    today, and Bob's ranked attempt three days ago, given up."""
    now = Now()
    today = day_of(now())
    pool = await asyncpg.connect(migrated_database_url)
    try:
        for back, seed in [*SEEDS.items(), (0, 9)]:
            salt = f"salt-{back}"
            await pool.execute(
                "insert into daily_deals (variant, day, seed, candidate, salt, commitment, "
                "verdict, solution_length, solver_nodes, solver_ms) "
                "values ('klondike', $1, $2, 0, $3, $4, 'winnable', 120, 1, 1)",
                today - timedelta(days=back),
                seed,
                salt,
                commitment(seed, salt),
            )
    finally:
        await pool.close()
    async with ArenaServer(server_config, migrated_database_url, clock=now) as server:
        bob = Client(await ws_connect(server.url))
        bob.welcome = await bob.ok("hello", name="Bob")
        now.ms = day_start_ms(today - timedelta(days=3)) + 10 * 3_600_000
        started = await bob.ok("daily_start", variant="klondike")
        await bob.ok("resign", game=started["game"])
        now.ms = None
        await bob.close()
        yield server, today, now


async def test_past_days_their_boards_and_a_deal_played_again(
    browser: Browser, past_days: tuple[ArenaServer, date, Now]
) -> None:
    server, today, _ = past_days
    three, two = (today - timedelta(days=n) for n in (3, 2))
    page = await open_page(browser, page_url(server.url, "#daily"), DESKTOP)
    await page.wait_for_selector(f"#daily-panel h2:has-text('{today.isoformat()}')")
    await page.click("[data-archive] summary")
    await page.wait_for_selector("[data-archive-days] li")
    days = await page.eval_on_selector_all(
        "[data-archive-days] li", "els => els.map(e => [e.dataset.day, e.textContent])"
    )
    assert [day for day, _ in days] == [two.isoformat(), three.isoformat()]  # newest first
    assert "the solver's line 120 moves, 0 ranked players" in days[0][1]
    assert "1 ranked player · you did not play it" in days[1][1]

    # A past day's board, with its replays open to everyone once the day is closed.
    await page.click(f'[data-day="{three}"] [data-action="archive-board"]')
    row = page.locator(f'[data-day="{three}"] [data-day-board] tbody tr')
    await row.wait_for()
    assert "Bob" in await row.inner_text() and "gave up" in await row.inner_text()
    await snapshot(page, "daily-archive-desktop")
    await row.locator("a").click()
    await page.wait_for_selector('[data-replay-board="mine"] .card')
    assert await page.inner_text("#replay-panel h2") == f"Daily Klondike (draw 1) · {three}"

    # Played again: practice from the revealed seed, the very deal of that day.
    await page.goto(page_url(server.url, "#daily"))
    await page.wait_for_selector(f"#daily-panel h2:has-text('{today.isoformat()}')")
    # The section stays as the player left it (open) while the page is not reloaded.
    assert await page.locator("[data-archive]").evaluate("d => d.open")
    await page.click(f'[data-day="{two}"] [data-action="archive-play"]')
    await moves_shown(page, 0)
    assert await page.is_visible("#variant")
    label = await page.inner_text("#practice-label")
    assert label == f"Daily Klondike (draw 1) of {two}, played again: unranked"
    assert_same_board(await drawn_board(page), new_game("klondike", seed=SEEDS[2]))
    assert page.errors == []  # type: ignore[attr-defined]
