"""A real browser for tests of the page: Playwright driving Debian's chromium.

Playwright's own browser download is not reachable here, so it launches the system's
chromium (``make test`` installs the package when ``/usr/bin/chromium`` is missing).
Each test gets a fresh browser context: its own localStorage, so its own guest.

Its own module (not conftest) so the page's test files import the fixtures by a
name no other folder uses.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, Page, async_playwright

from engine import Game

# The player's setting for tests that send the rest home themselves (Enter), since the
# page would otherwise finish by itself (settings.js).
MANUAL_FINISH = {"autoFinish": False}

CHROMIUM = Path(os.environ.get("SOLITAIRE_CHROMIUM", "/usr/bin/chromium"))
PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 800}


@pytest.fixture(scope="session")
async def browser() -> AsyncIterator[Browser]:
    """One headless chromium for the whole run."""
    assert CHROMIUM.exists(), f"{CHROMIUM} is missing: apt-get install chromium"
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"]
        )
        yield launched
        await launched.close()


async def open_page(
    browser: Browser,
    url: str,
    viewport: dict[str, int] = PHONE,
    locale: str = "en-US",
    settings: dict[str, Any] | None = None,
    **context_options: Any,
) -> Page:
    """A page in a context of its own, with the page's errors turned into failures;
    ``settings`` are the player's settings kept before the first load (settings.js),
    ``context_options`` Playwright's (``has_touch``, ``reduced_motion``)."""
    context = await browser.new_context(viewport=viewport, locale=locale, **context_options)  # type: ignore[arg-type]
    if settings is not None:
        await context.add_init_script(
            f"localStorage.getItem('solitaire.settings') === null && "
            f"localStorage.setItem('solitaire.settings', {json.dumps(json.dumps(settings))})"
        )
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors  # type: ignore[attr-defined]
    # What the server told the page, every frame of its WebSockets (server_said).
    frames: list[str | bytes] = []
    page.on("websocket", lambda socket: socket.on("framereceived", lambda f: frames.append(f)))
    page.frames_received = frames  # type: ignore[attr-defined]
    await page.goto(url)
    return page


def server_said(page: Page, kind: str) -> list[dict[str, Any]]:
    """The messages of type ``kind`` the page has received from the server so far."""
    messages = [json.loads(frame) for frame in page.frames_received]  # type: ignore[attr-defined]
    return [message for message in messages if message.get("type") == kind]


def page_url(ws_url: str, fragment: str = "") -> str:
    """The page's address on the server of WebSocket URL ``ws_url``."""
    return ws_url.replace("ws://", "http://") + fragment


async def board_ready(page: Page, moves: int | None = None) -> None:
    """Wait until a board is drawn (and shows ``moves`` moves, when given)."""
    await page.wait_for_selector("#board .card")
    if moves is not None:
        await page.wait_for_function(
            "n => document.querySelector('[data-counter=moves]')?.textContent === String(n)",
            arg=moves,
        )


def top_card(game: Game, column: int) -> str:
    """The code of column ``column``'s (1-based) top card in the engine's view."""
    tableau: Any = game.view()["tableau"]
    return str(tableau[column - 1]["up"][-1])


async def drawn_board(page: Page) -> dict[str, Any]:
    """What the page shows: per pile id the face-up card codes, and the backs."""
    result: dict[str, Any] = await page.evaluate(
        """() => {
        const piles = {};
        let backs = 0;
        for (const el of document.querySelectorAll('#board .card')) {
          if (el.classList.contains('back')) { if (el.dataset.pile !== 's') backs += 1; continue; }
          const pile = el.dataset.pile || 'other';
          (piles[pile] = piles[pile] || []).push(el.dataset.card);
        }
        return {piles, backs};
    }"""
    )
    return result


async def snapshot(page: Page, name: str, settled: bool = True) -> None:
    """A screenshot for docs/web/ when SOLITAIRE_WEB_SCREENSHOTS names a folder; with
    ``settled`` False, of the moment (animations held still while it is taken)."""
    folder = os.environ.get("SOLITAIRE_WEB_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        path = str(Path(folder) / f"{name}.png")
        if settled:
            # Cards still gliding to their places would be caught halfway.
            await page.evaluate("Promise.all(document.getAnimations().map(a => a.finished))")
            await page.screenshot(path=path)
            return
        await page.evaluate("document.getAnimations().forEach(a => a.pause())")
        await page.screenshot(path=path, animations="allow")
        await page.evaluate("document.getAnimations().forEach(a => a.play())")


def card_selector(pile: str, card: str) -> str:
    return f'#board .card[data-pile="{pile}"][data-card="{card}"]'


async def tap(page: Page, selector: str) -> None:
    """Tap a card on its visible top strip (the rest may lie under the next card)."""
    await page.click(selector, position={"x": 10, "y": 6})


# A move in canonical notation: source (column, waste), count, target (column or "f").
MOVE = re.compile(r"^(\d+|w)(?::(\d+))?>(\d+|f)$")


async def play_by_taps(page: Page, view: dict[str, Any], text: str) -> None:
    """Play ``text`` as a player would: tap the stock, or tap the card and, when it
    could go to several places (its targets are lit), tap the target too."""
    if text == "d":
        await page.click('#board .slot[data-pile="s"]', force=True)
        return
    match = MOVE.match(text)
    assert match is not None, text
    source, count, target = match.groups()
    size = int(count or 1)
    if source == "w":
        await tap(page, card_selector("w", view["waste"]["visible"][-1]))
    else:
        card = str(view["tableau"][int(source) - 1]["up"][-size])
        await tap(page, card_selector(f"c{source}", card))
    sizes = [MOVE.match(m) for m in view["legal_moves"][source]]
    if sum(1 for m in sizes if m and int(m.group(2) or 1) == size) > 1:
        await page.wait_for_selector("#board .slot.target")
        pile = '^="f"' if target == "f" else f'="c{target}"'
        await page.click(f"#board .slot.target[data-pile{pile}]", force=True)


async def give_up(page: Page, action: str = "resign") -> None:
    """Give up as a player does: the button, then "Yes, give up" in its question."""
    await page.click(f'[data-action="{action}"]')
    await page.click(f'[data-action="{action}-yes"]')
