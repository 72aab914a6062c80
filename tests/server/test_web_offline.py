"""The page installable and offline: the manifest, the service worker, practice with
the rules in the page while the server is down, and the record sent once it is back."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

from arena_client import SOLVER_WAIT, Connect
from playwright.async_api import Browser
from test_web_practice import VARIANTS, assert_same_board
from web_browser import (
    MANUAL_FINISH,
    board_ready,
    browser,
    drawn_board,
    open_page,
    page_url,
    play_by_taps,
    snapshot,
)

from engine import new_game
from engine.solver import solve
from server.ops.config import ServerConfig
from server.transport.app import ArenaServer
from server.transport.static import WEB_ROOT, load_files

__all__ = ["browser"]  # the fixture, imported for pytest

# Discord's SDK is loaded only by the page inside Discord, never kept for offline play.
ONLY_IN_DISCORD = {"/discord-sdk.js"}


def test_the_service_worker_keeps_every_file_of_the_page() -> None:
    listed = re.search(r"const FILES = \[(.*?)\];", (WEB_ROOT / "sw.js").read_text(), re.S)
    assert listed is not None
    kept = set(re.findall(r'"(/[^"]*)"', listed.group(1)))
    assert kept == set(load_files(WEB_ROOT)) - ONLY_IN_DISCORD


def test_the_page_asks_for_every_module_it_imports_at_once() -> None:
    # Each level of imports found only once the level above has loaded costs the cold
    # start a round trip: the page lists every module app.js reaches for preloading.
    html = (WEB_ROOT / "index.html").read_text()
    preloaded = set(re.findall(r'<link rel="modulepreload" href="/([^"]+)">', html))
    reached, waiting = set(), ["app.js"]
    while waiting:
        module = waiting.pop()
        for imported in re.findall(r'from "\./([^"]+)"', (WEB_ROOT / module).read_text()):
            if imported not in reached:
                reached.add(imported)
                waiting.append(imported)
    assert reached == preloaded


def test_the_manifest_makes_the_page_installable() -> None:
    manifest = json.loads((WEB_ROOT / "manifest.webmanifest").read_text())
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    assert {icon["purpose"] for icon in manifest["icons"]} == {"any", "maskable"}
    assert b'rel="manifest"' in (WEB_ROOT / "index.html").read_bytes()


async def test_practice_offline_and_the_record_arrives_when_the_server_is_back(
    browser: Browser, migrated_database_url: str, server_config: ServerConfig
) -> None:
    first = ArenaServer(server_config, migrated_database_url)
    await first.start()
    port = first.port
    url = page_url(first.url)
    page = await open_page(browser, url, settings=MANUAL_FINISH)
    await board_ready(page)
    # The service worker is installed and holds the page's files.
    await page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    await page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    kept = await page.evaluate(
        "caches.open('solitaire-page-v1').then(c => c.keys()).then(k => k.length)"
    )
    await first.stop()
    assert kept == len(set(load_files(WEB_ROOT)) - ONLY_IN_DISCORD)
    await page.wait_for_selector("#status:has-text('Connection lost')")
    # No server: the page still loads, and a practice deal is dealt by the page itself,
    # the same cards as the engine's.
    await page.goto(url + "#deal=yukon:2")
    await board_ready(page, moves=0)
    await page.wait_for_selector("#status:has-text('Offline: practice goes on')")
    game = new_game("yukon", 2)
    assert_same_board(await drawn_board(page), game)

    line = solve(game.rules, game.position).moves
    assert line
    for move in line:
        if game.can_finish:
            break
        await play_by_taps(page, game.view(), move.notation())
        game.play(move)
        await board_ready(page, moves=game.counters["moves"])
        if game.counters["moves"] == 10:
            # Undo and the hint work offline too; a reload continues the same game.
            await page.keyboard.press("u")
            game.undo()
            await board_ready(page, moves=9)
            await page.keyboard.press("h")
            await page.wait_for_selector("#board .hinted")
            await page.reload()
            await board_ready(page, moves=9)
            await play_by_taps(page, game.view(), move.notation())
            game.play(move)
            await board_ready(page, moves=10)
            assert_same_board(await drawn_board(page), game)
    await snapshot(page, "offline-phone")
    await page.keyboard.press("Enter")
    finished = game.counters["moves"] + len(game.finishing_moves())
    await board_ready(page, moves=finished)
    assert (await page.inner_text("#message")).startswith(f"Solved in {finished} moves")
    waiting: Any = json.loads(await page.evaluate("localStorage.getItem('solitaire.outbox')"))
    assert len(waiting) == 1 and waiting[0]["variant"] == "yukon" and waiting[0]["seed"] == "2"
    actions = waiting[0]["actions"]
    assert actions.count("undo") == 1 and actions.count("hint") == 1

    # The server is back (same port and database): the page sends the record.
    again = ArenaServer(replace(server_config, port=port), migrated_database_url)
    await again.start()
    try:
        await page.wait_for_function("() => document.body.dataset.online === 'yes'", timeout=30_000)
        await page.wait_for_function(
            "() => JSON.parse(localStorage.getItem('solitaire.outbox') || '[]').length === 0"
        )
        sent = json.loads(await page.evaluate("localStorage.getItem('solitaire.sent')"))
        assert len(sent) == 1 and sent[0]["status"] == "won"
        token = await page.evaluate("localStorage.getItem('solitaire.token')")
        connect: Connect = _connector(again)
        me = await connect(token=token)
        record = await me.ok("replay", game=sent[0]["game"], wait=SOLVER_WAIT)
        assert record["actions"] == actions and record["status"] == "won"
        assert record["variant"] == "yukon" and int(record["seed"]) == 2
        assert page.errors == []  # type: ignore[attr-defined]
    finally:
        await page.context.close()
        await again.stop()


def _connector(server: ArenaServer) -> Connect:
    from arena_client import Client
    from websockets.asyncio.client import connect as ws_connect

    async def open_client(**fields: Any) -> Client:
        client = Client(await ws_connect(server.url, max_queue=None))
        client.welcome = await client.ok("hello", **fields)
        return client

    return open_client


async def test_every_variant_deals_and_plays_offline(
    browser: Browser, migrated_database_url: str, server_config: ServerConfig
) -> None:
    """With the server gone, each variant is dealt by the page as the engine deals it,
    and the engine's hints, tapped, play there as they do in the engine."""
    first = ArenaServer(server_config, migrated_database_url)
    await first.start()
    url = page_url(first.url)
    page = await open_page(browser, url)
    try:
        await board_ready(page)
        await page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        await page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    finally:
        await first.stop()
    await page.wait_for_selector("#status:has-text('Connection lost')")
    for variant in VARIANTS:
        await page.goto(url + f"#deal={variant}:5")
        await board_ready(page, moves=0)
        await page.wait_for_selector("#status:has-text('Offline: practice goes on')")
        game = new_game(variant, 5)
        assert_same_board(await drawn_board(page), game)
        for _ in range(4):
            hint = game.hint()
            if hint is None:
                break
            await play_by_taps(page, game.view(), hint.notation())
            game.play(hint)
            await board_ready(page, moves=game.counters["moves"])
            assert_same_board(await drawn_board(page), game)
    assert page.errors == []  # type: ignore[attr-defined]
    await page.context.close()
