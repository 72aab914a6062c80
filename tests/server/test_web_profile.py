"""The page tells the server a guest's chosen name and the language picked at the switch.

The name typed into the page reaches the other racers (a WebSocket test client sees it
in the lobby), and after the switch to German the server's refusals are German.
"""

from __future__ import annotations

from arena_client import Connect
from playwright.async_api import Browser, Page
from web_browser import DESKTOP, browser, open_page, page_url

from server.transport.app import ArenaServer

__all__ = ["browser"]  # the fixture, imported for pytest

NAME = "#profile [name=name]"


async def name_shown(page: Page, pattern: str) -> None:
    """Wait until the name field holds a value matching ``pattern`` (a regex)."""
    await page.wait_for_function(
        "([field, pattern]) => new RegExp(pattern).test(document.querySelector(field).value)",
        arg=[NAME, pattern],
    )


async def refusal_shown(page: Page, start: str) -> None:
    """Wait until the name form shows an error that starts with ``start``."""
    await page.wait_for_function(
        "start => document.querySelector('#profile-error').textContent.startsWith(start)",
        arg=start,
    )


async def test_the_page_renames_its_guest_and_switches_the_servers_language(
    browser: Browser, server: ArenaServer, connect: Connect
) -> None:
    page = await open_page(browser, page_url(server.url, "#races"), DESKTOP)
    await name_shown(page, r"^Guest \d+$")
    await page.fill(NAME, "  Zoë  ")
    await page.click("#profile button")
    await name_shown(page, "^Zoë$")

    bob = await connect(name="Bob")
    race = (await bob.ok("create_race", variant="yukon", start="manual"))["race"]["race"]
    await page.evaluate("id => { location.hash = '#race=' + id; }", race)
    lobby = await bob.event("lobby", race, lambda e: len(e["event"]["players"]) == 2)
    assert sorted(player["name"] for player in lobby["event"]["players"]) == ["Bob", "Zoë"]

    # A refusal in English, then the switch, then the same refusal in German.
    await page.goto(page_url(server.url, "#races"))
    await name_shown(page, "^Zoë$")
    await page.fill(NAME, "   ")
    await page.click("#profile button")
    await refusal_shown(page, "Invalid message")
    await page.click("#lang")
    await page.wait_for_function(
        "() => document.querySelector('#lang .wide').textContent === 'English'"
    )
    await page.click("#profile button")
    await refusal_shown(page, "Ungültige Nachricht")
    assert server.services is not None
    stored = await server.services.storage.pool.fetchrow(
        "select display_name, locale from players where display_name = 'Zoë'"
    )
    assert stored is not None and stored["locale"] == "de"
    assert page.errors == []  # type: ignore[attr-defined]
