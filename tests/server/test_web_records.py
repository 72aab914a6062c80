"""Personal records per deal number, shown at the end of a game (seed 004: fewer moves
on the same deal number is a new record). Kept in the browser's storage.

Klondike deal 2, draw 1: 24 draws and a redeal bring the table back as it was, 25
moves later, so the solver's line after them wins the same deal in 25 moves more.
The moves come from a second connection of the same guest; the page plays the finish.
"""

from __future__ import annotations

import json

from arena_client import Connect
from playwright.async_api import Browser, Page
from test_web_practice import practice
from web_browser import (
    DESKTOP,
    MANUAL_FINISH,
    board_ready,
    browser,
    open_page,
    page_url,
    play_by_taps,
    snapshot,
)

from engine import new_game
from engine.solver import solve
from server.transport.app import ArenaServer

__all__ = ["browser"]  # the fixture, imported for pytest

SEED = 2
DETOUR = ["d"] * 25  # through the stock and back: the same table, 25 moves more


async def win(page: Page, connect: Connect, server: ArenaServer, detour: list[str]) -> int:
    """Open deal 2 anew, play ``detour`` and the solver's line up to the finish from
    another connection, then finish in the page; the moves of the win."""
    before = await page.evaluate("localStorage.getItem('solitaire.practice')")
    await page.goto(page_url(server.url, f"#deal=klondike:{SEED}"))
    # The deal comes by a hash change in the same page, so the game before it stays on
    # the board (with 0 moves, it may be) until the server's new game is stored.
    await page.wait_for_function(
        "before => localStorage.getItem('solitaire.practice') !== before", arg=before
    )
    await board_ready(page, moves=0)
    kept = json.loads(await page.evaluate("localStorage.getItem('solitaire.practice')"))
    assert kept["variant"] == "klondike"
    token = await page.evaluate("localStorage.getItem('solitaire.token')")
    other = await connect(token=token)
    game = new_game("klondike", SEED)
    line = [*detour, *(m.notation() for m in solve(game.rules, game.position).moves)]
    for text in line[:-1]:
        if game.can_finish:
            break
        game.play(text)
        await other.ok("move", game=kept["game"], text=text)
    await page.reload()
    await board_ready(page, moves=game.counters["moves"])
    if game.can_finish:
        await page.keyboard.press("Enter")
        moves = game.counters["moves"] + len(game.finishing_moves())
    else:  # the line's last move wins
        await play_by_taps(page, game.view(), line[-1])
        moves = game.counters["moves"] + 1
    await board_ready(page, moves=moves)
    await page.wait_for_selector("[data-record]:not(:empty)")
    return moves


async def test_fewer_moves_on_the_same_deal_is_a_new_record(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    page = await practice(browser, server, "yukon", 1, viewport=DESKTOP, settings=MANUAL_FINISH)

    long = await win(page, connect, server, DETOUR)
    record = await page.inner_text("[data-record]")
    assert (
        record
        == f"Your first win of deal Klondike (draw 1) 2: {long} moves is your record to beat."
    )

    short = await win(page, connect, server, [])
    assert short == long - 25
    record = await page.inner_text("[data-record]")
    assert (
        record
        == f"New personal record on deal Klondike (draw 1) 2: {short} moves (before: {long})."
    )
    await snapshot(page, "record-desktop")

    again = await win(page, connect, server, DETOUR)
    assert again == long
    assert await page.inner_text("[data-record]") == (
        f"Your record on deal Klondike (draw 1) 2 stays {short} moves."
    )
    kept = json.loads(await page.evaluate("localStorage.getItem('solitaire.records')"))
    assert [line["moves"] for line in kept.values()] == [short]
    # A new game starts without the last game's record line.
    await page.click("#new-game")
    await page.wait_for_selector("[data-record]:empty", state="attached")
    assert page.errors == []  # type: ignore[attr-defined]


async def test_a_race_won_is_a_record_once_the_race_names_its_deal(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    """A race's view names the deal only after the race: the record comes then."""
    bob = await connect(name="Bob")
    created = await bob.ok("create_race", variant="yukon", seed=SEED, countdown_s=0)
    race_id = created["race"]["race"]
    page = await open_page(
        browser, page_url(server.url, f"#race={race_id}"), DESKTOP, settings=MANUAL_FINISH
    )
    await page.wait_for_function("() => document.querySelectorAll('.standings li').length === 2")
    await bob.ok("start_race", race=race_id)
    await board_ready(page, moves=0)
    await bob.ok("resign", game=created["race"]["your_game"])

    token = await page.evaluate("localStorage.getItem('solitaire.token')")
    me = await connect(token=token)
    mine = (await me.ok("get_race", race=race_id))["race"]["your_game"]
    game = new_game("yukon", SEED)
    for move in solve(game.rules, game.position).moves:
        if game.can_finish:
            break
        game.play(move)
        await me.ok("move", game=mine, text=move.notation())
    await page.reload()  # the page's board follows its own connection: fetch the game
    await page.wait_for_function(
        "n => document.querySelector('[data-counter=moves]')?.textContent === String(n)",
        arg=game.counters["moves"],
    )
    await page.keyboard.press("Enter")
    await page.wait_for_selector("table.ranking")
    moves = game.counters["moves"] + len(game.finishing_moves())
    await page.wait_for_selector("[data-record]:not(:empty)")
    assert await page.inner_text("[data-record]") == (
        f"Your first win of deal Yukon 2: {moves} moves is your record to beat."
    )
    assert page.errors == []  # type: ignore[attr-defined]
