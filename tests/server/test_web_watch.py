"""Watching live races in a real browser (watch.html, watch.js): reached from the main
page's navigation through the arena page, the list of live races, a race's standings
and a racer's board, with nothing of a face-down card ever reaching the page."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from arena_client import Client, Connect
from playwright.async_api import Browser, Page
from test_watching_core import board_cards
from web_browser import DESKTOP, PHONE, browser, drawn_board, open_page, page_url, snapshot

import engine
from engine.cards import CODES
from server.ops.config import ServerConfig
from server.transport.app import ArenaServer

__all__ = ["browser"]  # the fixture, imported for pytest


@pytest.fixture
def server_config(server_config: ServerConfig) -> ServerConfig:
    # A ranked race reaches its watchers a second late here (15 s by default).
    return replace(server_config, watch_delay_ms=1000)


async def ranked_race(ann: Client, bob: Client) -> tuple[int, dict[Client, int]]:
    """A ranked (server-dealt) Klondike race of Ann and Bob, running; its games."""
    created = await ann.ok("create_race", variant="klondike", countdown_s=0, max_players=2)
    race = created["race"]["race"]
    joined = await bob.ok("join_race", race=race)
    await ann.ok("start_race", race=race)
    await ann.event("start", race)
    return race, {ann: created["race"]["your_game"], bob: joined["race"]["your_game"]}


def face_up_cards(game: engine.Game) -> set[str]:
    """The cards lying face up in a game: all a watcher may ever be sent."""
    pos = game.position
    up = {CODES[c] for col, down in zip(pos.tableau, pos.down, strict=True) for c in col[down:]}
    up |= {CODES[c] for c in pos.waste}
    return up | {CODES[c] for pile in pos.foundations for c in pile}


def cards_sent(page: Page, since: int = 0) -> set[str]:
    """Every card code in every message the page received (from frame ``since`` on)."""
    frames = page.frames_received[since:]  # type: ignore[attr-defined]
    return {card for frame in frames for card in board_cards(json.loads(frame))}


async def test_from_the_main_page_to_a_racers_board(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    ann = await connect(name="Ann")
    bob = await connect(name="Bob")
    race, games = await ranked_race(ann, bob)

    page = await open_page(browser, page_url(server.url), DESKTOP)
    await page.wait_for_selector("#board .card")  # the main page's own practice game
    watching = len(page.frames_received)  # type: ignore[attr-defined]
    await page.click("header.top nav a[href='/arena.html']")
    await page.wait_for_url("**/arena.html")
    await page.click(".arena-nav a[href='/watch.html']")
    await page.wait_for_url("**/watch.html")
    item = page.locator(f'#live-races li[data-race="{race}"]')
    await item.wait_for()
    assert "running · 2 players" in await item.inner_text()
    await item.locator("a").click()
    await page.wait_for_function(
        "document.querySelectorAll('#watch-standings li[data-player]').length === 2"
    )
    assert await page.inner_text("#watch-title") == f"Klondike (draw 1) · race {race}"
    assert "Shown 1 s behind" in await page.inner_text("#watch-delay")
    # A second behind, the race starts on the page too (it has no time limit).
    await page.wait_for_function(
        "document.querySelector('#watch-state').textContent === 'Under way'"
    )

    # Bob's board, as dealt: the face-down cards only as backs.
    await page.click(f'#watch-standings li[data-player="{bob.welcome["player"]["id"]}"] button')
    await page.wait_for_selector("#board .card")
    assert await page.inner_text("#watch-board-title") == "Bob's board"
    seed = int(
        await server.services.storage.pool.fetchval(  # type: ignore[union-attr]
            "select seed from races where id = $1", race
        )
    )
    game = engine.new_game("klondike", seed=seed)
    drawn = await drawn_board(page)
    assert drawn["backs"] == sum(game.position.down) == 21
    columns = [drawn["piles"].get(f"c{n}", []) for n in range(1, 8)]
    tableau = game.view()["tableau"]
    assert columns == [column["up"] for column in tableau]  # type: ignore[index]

    # Bob draws: his board and his line change a second later, on the page as on his.
    view = await bob.ok("move", game=games[bob], text="d")
    game.play("d")
    waste = view["view"]["waste"]["visible"][-1]
    await page.wait_for_selector(f'#board .card[data-pile="w"][data-card="{waste}"]')
    bob_line = page.locator(f'#watch-standings li[data-player="{bob.welcome["player"]["id"]}"]')
    assert "1 move" in await bob_line.inner_text()
    assert cards_sent(page, watching) <= face_up_cards(game)
    await snapshot(page, "watch-race-desktop")

    # The race ends: the page says so, with the final order.
    await ann.ok("resign", game=games[ann])
    await bob.ok("resign", game=games[bob])
    await page.wait_for_function(
        "document.querySelector('#watch-state').textContent === 'Finished'"
    )
    assert cards_sent(page, watching) <= face_up_cards(game)
    assert page.errors == []  # type: ignore[attr-defined]


async def test_a_racer_sees_no_board_of_their_own_race_in_german(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    page = await open_page(browser, page_url(server.url, "watch.html"), PHONE, locale="de-DE")
    await page.wait_for_selector("#no-races:not([hidden])")
    assert await page.inner_text("#no-races") == "Gerade läuft kein Rennen."
    await page.wait_for_function("localStorage.getItem('solitaire.token') !== null")
    token = await page.evaluate("localStorage.getItem('solitaire.token')")
    me = await connect(token=token)  # the page's own player, racing
    bob = await connect(name="Bob")
    race, _ = await ranked_race(me, bob)
    # A private invitation works the same way: the race's code in the form.
    await page.fill("#watch-race-code", str(race))
    await page.click("#watch-code button")
    await page.wait_for_function(
        "document.querySelectorAll('#watch-standings li[data-player]').length === 2"
    )
    await page.click(f'#watch-standings li[data-player="{bob.welcome["player"]["id"]}"] button')
    await page.wait_for_selector("#watch-error:not(:empty)")
    assert "Du spielst in diesem Rennen mit" in await page.inner_text("#watch-error")
    mine = f'#watch-standings li[data-player="{me.welcome["player"]["id"]}"] .name'
    assert (await page.inner_text(mine)).endswith("(du)")
    assert await page.locator("#board .card").count() == 0
    await snapshot(page, "watch-racing-here-phone")
    assert page.errors == []  # type: ignore[attr-defined]
