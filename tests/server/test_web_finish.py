"""The page playing by itself, as players expect: the finish once the rest can go home
(with the cards flying home and a short win animation), and safe cards sent home
(an option). Each is held to the engine on the same deal."""

from __future__ import annotations

import json
from typing import Any

from arena_client import Connect
from playwright.async_api import Browser, Page
from test_web_practice import assert_same_board, moves_shown, practice
from web_browser import (
    DESKTOP,
    browser,
    drawn_board,
    open_page,
    page_url,
    play_by_taps,
    server_said,
    snapshot,
)

from engine import Game, new_game
from engine.solver import solve
from server.transport.app import ArenaServer

__all__ = ["browser"]  # the fixture, imported for pytest


async def one_move_from_the_finish(page: Page, connect: Connect, seed: int) -> Game:
    """Play Yukon deal ``seed``'s solver line from another connection of the page's
    guest, up to one move before the rest can go home; the page shows it after a reload."""
    game = new_game("yukon", seed=seed)
    kept = json.loads(await page.evaluate("localStorage.getItem('solitaire.practice')"))
    token = await page.evaluate("localStorage.getItem('solitaire.token')")
    other = await connect(token=token)
    line = solve(game.rules, game.position).moves
    probe = new_game("yukon", seed=seed)
    last = 0
    for index, move in enumerate(line):
        probe.play(move)
        if probe.can_finish:
            last = index
            break
    for move in line[:last]:
        game.play(move)
        await other.ok("move", game=kept["game"], text=move.notation())
    await page.reload()
    await moves_shown(page, game.counters["moves"])
    return game


async def test_the_rest_goes_home_by_itself_and_the_win_is_shown(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    page = await practice(browser, server, "yukon", 1, viewport=DESKTOP)
    game = await one_move_from_the_finish(page, connect, 1)
    assert await page.is_hidden("#finish")
    last = solve(game.rules, game.position).moves[0].notation()
    await play_by_taps(page, game.view(), last)
    game.play(last)
    assert game.can_finish
    finished = game.counters["moves"] + len(game.finishing_moves())

    # No tap, no key: the page sends the rest home, cards flying there one by one,
    # then the foundations' cards leap off the table.
    await page.wait_for_selector("#board .card.flying")
    await moves_shown(page, finished)
    await page.wait_for_selector("#board[data-celebrating]")
    await page.wait_for_selector("body > .card.flying")
    await page.wait_for_timeout(500)
    await snapshot(page, "win-desktop", settled=False)
    await page.wait_for_selector(".card.flying", state="detached", timeout=10_000)
    await page.wait_for_function("() => !document.querySelector('#board[data-celebrating]')")
    assert (await page.inner_text("#message")).startswith(f"Solved in {finished} moves")
    drawn = await drawn_board(page)
    assert sorted(drawn["piles"][f"f{i}"][0][0] for i in range(1, 5)) == ["K"] * 4
    finishes = [m for m in server_said(page, "view") if m["view"]["status"] == "won"]
    assert len(finishes) == 1  # one auto_finish, answered once
    assert server_said(page, "error") == []
    assert page.errors == []  # type: ignore[attr-defined]


async def test_without_motion_the_finish_comes_at_once(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    page = await practice(browser, server, "yukon", 1, reduced_motion="reduce")
    game = await one_move_from_the_finish(page, connect, 1)
    last = solve(game.rules, game.position).moves[0].notation()
    await play_by_taps(page, game.view(), last)
    game.play(last)
    await moves_shown(page, game.counters["moves"] + len(game.finishing_moves()))
    assert await page.locator(".card.flying").count() == 0
    assert await page.locator("#board[data-celebrating]").count() == 0


def rank(card: str) -> int:
    return {"A": 1, "J": 11, "Q": 12, "K": 13}.get(card[:-1]) or int(card[:-1])


def safe_home(game: Game) -> str | None:
    """The move the page's auto-play sends (autoplay.js): the first legal move of one
    card home whose card is safe: an Ace or a Two, or a card whose other colour's two
    suits are home up to one rank below it."""
    view: Any = game.view()
    home = {f["suit"]: f["cards"] for f in view["foundations"]}
    other = {"c": "dh", "s": "dh", "d": "cs", "h": "cs"}
    for source, texts in view["legal_moves"].items():
        for text in texts:
            if not text.endswith(">f") or ":" in text or source.startswith("f"):
                continue
            if source == "w":
                card = view["waste"]["visible"][-1]
            else:
                card = view["tableau"][int(source) - 1]["up"][-1]
            r = rank(card)
            if r <= 2 or all(home.get(s, 0) >= r - 1 for s in other[card[-1]]):
                return str(text)
    return None


async def test_safe_cards_go_home_by_themselves_when_chosen(
    browser: Browser, server: ArenaServer
) -> None:
    game = new_game("klondike", seed=3)  # column 1's Ace of diamonds may go home
    page = await open_page(
        browser, page_url(server.url, "#deal=klondike:3"), settings={"autoPlay": True}
    )
    while (text := safe_home(game)) is not None:
        game.play(text)
    assert game.counters["moves"] >= 1
    await moves_shown(page, game.counters["moves"])
    await page.wait_for_timeout(600)  # nothing more goes by itself
    assert await page.inner_text("[data-counter=moves]") == str(game.counters["moves"])
    assert_same_board(await drawn_board(page), game)

    # An undo is not undone: the card taken back stays until the player moves again.
    await page.keyboard.press("u")
    game.undo()
    await moves_shown(page, game.counters["moves"])
    await page.wait_for_timeout(600)
    assert await page.inner_text("[data-counter=moves]") == str(game.counters["moves"])
    assert safe_home(game) is not None
    taken_back = game.counters["moves"]

    # A move of the player's own (a draw), then the safe cards go home again.
    await page.click('#board .card.back[data-pile="s"]')
    game.play("d")
    while (text := safe_home(game)) is not None:
        game.play(text)
    assert game.counters["moves"] >= taken_back + 2  # the draw, and the card home again
    await moves_shown(page, game.counters["moves"])
    assert_same_board(await drawn_board(page), game)
    assert server_said(page, "error") == []
    assert page.errors == []  # type: ignore[attr-defined]
