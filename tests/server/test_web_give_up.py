"""Giving up in the page: asked first, and final once answered.

Giving up ends a race or the one ranked daily attempt for good, so the page asks before
it does ("Keep playing" first, where the button was). Once given up, the game's own
buttons (Give up, Undo, Hint) and the board are dead: the resign reply's view is drawn.
"""

from __future__ import annotations

from datetime import UTC, datetime

from arena_client import Connect
from playwright.async_api import Browser, Page
from web_browser import (
    DESKTOP,
    board_ready,
    browser,
    card_selector,
    open_page,
    page_url,
    snapshot,
    tap,
)

from engine import new_game
from server.transport.app import ArenaServer

__all__ = ["browser"]  # the fixture, imported for pytest

SEED = 2  # a Klondike deal whose only first move is the stock


async def my_line(page: Page) -> str:
    """The page's own line of the race's standings."""
    return await page.inner_text(".standings li:has-text('(you)')")


async def every_line_says(page: Page, text: str, lines: int) -> None:
    """Wait until ``lines`` lines of the standings end with ``text``."""
    await page.wait_for_function(
        """([text, lines]) => [...document.querySelectorAll('.standings li')]
            .filter(li => li.textContent.trim().endsWith(text)).length === lines""",
        arg=[text, lines],
    )


async def test_a_race_is_given_up_only_once_asked_and_then_for_good(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    bob = await connect(name="Bob")
    created = await bob.ok(
        "create_race", variant="klondike", seed=SEED, countdown_s=0, allow_hints=True
    )
    race_id = created["race"]["race"]
    page = await open_page(browser, page_url(server.url, f"#race={race_id}"), DESKTOP)
    await page.wait_for_function("() => document.querySelectorAll('.standings li').length === 2")
    await bob.ok("start_race", race=race_id)
    await board_ready(page, moves=0)
    await page.click('#board .card.back[data-pile="s"]')
    await board_ready(page, moves=1)
    await every_line_says(page, "· 1 move", lines=1)
    assert (await my_line(page)).endswith("· 1 move")  # one move, not "1 moves"

    # Asked first: the question takes the button's place, "Keep playing" in focus.
    await page.click('[data-action="resign"]')
    question = page.locator(".confirm")
    assert "Give up this race? You cannot come back into it." in await question.inner_text()
    assert await page.evaluate("document.activeElement.dataset.action") == "resign-no"
    await snapshot(page, "race-give-up-desktop")
    # The race's events redraw the panel: the question and its focus stay.
    await bob.ok("move", game=created["race"]["your_game"], text="d")
    await every_line_says(page, "· 1 move", lines=2)
    assert await question.is_visible()
    assert await page.evaluate("document.activeElement.dataset.action") == "resign-no"
    await page.click('[data-action="resign-no"]')
    assert await page.locator(".confirm").count() == 0
    assert "gave up" not in await my_line(page)

    # A double tap on Give up: its second half lands on the question, which stays.
    await page.dblclick('[data-action="resign"]')
    assert await question.is_visible()
    # Escape takes the question back too.
    await page.keyboard.press("Escape")
    assert await page.locator(".confirm").count() == 0
    assert await page.is_enabled("#undo") and await page.is_enabled("#hint")

    await page.click('[data-action="resign"]')
    await page.click('[data-action="resign-yes"]')
    # The reply's view is drawn: the game is over on this board, its buttons dead.
    await page.wait_for_selector("#undo:disabled")
    assert await page.is_disabled("#hint")
    assert await page.locator('[data-action="resign"]').count() == 0
    assert await page.inner_text("[data-out]") == "You gave up: the race goes on for the others."
    await every_line_says(page, "· gave up", lines=1)
    assert (await my_line(page)).endswith("gave up")
    # A tap on a card sends nothing any more.
    game = new_game("klondike", seed=SEED)
    game.play("d")
    card = str(game.view()["tableau"][0]["up"][-1])  # type: ignore[index]
    await tap(page, card_selector("c1", card))
    await page.keyboard.press("h")
    assert await page.inner_text("[data-counter=moves]") == "1"
    assert await page.inner_text("#message") == ""
    assert page.errors == []  # type: ignore[attr-defined]


async def test_the_ranked_daily_attempt_is_given_up_only_once_asked(
    browser: Browser, server: ArenaServer
) -> None:
    page = await open_page(browser, page_url(server.url, "#daily"), DESKTOP)
    today = datetime.now(UTC).date().isoformat()
    # The first look at the day's deal has the server's solver choose it: time to spare.
    await page.wait_for_selector(f"#daily-panel h2:has-text('{today}')", timeout=120_000)
    await page.click('[data-action="daily-play"]')
    await board_ready(page, moves=0)

    await page.click('[data-action="daily-resign"]')
    assert await page.inner_text(".confirm") == (
        "Give up your ranked attempt? Only your first attempt counts on the day's board."
        "\nKeep playing\nYes, give up"
    )
    await page.keyboard.press("Escape")
    assert await page.evaluate("document.activeElement.dataset.action") == "daily-resign"
    assert await page.is_visible("#board")
    assert await page.is_enabled("#hint")

    await page.click('[data-action="daily-resign"]')
    await page.click('[data-action="daily-resign-yes"]')
    await page.wait_for_selector("#daily-panel .attempts")
    assert "ranked: gave up" in await page.inner_text("#daily-panel .attempts")
    assert page.errors == []  # type: ignore[attr-defined]
