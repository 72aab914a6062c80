"""Races in the page, in a real browser, against a WebSocket test client.

The browser player joins by the invite link or creates the race with the form; the
test client (tests/server/arena_client.py) is the other racer. The results come from
the server's end event: the page shows its ranking, the deal and the checked
commitment.
"""

from __future__ import annotations

from arena_client import Connect
from playwright.async_api import Browser, Page
from web_browser import DESKTOP, PHONE, board_ready, browser, give_up, open_page, page_url, snapshot

from engine import new_game
from engine.deal import deal_code
from engine.solver import solve
from server.transport.app import ArenaServer

__all__ = ["browser"]  # the fixture, imported for pytest

SEED = 2  # a Klondike deal the solver wins within a few hundred positions


async def standings_count(page: Page, count: int) -> None:
    await page.wait_for_function(
        "n => document.querySelectorAll('.standings li').length === n", arg=count
    )


async def test_a_whole_race_from_the_invite_link_to_the_ranking(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    bob = await connect(name="Bob")
    created = await bob.ok(
        "create_race", variant="klondike", seed=SEED, countdown_s=1, allow_undo=True
    )
    race_id = created["race"]["race"]
    bob_id = bob.welcome["player"]["id"]

    page = await open_page(browser, page_url(server.url, f"#race={race_id}"), DESKTOP)
    await standings_count(page, 2)  # the page joined: Bob and the browser's guest
    assert await page.inner_text("[data-race-code]") == str(race_id)
    assert (await page.input_value("[data-invite]")).endswith(f"/#race={race_id}")
    assert await page.locator('[data-action="start"]').count() == 0  # only Bob may start
    await snapshot(page, "race-lobby-desktop")

    await bob.ok("start_race", race=race_id)
    await board_ready(page, moves=0)
    assert await page.is_hidden("#hint")  # the race allows no hints
    game = new_game("klondike", seed=SEED)
    assert game.view()["legal_moves"] == {"d": ["d"]}  # this deal starts with the stock
    await page.click('#board .card.back[data-pile="s"]')
    await board_ready(page, moves=1)

    # Bob wins: his progress reaches the page from the race's events.
    bob_game = created["race"]["your_game"]
    for move in solve(game.rules, game.position).moves:
        await bob.ok("move", game=bob_game, text=move.notation())
    bob_line = f'.standings li[data-player="{bob_id}"]'
    await page.wait_for_function(
        "sel => document.querySelector(sel)?.textContent.includes('52/52 · finished')",
        arg=bob_line,
    )

    await snapshot(page, "race-running-desktop")
    await give_up(page)
    await page.wait_for_selector("table.ranking")
    await page.wait_for_selector("[data-commitment].ok")
    await snapshot(page, "race-results-desktop")
    ranks = await page.eval_on_selector_all(
        "table.ranking tbody tr",
        "rows => rows.map(r => [r.dataset.rank, r.dataset.player, r.textContent])",
    )
    assert [rank for rank, _, _ in ranks] == ["1", "2"]
    assert ranks[0][1] == str(bob_id)
    assert "(you)" in ranks[1][2] and "gave up" in ranks[1][2]
    assert await page.inner_text("[data-deal-code]") == deal_code(SEED)
    await page.wait_for_selector("[data-commitment].ok")
    end = await bob.event("end", race=race_id)
    assert [line["player"] for line in end["event"]["ranking"]] == [bob_id, int(ranks[1][1])]
    assert page.errors == []  # type: ignore[attr-defined]


async def test_a_race_created_in_the_page(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    page = await open_page(browser, page_url(server.url, "#races"), PHONE)
    form = "#create-race"
    await page.select_option(f"{form} [name=variant]", "spider-2")
    await page.select_option(f"{form} [name=layout]", "digital")
    await page.fill(f"{form} [name=max_players]", "3")
    await page.fill(f"{form} [name=countdown]", "1")
    await page.fill(f"{form} [name=time_limit]", "5")
    await page.check(f"{form} [name=allow_hints]")
    await page.uncheck(f"{form} [name=require_winnable]")
    await page.click(f"{form} button.primary")
    await page.wait_for_selector("[data-race-code]")
    race_id = int(await page.inner_text("[data-race-code]"))
    assert page.url.endswith(f"#race={race_id}")

    ann = await connect(name="Ann")
    joined = await ann.ok("join_race", race=race_id)
    settings = joined["race"]["settings"]
    assert settings["variant"] == "spider-2"
    assert settings["options"] == {"layout": "digital"}
    assert (settings["max_players"], settings["countdown_s"], settings["time_limit_s"]) == (
        3,
        1,
        300,
    )
    assert (settings["allow_undo"], settings["allow_hints"]) == (True, True)
    assert settings["winnable"] == "unproven"
    await standings_count(page, 2)
    await snapshot(page, "race-lobby-phone")

    await page.click('[data-action="start"]')
    await ann.event("countdown", race=race_id)
    await ann.event("start", race=race_id)
    await board_ready(page, moves=0)
    columns = await page.locator("#board .slot.column").count()
    assert columns == 10
    backs = await page.locator('#board .card.back:not([data-pile="s"])').count()
    assert backs == 44  # the digital layout: 6, 6, 6, 6, 5, 5, 5, 5, 5, 5, one face up each

    await snapshot(page, "race-running-phone")
    await ann.ok("resign", game=joined["race"]["your_game"])
    await page.wait_for_function(
        "() => document.querySelector('.standings')?.textContent.includes('gave up')"
    )
    await give_up(page)
    await page.wait_for_selector("table.ranking")
    assert await page.locator("table.ranking tbody tr").count() == 2
    await snapshot(page, "race-results-phone")
    assert page.errors == []  # type: ignore[attr-defined]


async def test_joining_by_the_race_code(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    cy = await connect(name="Cy")
    created = await cy.ok("create_race", variant="yukon", countdown_s=0, require_winnable=False)
    race_id = created["race"]["race"]
    page = await open_page(browser, page_url(server.url, "#races"), PHONE)
    await page.fill("#join-race [name=code]", str(race_id))
    await page.click("#join-race button")
    await standings_count(page, 2)
    assert page.url.endswith(f"#race={race_id}")
    joined = await cy.event(
        "lobby", race=race_id, predicate=lambda e: len(e["event"]["players"]) == 2
    )
    names = [p["name"] for p in joined["event"]["players"]]
    assert len(names) == 2 and names[0] == "Cy"

    # Leaving the lobby takes the player out, and the page back to the race menu.
    await page.click('[data-action="leave"]')
    await cy.event("lobby", race=race_id, predicate=lambda e: len(e["event"]["players"]) == 1)
    await page.wait_for_selector("#create-race", state="visible")
