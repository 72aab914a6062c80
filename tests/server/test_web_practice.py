"""Practice in the page, in a real browser against a real server (server/web/).

The deals are fixed (``#deal=<variant>:<seed>``), so the engine here says what the
page must show and which moves its taps, drags and keys must make.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from arena_client import Connect
from playwright.async_api import Browser, Page
from web_browser import (
    DESKTOP,
    PHONE,
    board_ready,
    browser,
    card_selector,
    drawn_board,
    open_page,
    page_url,
    play_by_taps,
    server_said,
    snapshot,
    tap,
    top_card,
)

from engine import Game, new_game
from engine.solver import solve
from server.ops.config import ServerConfig
from server.transport.app import ArenaServer

__all__ = ["browser"]  # the fixture, imported for pytest

VARIANTS = [
    "klondike",
    "klondike-3",
    "spider-1",
    "spider-2",
    "spider-4",
    "yukon",
    "russian",
    "alaska",
]


async def practice(
    browser: Browser, server: ArenaServer, variant: str, seed: int, **kw: Any
) -> Page:
    page = await open_page(browser, page_url(server.url, f"#deal={variant}:{seed}"), **kw)
    await board_ready(page, moves=0)
    return page


async def moves_shown(page: Page, moves: int) -> None:
    await board_ready(page, moves=moves)


def assert_same_board(drawn: dict[str, Any], game: Game) -> None:
    """The page shows the engine's face-up cards where they lie, and only backs else."""
    view: Any = game.view()
    for i, column in enumerate(view["tableau"], start=1):
        assert drawn["piles"].get(f"c{i}", []) == column["up"], i
    assert drawn["backs"] == sum(column["down"] for column in view["tableau"])
    if view["waste"] is not None:
        assert drawn["piles"].get("w", []) == view["waste"]["visible"][-1:]


async def test_tap_keys_and_undo_in_klondike(browser: Browser, server: ArenaServer) -> None:
    game = new_game("klondike", seed=1)  # legal: 1>7, 2>3, 6>1 and the stock
    page = await practice(browser, server, "klondike", 1)
    assert_same_board(await drawn_board(page), game)

    # A card with one place to go goes there on a single tap.
    card = top_card(game, 2)
    await tap(page, card_selector("c2", card))
    await moves_shown(page, 1)
    await page.wait_for_selector(card_selector("c3", card))

    await page.keyboard.press("u")
    await moves_shown(page, 0)
    await page.wait_for_selector(card_selector("c2", card))

    # Digits name a column, then its target.
    card = top_card(game, 6)
    await page.keyboard.press("6")
    await page.keyboard.press("1")
    await moves_shown(page, 1)
    await page.wait_for_selector(card_selector("c1", card))
    await page.keyboard.press("Control+z")
    await moves_shown(page, 0)

    # The stock: the engine's next card appears on the waste; the Undo button takes it back.
    game.play("d")
    await page.click('#board .card.back[data-pile="s"]')
    await moves_shown(page, 1)
    assert_same_board(await drawn_board(page), game)
    await page.click("#undo")
    await moves_shown(page, 0)
    assert (await drawn_board(page))["piles"].get("w") is None

    # With the focus on the button just pressed, the keys still play: D draws.
    await page.keyboard.press("d")
    await moves_shown(page, 1)
    assert page.errors == []  # type: ignore[attr-defined]


async def test_a_tapped_card_lights_its_targets(browser: Browser, server: ArenaServer) -> None:
    game = new_game("klondike", seed=3)  # column 1's top card may go home or onto column 3
    assert game.view()["legal_moves"]["1"] == ["1>f", "1>3"]  # type: ignore[index]
    page = await practice(browser, server, "klondike", 3, viewport=DESKTOP)
    card = top_card(game, 1)
    await tap(page, card_selector("c1", card))
    await page.wait_for_selector(f"{card_selector('c1', card)}.selected")
    lit = await page.eval_on_selector_all(".slot.target", "els => els.map(e => e.dataset.pile)")
    suit_pile = f"f{'cdhs'.index(card[-1]) + 1}"
    assert sorted(lit) == sorted(["c3", suit_pile])
    assert await page.inner_text("[data-counter=moves]") == "0"  # nothing played yet

    await tap(page, card_selector("c3", top_card(game, 3)))
    await moves_shown(page, 1)
    await page.wait_for_selector(card_selector("c3", card))
    assert await page.locator(".target").count() == 0

    # Tapped again once selected, the card goes by the server's one-tap rule: an Ace
    # is always safe at home.
    await page.keyboard.press("u")
    await moves_shown(page, 0)
    assert card == "Ad" and game.parse("1:1").notation() == "1>f"
    await tap(page, card_selector("c1", card))
    await page.wait_for_selector(f"{card_selector('c1', card)}.selected")
    await tap(page, card_selector("c1", card))
    await moves_shown(page, 1)
    await page.wait_for_selector(card_selector(suit_pile, card))


async def test_a_double_click_plays_one_tap(browser: Browser, server: ArenaServer) -> None:
    """A double click on a card is its tap and no more: the second click waits for the
    reply, and then lands where the card was; no move is sent twice, no error shown."""
    game = new_game("klondike", seed=1)
    page = await practice(browser, server, "klondike", 1, viewport=DESKTOP)
    for column in range(1, 8):
        view: Any = game.view()
        card = top_card(game, column)
        moves = [m for m in view["legal_moves"].get(str(column), []) if ":" not in m]
        await page.dblclick(card_selector(f"c{column}", card), position={"x": 10, "y": 6})
        if len(moves) == 1:
            game.play(moves[0])  # the first click plays it
        elif moves:
            game.play(game.parse(f"{column}:1"))  # selected, then sent by the one-tap rule
        await moves_shown(page, game.counters["moves"])
        await page.wait_for_timeout(500)  # a second move or an error would be in by now
        assert await page.inner_text("[data-counter=moves]") == str(game.counters["moves"])
        assert server_said(page, "error") == [], column
        assert_same_board(await drawn_board(page), game)
    assert game.counters["moves"] >= 2
    assert page.errors == []  # type: ignore[attr-defined]


async def test_counts_are_said_in_the_singular_and_the_plural(
    browser: Browser, server: ArenaServer
) -> None:
    game = new_game("klondike", seed=3)  # column 1's Ace of diamonds may go home
    page = await practice(browser, server, "klondike", 3, viewport=DESKTOP)
    await page.click('#board .card.back[data-pile="s"]')
    await moves_shown(page, 1)
    game.play("d")
    top: Any = game.view()["waste"]
    waste = await page.get_attribute('#board .slot[data-pile="w"]', "aria-label")
    assert waste == f"Waste, 1 card, top {card_name(top['visible'][-1])}"
    stock = await page.get_attribute('#board .slot[data-pile="s"]', "aria-label")
    assert stock == "Stock, 23 cards"
    await page.keyboard.press("1")
    await page.keyboard.press("f")
    await moves_shown(page, 2)
    home = await page.get_attribute('#board .slot[data-pile="f2"]', "aria-label")
    assert home == "Foundation 2, 1 card, top Ace of diamonds"

    await page.click("#lang")
    home = await page.get_attribute('#board .slot[data-pile="f2"]', "aria-label")
    assert home == "Ablage 2, 1 Karte, oben Karo Ass"


def card_name(code: str) -> str:
    ranks = {"A": "Ace", "J": "Jack", "Q": "Queen", "K": "King"}
    suits = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
    return f"{ranks.get(code[:-1], code[:-1])} of {suits[code[-1]]}"


async def test_drag_and_drop(browser: Browser, server: ArenaServer) -> None:
    game = new_game("klondike", seed=1)
    page = await practice(browser, server, "klondike", 1, viewport=DESKTOP)
    card = top_card(game, 6)
    source = await page.locator(card_selector("c6", card)).bounding_box()
    target = await page.locator(card_selector("c1", top_card(game, 1))).bounding_box()
    assert source is not None and target is not None
    await page.mouse.move(source["x"] + 20, source["y"] + 20)
    await page.mouse.down()
    for step in range(1, 11):
        x = source["x"] + 20 + (target["x"] - source["x"]) * step / 10
        y = source["y"] + 20 + (target["y"] + 30 - source["y"]) * step / 10
        await page.mouse.move(x, y)
    await page.mouse.up()
    await moves_shown(page, 1)
    await page.wait_for_selector(card_selector("c1", card))

    # Dropped where it does not fit, it goes back and nothing is played.
    card = top_card(game, 2)
    source = await page.locator(card_selector("c2", card)).bounding_box()
    assert source is not None
    await page.mouse.move(source["x"] + 20, source["y"] + 20)
    await page.mouse.down()
    await page.mouse.move(source["x"] + 300, source["y"] + 300, steps=5)
    await page.mouse.up()
    await page.wait_for_selector(card_selector("c2", card))
    await moves_shown(page, 1)


async def test_hint_lights_a_legal_move_and_plays(browser: Browser, server: ArenaServer) -> None:
    game = new_game("yukon", seed=5)
    page = await practice(browser, server, "yukon", 5)
    await page.click("#hint")
    await page.wait_for_selector("#board .hinted")
    message = await page.inner_text("#message")
    assert message.startswith("Hint: ") and "column" in message
    hint = message.rsplit("(", 1)[1].rstrip(")")  # "Hint: column 5 onto column 3 (5>3)"
    legal: Any = game.view()["legal_moves"]
    assert any(hint in moves for moves in legal.values()), (hint, legal)

    await play_by_taps(page, game.view(), hint)
    await moves_shown(page, 1)
    game.play(hint)
    assert_same_board(await drawn_board(page), game)


@pytest.mark.parametrize("variant", VARIANTS)
async def test_every_variant_is_drawn_and_plays(
    browser: Browser, server: ArenaServer, variant: str
) -> None:
    for name, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
        game = new_game(variant, seed=5)
        page = await practice(browser, server, variant, 5, viewport=viewport)
        assert_same_board(await drawn_board(page), game)
        # A few moves by taps, each the engine's hint: draws, the waste, foundations.
        for _ in range(8):
            hint = game.hint()
            if hint is None:
                break
            await play_by_taps(page, game.view(), hint.notation())
            game.play(hint)
            await moves_shown(page, game.counters["moves"])
            assert_same_board(await drawn_board(page), game)
        await snapshot(page, f"{variant}-{name}")
        assert page.errors == []  # type: ignore[attr-defined]
        await page.context.close()


async def test_german_by_the_browser_and_the_switch(browser: Browser, server: ArenaServer) -> None:
    game = new_game("klondike", seed=1)
    page = await practice(browser, server, "klondike", 1, locale="de-DE")
    assert await page.inner_text("#undo") == "Zurück"
    assert await page.inner_text("#hint") == "Tipp"
    card = top_card(game, 1)
    label = await page.get_attribute(card_selector("c1", card), "aria-label")
    suits = {"c": "Kreuz", "d": "Karo", "h": "Herz", "s": "Pik"}
    assert label is not None and label.startswith(suits[card[-1]])
    column = await page.get_attribute('#board .slot[data-pile="c7"]', "aria-label")
    assert column is not None and column.startswith("Reihe 7: 6 verdeckt")

    await page.click("#lang")
    assert await page.inner_text("#undo") == "Undo"
    column = await page.get_attribute('#board .slot[data-pile="c7"]', "aria-label")
    assert column is not None and column.startswith("Column 7: 6 face-down")
    assert await page.evaluate("localStorage.getItem('solitaire.lang')") == "en"


async def test_back_after_a_reload_and_the_rest_goes_home_on_enter(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    game = new_game("yukon", seed=1)
    page = await practice(browser, server, "yukon", 1)
    kept = json.loads(await page.evaluate("localStorage.getItem('solitaire.practice')"))
    token = await page.evaluate("localStorage.getItem('solitaire.token')")

    # The same guest (its token) plays on from another connection until only the
    # finish is left: all face up, every column in order (the solver's line).
    other = await connect(token=token)
    for move in solve(game.rules, game.position).moves:
        if game.can_finish:
            break
        game.play(move)
        await other.ok("move", game=kept["game"], text=move.notation())

    # The finish by hand: the setting that finishes by itself is off.
    await page.evaluate(
        "localStorage.setItem('solitaire.settings', JSON.stringify({autoFinish: false}))"
    )
    await page.reload()
    await moves_shown(page, game.counters["moves"])
    assert_same_board(await drawn_board(page), game)
    await page.wait_for_timeout(600)  # past the pause before a finish by itself
    assert await page.inner_text("[data-counter=moves]") == str(game.counters["moves"])
    assert await page.is_visible("#finish")
    assert await page.inner_text("#message") == "Tap here or press Enter to finish"

    await page.keyboard.press("Enter")
    finished = game.counters["moves"] + len(game.finishing_moves())
    await moves_shown(page, finished)
    assert (await page.inner_text("#message")).startswith(f"Solved in {finished} moves")
    drawn = await drawn_board(page)
    assert sorted(drawn["piles"][f"f{i}"][0][0] for i in range(1, 5)) == ["K"] * 4
    assert drawn["backs"] == 0
    assert await page.is_hidden("#finish")


@pytest.mark.parametrize("variant", ["klondike", "spider-4", "yukon"])
async def test_a_phone_held_sideways_shows_the_whole_deal(
    browser: Browser, server: ArenaServer, variant: str
) -> None:
    landscape = {"width": PHONE["height"], "height": PHONE["width"]}
    page = await practice(browser, server, variant, 5, viewport=landscape)
    assert_same_board(await drawn_board(page), new_game(variant, seed=5))
    bottoms = await page.eval_on_selector_all(
        "#board .card, #board .slot", "els => els.map(e => e.getBoundingClientRect().bottom)"
    )
    assert max(bottoms) <= landscape["height"]  # nothing to scroll for
    await snapshot(page, f"{variant}-landscape")


async def test_the_page_comes_back_after_the_server_restarts(
    browser: Browser, migrated_database_url: str, server_config: ServerConfig
) -> None:
    game = new_game("klondike", seed=1)
    first = ArenaServer(server_config, migrated_database_url)
    await first.start()
    port = first.port
    page = await practice(browser, first, "klondike", 1)
    await tap(page, card_selector("c2", top_card(game, 2)))
    await moves_shown(page, 1)
    game.play("2>3")

    await first.stop()
    await page.wait_for_selector("#status:has-text('Connection lost')")
    # The same port and database: the page says hello with its token again and
    # continues the same game, where the last acknowledged move left it.
    again = ArenaServer(replace(server_config, port=port), migrated_database_url)
    await again.start()
    try:
        await page.wait_for_function("() => document.body.dataset.online === 'yes'")
        await moves_shown(page, 1)
        assert_same_board(await drawn_board(page), game)
        await page.keyboard.press("u")
        await moves_shown(page, 0)
        assert page.errors == []  # type: ignore[attr-defined]
    finally:
        await page.context.close()
        await again.stop()
