"""Deal ratings on a real server: the daily shows its deal's difficulty, a ranked daily
attempt is rated as a game of the player against the deal, and practice deals a band."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from arena_client import SERVICE_TOKEN, Client
from rated_races import solution, user
from websockets.asyncio.client import connect as ws_connect

from server.core import deals
from server.core.calendar import day_start_ms
from server.ops.config import ServerConfig
from server.store.rating_rebuild import rebuild
from server.transport.app import ArenaServer

# Ten in the morning of a day: the daily deal is open for hours.
START = day_start_ms(__import__("datetime").date(2026, 5, 4)) + 10 * 3_600_000


@pytest.fixture
async def timed(
    server_config: ServerConfig, migrated_database_url: str
) -> AsyncIterator[tuple[ArenaServer, list[int]]]:
    """A server whose clock the test moves (``now[0]``)."""
    now = [START]
    async with ArenaServer(server_config, migrated_database_url, clock=lambda: now[0]) as server:
        yield server, now


async def client(server: ArenaServer, **hello: Any) -> Client:
    opened = Client(await ws_connect(server.url, max_queue=None))
    opened.welcome = await opened.ok("hello", **hello)
    return opened


async def reviewed(server: ArenaServer, game: int) -> None:
    assert server.services is not None
    for _ in range(200):
        held = await server.services.storage.pool.fetchval(
            "select held from daily_entries where entry_id = $1", game
        )
        if held is None:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"attempt {game} was never reviewed")


async def test_a_daily_attempt_is_a_game_against_the_deal(
    timed: tuple[ArenaServer, list[int]],
) -> None:
    server, now = timed
    assert server.services is not None
    pool = server.services.storage.pool
    bot = await client(server, service_token=SERVICE_TOKEN)
    guest = await client(server, name="Guest")
    winner, loser = user(1, "Win"), user(2, "Lose")

    first = await bot.ok("daily", variant="klondike", act_as=winner, wait=60.0)
    difficulty = first["deal"]["difficulty"]
    assert difficulty["band"] in deals.BANDS and difficulty["games"] == 0
    stored = await pool.fetchrow("select seed, solver_nodes from daily_deals")
    expected = deals.prior(deals.estimate("winnable", stored["solver_nodes"]))
    assert difficulty["rating"] == expected.rating
    assert difficulty["band"] == deals.band(expected)

    won = await bot.ok("daily_start", variant="klondike", act_as=winner)
    for move in solution("klondike", int(stored["seed"])):
        now[0] += 2_000
        await bot.ok("move", game=won["game"], text=move, act_as=winner)
    lost = await bot.ok("daily_start", variant="klondike", act_as=loser)
    await bot.ok("resign", game=lost["game"], act_as=loser)
    by_guest = await guest.ok("daily_start", variant="klondike")
    await guest.ok("resign", game=by_guest["game"])
    await reviewed(server, won["game"])

    ratings = server.services.ratings
    assert await ratings.rate_pending() == 2  # the guest's attempt is never rated
    assert await ratings.rate_pending() == 0
    after = await guest.ok("daily", variant="klondike")
    assert after["deal"]["difficulty"]["games"] == 2
    mine = await bot.ok("player_ratings", act_as=winner)
    theirs = await bot.ok("player_ratings", act_as=loser)
    assert mine["ratings"][0]["rating"] > 1500 > theirs["ratings"][0]["rating"]
    solo = await pool.fetch("select * from rated_games order by id")
    assert [r["entry_id"] for r in solo] == [won["game"], lost["game"]]
    assert solo[0]["deal_mu"] < solo[0]["deal_mu_before"] == expected.mu  # beaten: easier
    assert solo[1]["deal_mu"] > solo[1]["deal_mu_before"] == solo[0]["deal_mu"]
    deal_row = await pool.fetchrow("select mu, sigma, games, practice from deal_ratings")
    assert (deal_row["mu"], deal_row["games"], deal_row["practice"]) == (
        solo[1]["deal_mu"],
        2,
        False,
    )

    rebuilt = await rebuild(pool)
    assert (rebuilt.games, rebuilt.ratings, rebuilt.differing) == (2, 2, 0)
    await pool.execute("update deal_ratings set mu = 0")
    assert (await rebuild(pool)).differing == 1
    assert await pool.fetchval("select mu from deal_ratings") == solo[1]["deal_mu"]


async def test_practice_deals_the_band_asked_for(timed: tuple[ArenaServer, list[int]]) -> None:
    server, _ = timed
    assert server.services is not None
    player = await client(server, name="Pat")
    seeds = set()
    for _ in range(2):
        reply = await player.ok("practice", variant="klondike", difficulty="hard", wait=30.0)
        assert reply["difficulty"]["band"] == "hard"
        assert reply["difficulty"]["games"] == 0
        seeds.add(str(reply["view"]["seed"]))
    assert len(seeds) == 2  # never the same deal twice to one player
    stock = await server.services.storage.pool.fetch(
        "select seed::text, mu from deal_ratings where practice"
    )
    assert {row["seed"] for row in stock} >= seeds
    low, _ = deals.mu_range("hard")
    assert all(row["mu"] >= low for row in stock if row["seed"] in seeds)

    await player.error("practice", "invalid_options", variant="klondike", difficulty="easy", seed=4)
    await player.error("practice", "invalid_message", variant="klondike", difficulty="tricky")
    await player.error(
        "practice", "invalid_options", variant="klondike", options={"passes": -1}, difficulty="easy"
    )
    plain = await player.ok("practice", variant="klondike")
    assert "difficulty" not in plain
