"""The player's settings in the page (settings.js): chosen in the dialog, kept in the
browser across a reload, and seen on the table: a four-colour deck, a light theme
whose marks still read at 3:1, a left-handed table that still plays, and sound (on
and off both kept)."""

from __future__ import annotations

from typing import Any

from playwright.async_api import Browser, Page
from test_web_layout import mark_contrast, parse_colour
from test_web_practice import assert_same_board, moves_shown, practice
from web_browser import PHONE, browser, card_selector, drawn_board, snapshot, tap, top_card

from engine import new_game
from server.transport.app import ArenaServer

__all__ = ["browser"]  # the fixture, imported for pytest

# Counts the sounds the page starts (an oscillator or a noise buffer each), without
# changing what they do.
COUNT_SOUNDS = """() => {
  window.soundsStarted = 0;
  for (const kind of [OscillatorNode, AudioBufferSourceNode]) {
    const start = kind.prototype.start;
    kind.prototype.start = function (...args) {
      window.soundsStarted += 1;
      return start.apply(this, args);
    };
  }
}"""


async def choose(page: Page, name: str, value: Any) -> None:
    """Open the settings, set one, and close them as a player does."""
    await page.click("#settings-open")
    field = f"#settings [name={name}]"
    if isinstance(value, bool):
        await (page.check(field) if value else page.uncheck(field))
    else:
        await page.select_option(field, value)
    await page.click("#settings button.primary")
    assert await page.is_hidden("#settings")


async def colour_of(page: Page, selector: str) -> tuple[float, float, float]:
    text: str = await page.eval_on_selector(selector, "el => getComputedStyle(el).color")
    return parse_colour(text)[0]


async def test_four_colours_light_theme_and_left_hand_are_kept(
    browser: Browser, server: ArenaServer
) -> None:
    game = new_game("klondike", seed=1)
    page = await practice(browser, server, "klondike", 1, viewport=PHONE)
    root = "document.documentElement.dataset"
    assert await page.evaluate(f"[{root}.theme, {root}.deck, {root}.hand]") == [
        "dark",
        "two",
        "right",
    ]
    clubs = [c for column in game.view()["tableau"] for c in column["up"] if c[-1] == "c"]  # type: ignore[index]
    diamonds = [c for column in game.view()["tableau"] for c in column["up"] if c[-1] == "d"]  # type: ignore[index]
    assert clubs and diamonds
    club, diamond = f'#board [data-card="{clubs[0]}"]', f'#board [data-card="{diamonds[0]}"]'
    assert await colour_of(page, club) == (27, 27, 31)
    assert await colour_of(page, diamond) == (200, 16, 46)

    await choose(page, "fourColour", True)
    assert await colour_of(page, club) == (11, 122, 53)  # green clubs
    assert await colour_of(page, diamond) == (29, 79, 216)  # blue diamonds
    await choose(page, "theme", "light")
    assert await page.evaluate(f"{root}.theme") == "light"
    assert await mark_contrast(page) >= 3.0
    await choose(page, "leftHanded", True)

    # Left-handed: the stock at the right end, the foundations from the left.
    async def x_of(selector: str) -> float:
        box = await page.locator(selector).bounding_box()
        assert box is not None
        return float(box["x"])

    stock, waste = await x_of('.slot[data-pile="s"]'), await x_of('.slot[data-pile="w"]')
    f1, f4 = await x_of('.slot[data-pile="f1"]'), await x_of('.slot[data-pile="f4"]')
    column7 = await x_of('.slot[data-pile="c7"]')
    assert f1 < f4 < waste < stock == column7
    await snapshot(page, "settings-phone")

    # Kept in the browser: a reload finds them, and the table still plays the same.
    await page.reload()
    await moves_shown(page, 0)
    assert await page.evaluate(f"[{root}.theme, {root}.deck, {root}.hand]") == [
        "light",
        "four",
        "left",
    ]
    assert await x_of('.slot[data-pile="s"]') > await x_of('.slot[data-pile="f4"]')
    await page.click('#board .card.back[data-pile="s"]')
    game.play("d")
    await moves_shown(page, 1)
    card = top_card(game, 2)
    await tap(page, card_selector("c2", card))
    game.play("2>3")
    await moves_shown(page, 2)
    assert_same_board(await drawn_board(page), game)
    await snapshot(page, "left-handed-light-phone")

    # The dialog in German, its choices as they were.
    await page.click("#lang")
    await page.click("#settings-open")
    assert await page.inner_text("#settings h2") == "Einstellungen"
    assert await page.is_checked("#settings [name=leftHanded]")
    assert await page.input_value("#settings [name=theme]") == "light"
    await page.keyboard.press("Escape")
    assert await page.is_hidden("#settings")
    assert page.errors == []  # type: ignore[attr-defined]


async def test_sound_only_when_turned_on(browser: Browser, server: ArenaServer) -> None:
    game = new_game("klondike", seed=1)
    page = await practice(browser, server, "klondike", 1)
    await page.evaluate(COUNT_SOUNDS)
    await tap(page, card_selector("c2", top_card(game, 2)))
    await moves_shown(page, 1)
    assert await page.evaluate("window.soundsStarted") == 0  # off unless chosen

    await choose(page, "sound", True)
    await page.keyboard.press("u")
    await moves_shown(page, 0)
    assert await page.evaluate("window.soundsStarted") == 1
    await page.click('#board .card.back[data-pile="s"]')
    await moves_shown(page, 1)
    assert await page.evaluate("window.soundsStarted") == 2
    win = await page.evaluate("""async () => {
        const { Sounds } = await import('/sound.js');
        const sounds = new Sounds({ get: () => true });
        const before = window.soundsStarted;
        sounds.play('win');
        return window.soundsStarted - before;
    }""")
    assert win == 4  # four notes

    # Kept in the browser: after a reload a move still sounds.
    await page.reload()
    await moves_shown(page, 1)
    await page.evaluate(COUNT_SOUNDS)
    await page.keyboard.press("u")
    await moves_shown(page, 0)
    assert await page.evaluate("window.soundsStarted") == 1
    await choose(page, "sound", False)
    await page.click('#board .card.back[data-pile="s"]')
    await moves_shown(page, 1)
    assert await page.evaluate("window.soundsStarted") == 1  # none since
    # Off is kept too.
    await page.reload()
    await moves_shown(page, 1)
    await page.evaluate(COUNT_SOUNDS)
    await page.keyboard.press("u")
    await moves_shown(page, 0)
    assert await page.evaluate("window.soundsStarted") == 0
    await page.click("#settings-open")
    assert not await page.is_checked("#settings [name=sound]")
    assert page.errors == []  # type: ignore[attr-defined]
