"""After a race: replays side by side (the player's game and the winner's).

Bob, a WebSocket test client, wins a Klondike race by the solver's line; the browser
player draws twice and gives up. The replays are rebuilt in the page from the server's
records, so each step is held to the engine replaying the same actions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena_client import Client, Connect
from playwright.async_api import Browser, Page
from web_browser import DESKTOP, PHONE, board_ready, browser, give_up, open_page, page_url, snapshot

from engine import new_game, replay
from engine.solver import solve
from server.transport.app import ArenaServer

__all__ = ["browser"]  # the fixture, imported for pytest

SEED = 2  # a Klondike deal the solver wins within a few hundred positions


@dataclass
class Finished:
    page: Page
    bob: Client
    race: int
    bob_actions: list[str]
    my_actions: list[str]


async def finished_race(
    browser: Browser, server: ArenaServer, connect: Connect, viewport: dict[str, int]
) -> Finished:
    """A race of Bob and the page's guest, won by Bob, shown at its results."""
    bob = await connect(name="Bob")
    created = await bob.ok(
        "create_race", variant="klondike", seed=SEED, countdown_s=0, allow_undo=True
    )
    race_id = created["race"]["race"]
    page = await open_page(browser, page_url(server.url, f"#race={race_id}"), viewport)
    await page.wait_for_function("() => document.querySelectorAll('.standings li').length === 2")
    await bob.ok("start_race", race=race_id)
    await board_ready(page, moves=0)
    for moves in (1, 2):
        await page.click('#board .card.back[data-pile="s"]')
        await board_ready(page, moves=moves)
    game = new_game("klondike", seed=SEED)
    bob_actions = [m.notation() for m in solve(game.rules, game.position).moves]
    for text in bob_actions:
        await bob.ok("move", game=created["race"]["your_game"], text=text)
    await give_up(page)
    await page.wait_for_selector("table.ranking")
    return Finished(page, bob, race_id, bob_actions, ["d", "d"])


async def replay_board(page: Page, which: str) -> dict[str, Any]:
    """The face-up cards per pile and the backs of one replay board."""
    result: dict[str, Any] = await page.evaluate(
        """which => {
        const piles = {};
        let backs = 0;
        for (const el of document.querySelectorAll(`[data-replay-board="${which}"] .card`)) {
          if (el.classList.contains('back')) { if (el.dataset.pile !== 's') backs += 1; continue; }
          const pile = el.dataset.pile || 'other';
          (piles[pile] = piles[pile] || []).push(el.dataset.card);
        }
        return {piles, backs};
    }""",
        which,
    )
    return result


def expected(actions: list[str]) -> dict[str, Any]:
    view: Any = replay("klondike", SEED, {}, actions).view()
    piles = {f"c{i}": c["up"] for i, c in enumerate(view["tableau"], start=1) if c["up"]}
    return {"piles": piles, "backs": sum(c["down"] for c in view["tableau"])}


def columns_of(drawn: dict[str, Any]) -> dict[str, Any]:
    return {
        "piles": {k: v for k, v in drawn["piles"].items() if k.startswith("c")},
        "backs": drawn["backs"],
    }


async def step_shown(page: Page, n: int, total: int) -> None:
    await page.wait_for_function(
        "t => document.querySelector('[data-replay-step]')?.textContent === t",
        arg=f"Step {n} of {total}",
    )


async def test_replays_of_mine_and_the_winners_side_by_side(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    done = await finished_race(browser, server, connect, DESKTOP)
    page = done.page
    await page.click('[data-action="replay"]')
    await page.wait_for_selector('[data-replay-board="winner"] .card')
    assert page.url.endswith(f"#replay={done.race}")
    total = len(done.bob_actions)
    await step_shown(page, 0, total)
    captions = await page.eval_on_selector_all("figcaption", "els => els.map(e => e.textContent)")
    assert captions == ["Your game", "Bob, the winner"]
    deal = expected([])
    assert columns_of(await replay_board(page, "mine")) == deal
    assert columns_of(await replay_board(page, "winner")) == deal
    # Side by side on a desktop.
    mine = await page.locator('[data-replay-board="mine"]').bounding_box()
    winner = await page.locator('[data-replay-board="winner"]').bounding_box()
    assert mine is not None and winner is not None and winner["x"] > mine["x"] + mine["width"] - 1

    for n in (1, 2, 3):
        await page.click('[data-step="next"]')
        await step_shown(page, n, total)
        assert columns_of(await replay_board(page, "winner")) == expected(done.bob_actions[:n])
        assert columns_of(await replay_board(page, "mine")) == expected(done.my_actions[:n])
    await page.click('[data-step="last"]')
    await step_shown(page, total, total)
    winner_end = await replay_board(page, "winner")
    assert sorted(winner_end["piles"][f"f{i}"][0] for i in range(1, 5)) == sorted(
        ["Kc", "Kd", "Kh", "Ks"]
    )
    assert winner_end["backs"] == 0
    await page.click('[data-step="back"]')
    await step_shown(page, total - 1, total)
    assert columns_of(await replay_board(page, "winner")) == expected(done.bob_actions[:-1])
    await snapshot(page, "replay-desktop")
    await page.click('[data-step="first"]')
    await step_shown(page, 0, total)
    # The keys step too.
    await page.keyboard.press("ArrowRight")
    await step_shown(page, 1, total)
    await page.keyboard.press("End")
    await step_shown(page, total, total)
    await page.keyboard.press("Home")
    await step_shown(page, 0, total)
    # Play runs on by itself.
    await page.click('[data-step="play"]')
    await step_shown(page, 2, total)
    await page.click('[data-step="play"]')
    assert page.errors == []  # type: ignore[attr-defined]


async def test_replays_stack_on_a_phone(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    done = await finished_race(browser, server, connect, PHONE)
    page = done.page
    await page.click('[data-action="replay"]')
    await page.wait_for_selector('[data-replay-board="winner"] .card')
    await page.click('[data-step="last"]')
    mine = await page.locator('[data-replay-board="mine"]').bounding_box()
    winner = await page.locator('[data-replay-board="winner"]').bounding_box()
    assert mine is not None and winner is not None and winner["y"] >= mine["y"] + mine["height"]
    await snapshot(page, "replay-phone")
    assert page.errors == []  # type: ignore[attr-defined]


async def test_hints_and_undos_are_not_steps(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    """Step n shows both games n moves in: the page's game asked a hint and took a
    move back, and still stands beside the winner's move for move."""
    bob = await connect(name="Bob")
    created = await bob.ok(
        "create_race", variant="klondike", seed=SEED, countdown_s=0, allow_hints=True
    )
    race_id = created["race"]["race"]
    page = await open_page(browser, page_url(server.url, f"#race={race_id}"), DESKTOP)
    await page.wait_for_function("() => document.querySelectorAll('.standings li').length === 2")
    await bob.ok("start_race", race=race_id)
    await board_ready(page, moves=0)
    await page.click('#board .card.back[data-pile="s"]')
    await board_ready(page, moves=1)
    await page.click("#hint")
    await page.wait_for_selector("#board .hinted")
    await page.click('#board .card.back[data-pile="s"]')
    await board_ready(page, moves=2)
    await page.click("#undo")
    await board_ready(page, moves=1)
    await page.click('#board .card.back[data-pile="s"]')
    await board_ready(page, moves=2)
    game = new_game("klondike", seed=SEED)
    bob_actions = [m.notation() for m in solve(game.rules, game.position).moves]
    for text in bob_actions:
        await bob.ok("move", game=created["race"]["your_game"], text=text)
    await give_up(page)
    await page.wait_for_selector("table.ranking")
    result = await bob.ok("race_result", race=race_id)
    mine = await bob.ok("replay", game=result["games"][str(page_player(result, bob))])
    assert mine["actions"] == ["d", "hint", "d", "undo", "d"]  # as the server keeps them

    await page.click('[data-action="replay"]')
    await page.wait_for_selector('[data-replay-board="winner"] .card')
    captions = await page.eval_on_selector_all("figcaption", "els => els.map(e => e.textContent)")
    assert captions == ["Your game · 1 undo, 1 hint", "Bob, the winner"]
    total = len(bob_actions)
    for n in (1, 2, 3):
        await page.click('[data-step="next"]')
        await step_shown(page, n, total)
        assert columns_of(await replay_board(page, "winner")) == expected(bob_actions[:n])
        mine_shown = await replay_board(page, "mine")
        assert columns_of(mine_shown) == expected(["d", "d"][:n])
        waste = expected_waste(["d", "d"][:n])
        assert mine_shown["piles"].get("w", [])[-1:] == waste
    assert page.errors == []  # type: ignore[attr-defined]


def page_player(result: dict[str, Any], bob: Client) -> int:
    """The other player of a race of two: the page's guest."""
    bob_id = bob.welcome["player"]["id"]
    return next(int(p) for p in result["games"] if int(p) != bob_id)


def expected_waste(actions: list[str]) -> list[str]:
    view: Any = replay("klondike", SEED, {}, actions).view()
    return list(view["waste"]["visible"][-1:])


async def test_when_nobody_finished_nobody_is_called_the_winner(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    bob = await connect(name="Bob")
    created = await bob.ok("create_race", variant="klondike", seed=SEED, countdown_s=0)
    race_id = created["race"]["race"]
    page = await open_page(browser, page_url(server.url, f"#race={race_id}"), DESKTOP)
    await page.wait_for_function("() => document.querySelectorAll('.standings li').length === 2")
    await bob.ok("start_race", race=race_id)
    await board_ready(page, moves=0)
    bob_game = created["race"]["your_game"]
    for _ in range(3):
        await bob.ok("move", game=bob_game, text="d")
    await bob.ok("resign", game=bob_game)
    await give_up(page)
    await page.wait_for_selector("table.ranking")
    result = await bob.ok("race_result", race=race_id)
    assert not any(line["finished"] for line in result["ranking"])
    bob_line = next(line for line in result["ranking"] if line["name"] == "Bob")

    await page.click('[data-action="replay"]')
    await page.wait_for_selector('[data-replay-board="placed"] .card')
    captions = await page.eval_on_selector_all("figcaption", "els => els.map(e => e.textContent)")
    assert captions == ["Your game", f"Bob, place {bob_line['rank']} (nobody finished)"]
    assert "winner" not in await page.inner_text("#replay-panel")
    await step_shown(page, 0, 3)
    assert page.errors == []  # type: ignore[attr-defined]
