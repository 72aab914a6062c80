"""The end of a race in the page: Rematch (asked or offered) and Play this deal."""

from __future__ import annotations

from arena_client import Connect
from playwright.async_api import Browser
from test_web_practice import assert_same_board
from test_web_replay import SEED, finished_race
from web_browser import DESKTOP, PHONE, board_ready, browser, drawn_board, snapshot

from engine import new_game
from server.transport.app import ArenaServer

__all__ = ["browser"]  # the fixture, imported for pytest


async def test_rematch_asked_in_the_page(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    done = await finished_race(browser, server, connect, PHONE)
    page = done.page
    await page.click('[data-action="rematch"]')
    # The page opened the rematch and waits in its lobby, as its creator.
    await page.wait_for_selector('[data-action="start"]')
    told = await done.bob.event("rematch", race=done.race)
    rematch = told["event"]["rematch"]
    assert page.url.endswith(f"#race={rematch}")
    assert await page.inner_text("[data-race-code]") == str(rematch)
    joined = await done.bob.ok("rematch", race=done.race)  # Bob asks too: the same race
    assert joined["race"]["race"] == rematch
    await page.wait_for_function("() => document.querySelectorAll('.standings li').length === 2")
    settings = joined["race"]["settings"]
    assert settings["variant"] == "klondike" and settings["allow_undo"] is True
    assert page.errors == []  # type: ignore[attr-defined]


async def test_rematch_offered_by_another_player(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    done = await finished_race(browser, server, connect, DESKTOP)
    page = done.page
    offered = await done.bob.ok("rematch", race=done.race)
    rematch = offered["race"]["race"]
    await page.wait_for_selector(f'[data-rematch="{rematch}"]')
    assert await page.inner_text("[data-rematch]") == f"Bob offers a rematch: race {rematch}."
    assert await page.inner_text('[data-action="rematch"]') == "Join the rematch"
    await snapshot(page, "race-rematch-desktop")
    await page.click('[data-action="rematch"]')
    await page.wait_for_function("() => document.querySelectorAll('.standings li').length === 2")
    assert page.url.endswith(f"#race={rematch}")
    lobby = await done.bob.event(
        "lobby", race=rematch, predicate=lambda e: len(e["event"]["players"]) == 2
    )
    assert lobby["event"]["players"][0]["name"] == "Bob"
    assert page.errors == []  # type: ignore[attr-defined]


async def test_play_this_deal_after_the_race(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    done = await finished_race(browser, server, connect, PHONE)
    page = done.page
    await page.click('[data-action="again"]')
    await board_ready(page, moves=0)
    await page.wait_for_selector("#variant:is(select)")
    assert await page.input_value("#variant") == "klondike"
    assert_same_board(await drawn_board(page), new_game("klondike", SEED))
    # A practice game of its own: playable, with the solver's help.
    assert await page.is_visible("#check")
    await page.click('#board .card.back[data-pile="s"]')
    await board_ready(page, moves=1)
    assert page.errors == []  # type: ignore[attr-defined]
