"""What the page looks like: nothing to scroll sideways on a phone, the race's board
above the fold on a desktop, and suit marks that read on the felt (3:1 at least)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from arena_client import Connect
from playwright.async_api import Browser, Page
from web_browser import DESKTOP, board_ready, browser, give_up, open_page, page_url, snapshot

from server.transport.app import ArenaServer

__all__ = ["browser"]  # the fixture, imported for pytest

# A phone of today (an iPhone 12 to 15 in CSS pixels): the 64 hex digits of a
# commitment took 505 px of it.
PHONE_390 = {"width": 390, "height": 844}


async def page_width(page: Page) -> tuple[int, int]:
    """The page's scrollable width and the window's."""
    widths: list[int] = await page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    return widths[0], widths[1]


async def test_the_daily_page_fits_a_phone(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    bob = await connect(name="Bob")
    page = await open_page(browser, page_url(server.url, "#daily"), PHONE_390)
    today = datetime.now(UTC).date().isoformat()
    await page.wait_for_selector(f"#daily-panel h2:has-text('{today}')", timeout=120_000)
    started = await bob.ok("daily_start", variant="klondike")
    await bob.ok("resign", game=started["game"])

    await page.click('[data-action="daily-play"]')
    await board_ready(page, moves=0)
    scroll, window = await page_width(page)
    assert scroll <= window, (scroll, window)
    await give_up(page, "daily-resign")
    await page.wait_for_selector("[data-daily-board] tbody tr >> nth=1")
    await page.wait_for_selector("#game", state="hidden")  # a game given up shows no more
    scroll, window = await page_width(page)
    assert scroll <= window, (scroll, window)
    commitment = page.locator("#daily-panel code")
    box = await commitment.bounding_box()
    assert box is not None and box["x"] + box["width"] <= window
    assert re.fullmatch(r"[0-9a-f]{64}", await commitment.inner_text())
    await snapshot(page, "daily-phone")
    assert page.errors == []  # type: ignore[attr-defined]


async def test_a_race_of_eight_keeps_the_board_above_the_fold(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    bob = await connect(name="Bob")
    created = await bob.ok("create_race", variant="klondike", seed=2, countdown_s=0)
    race_id = created["race"]["race"]
    for n in range(6):
        other = await connect(name=f"Racer {n + 1}")
        await other.ok("join_race", race=race_id)
    page = await open_page(browser, page_url(server.url, f"#race={race_id}"), DESKTOP)
    await page.wait_for_function("() => document.querySelectorAll('.standings li').length === 8")
    await bob.ok("start_race", race=race_id)
    await board_ready(page, moves=0)

    boxes: list[dict[str, Any]] = await page.eval_on_selector_all(
        "#board .card, #board .slot, .standings li",
        "els => els.map(e => e.getBoundingClientRect().toJSON())",
    )
    assert max(box["bottom"] for box in boxes) <= DESKTOP["height"]
    assert max(box["right"] for box in boxes) <= DESKTOP["width"]
    # The standings beside the board, not above it.
    board = await page.locator("#board").bounding_box()
    standings = await page.locator(".standings").bounding_box()
    assert board is not None and standings is not None
    assert standings["x"] >= board["x"] + board["width"]
    await snapshot(page, "race-of-eight-desktop")
    assert page.errors == []  # type: ignore[attr-defined]


async def test_a_race_of_eight_on_a_phone_shows_every_name_and_the_deal(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    """On a 390 px phone the standings stay above the board: the player's own line says
    "(you)" whole, the deal is on the screen, and nothing scrolls sideways."""
    bob = await connect(name="Bob")
    created = await bob.ok("create_race", variant="klondike", seed=2, countdown_s=0)
    race_id = created["race"]["race"]
    for n in range(6):
        other = await connect(name=f"Racer {n + 1}")
        await other.ok("join_race", race=race_id)
    page = await open_page(browser, page_url(server.url, f"#race={race_id}"), PHONE_390)
    await page.wait_for_function("() => document.querySelectorAll('.standings li').length === 8")
    await bob.ok("start_race", race=race_id)
    await board_ready(page, moves=0)

    mine = page.locator(".standings li:has-text('(you)') .who")
    assert (await mine.inner_text()).endswith("(you)")
    widths = await mine.evaluate("el => [el.scrollWidth, el.clientWidth]")
    assert widths[0] <= widths[1], widths  # not cut to "Guest 8 (…"
    boxes: list[dict[str, Any]] = await page.eval_on_selector_all(
        "#board .card, #board .slot", "els => els.map(e => e.getBoundingClientRect().toJSON())"
    )
    assert max(box["bottom"] for box in boxes) <= PHONE_390["height"]
    scroll, window = await page_width(page)
    assert scroll <= window, (scroll, window)
    await snapshot(page, "race-of-eight-phone")
    assert page.errors == []  # type: ignore[attr-defined]


def luminance(rgb: tuple[float, float, float]) -> float:
    """WCAG 2's relative luminance of an sRGB colour (0–255 channels)."""

    def linear(channel: float) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def parse_colour(text: str) -> tuple[tuple[float, float, float], float]:
    """An ``rgb()``/``rgba()`` or ``#rrggbb`` colour as its channels and alpha."""
    text = text.strip()
    if text.startswith("#"):
        return (int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16)), 1.0
    parts = [float(x) for x in re.findall(r"[\d.]+", text)]
    return (parts[0], parts[1], parts[2]), parts[3] if len(parts) > 3 else 1.0


def over(
    colour: tuple[tuple[float, float, float], float], under: tuple[float, float, float]
) -> tuple[float, float, float]:
    rgb, alpha = colour
    return (
        alpha * rgb[0] + (1 - alpha) * under[0],
        alpha * rgb[1] + (1 - alpha) * under[1],
        alpha * rgb[2] + (1 - alpha) * under[2],
    )


async def mark_contrast(page: Page) -> float:
    """The contrast of an empty foundation's suit mark on its slot, on the felt's
    lightest colour (the centre of its gradient: the worst case for a light mark)."""
    styles: list[str] = await page.evaluate(
        """() => {
        const slot = document.querySelector('#board .slot.foundation');
        const style = getComputedStyle(slot);
        const felt = getComputedStyle(document.documentElement).getPropertyValue('--felt');
        return [style.color, style.backgroundColor, felt];
    }"""
    )
    colour, background, felt = styles
    assert await page.inner_text("#board .slot.foundation") == "♣"
    table = over(parse_colour(background), parse_colour(felt)[0])
    return contrast(over(parse_colour(colour), table), table)


async def test_empty_foundations_show_their_suit_at_three_to_one(
    browser: Browser, server: ArenaServer
) -> None:
    page = await open_page(browser, page_url(server.url, "#deal=klondike:1"), DESKTOP)
    await board_ready(page, moves=0)
    assert await mark_contrast(page) >= 3.0
