"""Drag and drop in the page beside tap: with a finger on a touch screen (Chrome's own
touch input, as a phone sends it) and with the mouse, where it is the cards that must
cover the target, not the pointer. Each move held to the engine on the same deal."""

from __future__ import annotations

from typing import Any

from playwright.async_api import Browser, Page
from test_web_practice import assert_same_board, moves_shown, practice
from web_browser import (
    DESKTOP,
    PHONE,
    browser,
    card_selector,
    drawn_board,
    server_said,
    snapshot,
    top_card,
)

from engine import new_game
from server.transport.app import ArenaServer

__all__ = ["browser"]  # the fixture, imported for pytest


async def centre(page: Page, selector: str, dy: float = 0) -> tuple[float, float]:
    box = await page.locator(selector).bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + min(box["height"] / 2, 8 + dy)


async def finger_drag(page: Page, start: tuple[float, float], end: tuple[float, float]) -> None:
    """A finger pressed at ``start``, moved in steps and lifted at ``end``."""
    touch = await page.context.new_cdp_session(page)
    await touch.send(
        "Input.dispatchTouchEvent",
        {"type": "touchStart", "touchPoints": [{"x": start[0], "y": start[1]}]},
    )
    for step in range(1, 13):
        x = start[0] + (end[0] - start[0]) * step / 12
        y = start[1] + (end[1] - start[1]) * step / 12
        await touch.send(
            "Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]}
        )
    await touch.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    await touch.detach()


async def test_a_finger_drags_a_card_and_a_run(browser: Browser, server: ArenaServer) -> None:
    game = new_game("yukon", seed=5)
    view: Any = game.view()
    # A move of several cards: a face-up card deep in its column, with those on it.
    move = next(text for texts in view["legal_moves"].values() for text in texts if ":" in text)
    source, rest = move.split(":")
    size, target = (int(part) for part in rest.split(">"))
    page = await practice(browser, server, "yukon", 5, viewport=PHONE, has_touch=True)
    card = view["tableau"][int(source) - 1]["up"][-size]
    start = await centre(page, card_selector(f"c{source}", card))
    end = await centre(page, card_selector(f"c{target}", top_card(game, target)), dy=20)
    await finger_drag(page, start, end)
    game.play(move)
    await moves_shown(page, 1)
    assert_same_board(await drawn_board(page), game)

    # Dropped where it fits nowhere, it goes back: nothing is sent.
    view = game.view()
    loose = next(i for i, c in enumerate(view["tableau"], start=1) if c["up"])
    still = view["tableau"][loose - 1]["up"][-1]
    start = await centre(page, card_selector(f"c{loose}", still))
    await finger_drag(page, start, (start[0], start[1] - 140))  # up into the empty top row
    await page.wait_for_timeout(300)
    assert await page.inner_text("[data-counter=moves]") == "1"
    assert_same_board(await drawn_board(page), game)
    assert server_said(page, "error") == []
    assert page.errors == []  # type: ignore[attr-defined]


async def test_the_cards_not_the_pointer_must_cover_the_target(
    browser: Browser, server: ArenaServer
) -> None:
    game = new_game("klondike", seed=1)  # 6>1 is legal
    page = await practice(browser, server, "klondike", 1, viewport=DESKTOP)
    card = top_card(game, 6)
    source = await page.locator(card_selector("c6", card)).bounding_box()
    target = await page.locator(card_selector("c1", top_card(game, 1))).bounding_box()
    assert source is not None and target is not None
    # Held by its right edge and let go with the pointer right of column 1, past its
    # edge, while most of the card lies over column 1's top card.
    grip_x, grip_y = source["x"] + source["width"] - 6, source["y"] + 10
    await page.mouse.move(grip_x, grip_y)
    await page.mouse.down()
    drop_x = target["x"] + target["width"] + 4
    drop_y = target["y"] + 40
    await page.mouse.move(drop_x, drop_y, steps=12)
    assert not await page.evaluate(
        "([x, y]) => document.elementFromPoint(x, y)?.closest('[data-pile=\"c1\"]')",
        [drop_x, drop_y],
    )
    await snapshot(page, "drag-desktop", settled=False)
    await page.mouse.up()
    game.play("6>1")
    await moves_shown(page, 1)
    assert_same_board(await drawn_board(page), game)
    assert page.errors == []  # type: ignore[attr-defined]
