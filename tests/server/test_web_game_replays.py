"""Replays of a daily attempt and of a practice game in the page, two side by side.

A daily: Bob, a WebSocket player, plays today's Klondike deal a little and gives up
first; the browser player draws once and gives up. Their games then replay side by side.
Until the day closes the server keeps the deal's seed to itself, so every step's view is
the server's; each is held to the engine replaying the same actions on the same deal.

A practice game, once won, replays beside the solver's win on the same deal, both
rebuilt in the page, each step held to the engine.
"""

from __future__ import annotations

from typing import Any

from arena_client import Connect
from playwright.async_api import Browser
from test_leaderboard_protocol import store_todays_deal
from test_web_replay import SEED, columns_of, expected, replay_board, step_shown
from web_browser import (
    DESKTOP,
    MANUAL_FINISH,
    board_ready,
    browser,
    give_up,
    open_page,
    page_url,
    snapshot,
)

from engine import new_game, replay
from engine.solver import solve
from server.transport.app import ArenaServer

__all__ = ["browser"]  # the fixture, imported for pytest

BOB = ["d", "w>2", "d", "d"]  # w>2 puts the first card drawn on column 2
MINE = ["d"]


async def test_a_finished_daily_replays_beside_the_days_best(
    browser: Browser, server: ArenaServer, connect: Connect, migrated_database_url: str
) -> None:
    today = await store_todays_deal(migrated_database_url, "klondike", SEED)
    bob = await connect(name="Bob")
    started = await bob.ok("daily_start", variant="klondike")
    for text in BOB:
        await bob.ok("move", game=started["game"], text=text)
    await bob.ok("resign", game=started["game"])

    page = await open_page(browser, page_url(server.url, "#daily"), DESKTOP)
    await page.wait_for_selector(f"#daily-panel h2:has-text('{today}')")
    await page.click('[data-action="daily-play"]')
    await board_ready(page, moves=0)
    await page.click('#board .card.back[data-pile="s"]')
    await board_ready(page, moves=1)
    await give_up(page, "daily-resign")
    await page.wait_for_selector("[data-replay-game]")

    await page.click("[data-replay-game]")
    await page.wait_for_selector('[data-replay-board="best"] .card')
    assert "#replay=game:" in page.url
    captions = await page.eval_on_selector_all("figcaption", "els => els.map(e => e.textContent)")
    assert captions == ["Your game", "Bob, first on the day's board"]
    total = len(BOB)
    await step_shown(page, 0, total)
    assert columns_of(await replay_board(page, "best")) == expected([])
    for n in range(1, total + 1):
        await page.click('[data-step="next"]')
        await step_shown(page, n, total)
        assert columns_of(await replay_board(page, "best")) == expected(BOB[:n])
        assert columns_of(await replay_board(page, "mine")) == expected(MINE[:n])
    # Bob's w>2 is on his board, not on the player's.
    assert columns_of(await replay_board(page, "best")) != columns_of(
        await replay_board(page, "mine")
    )
    await page.click('[data-step="first"]')
    await step_shown(page, 0, total)
    await page.keyboard.press("End")
    await step_shown(page, total, total)
    await snapshot(page, "daily-replay-desktop")
    assert page.errors == []  # type: ignore[attr-defined]


async def test_a_won_practice_game_replays_beside_the_solvers_win(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    page = await open_page(
        browser, page_url(server.url, "#deal=yukon:1"), DESKTOP, settings=MANUAL_FINISH
    )
    await board_ready(page, moves=0)
    assert await page.is_hidden("#practice-replay")
    game_id = await page.evaluate("JSON.parse(localStorage.getItem('solitaire.practice')).game")
    token = await page.evaluate("localStorage.getItem('solitaire.token')")
    # The same guest plays the solver's line from another connection up to the finish,
    # which the page sends (Enter): the page sees the win.
    other = await connect(token=token)
    game = new_game("yukon", seed=1)
    for move in solve(game.rules, game.position).moves:
        if game.can_finish:
            break
        game.play(move)
        await other.ok("move", game=game_id, text=move.notation())
    await page.reload()
    await board_ready(page, moves=game.counters["moves"])
    await page.keyboard.press("Enter")
    await page.wait_for_selector("#practice-replay:not([hidden])")

    await page.click("#practice-replay a")
    await page.wait_for_selector('[data-replay-board="solver"] .card')
    assert page.url.endswith(f"#replay=game:{game_id}")
    captions = await page.eval_on_selector_all("figcaption", "els => els.map(e => e.textContent)")
    assert captions == ["Your game", "The solver's win"]
    record = await other.ok("replay", game=game_id)
    total = max(len(record["actions"]), len(record["solution"]))
    await step_shown(page, 0, total)
    for n in (1, 2, total):
        if n == total:
            await page.click('[data-step="last"]')
        else:
            await page.click('[data-step="next"]')
        await step_shown(page, n, total)
        for which, actions in (("mine", record["actions"]), ("solver", record["solution"])):
            view: Any = replay("yukon", 1, {}, actions[:n]).view()
            drawn = await replay_board(page, which)
            for i, column in enumerate(view["tableau"], start=1):
                assert drawn["piles"].get(f"c{i}", []) == column["up"], (which, n, i)
    solver_end = await replay_board(page, "solver")
    assert sorted(solver_end["piles"][f"f{i}"][0][0] for i in range(1, 5)) == ["K"] * 4
    assert page.errors == []  # type: ignore[attr-defined]
