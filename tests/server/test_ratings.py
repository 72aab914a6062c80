"""Player ratings on a real server and PostgreSQL: rated at a rated race's end, read back,
swept after a stop, and rebuilt by ``solitaire ratings rebuild`` to the same numbers."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from typing import Any

import asyncpg
from arena_client import SERVICE_TOKEN, Connect
from rated_races import play_rated_race, rating_changes, user

from server.core import ratings
from server.core.ratings import Skill
from server.transport.app import ArenaServer

SNAPSHOT_SQL = {
    "ratings": "select variant, options, player_id, mu, sigma, games, rated_at from ratings "
    "order by variant, options, player_id",
    "rating_changes": "select * from rating_changes order by game_id, player_id",
}


async def snapshot(pool: asyncpg.Pool) -> dict[str, list[tuple[Any, ...]]]:
    return {name: [tuple(r) for r in await pool.fetch(sql)] for name, sql in SNAPSHOT_SQL.items()}


def rebuild_command(database_url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "server.ops.cli",
            "ratings",
            "rebuild",
            "--database-url",
            database_url,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )


async def test_a_rated_race_rates_its_signed_in_players_by_their_finishing_order(
    server: ArenaServer, connect: Connect
) -> None:
    bot = await connect(service_token=SERVICE_TOKEN)
    players = [user(1, "Ada"), user(2, "Bo"), user(3, "Cy"), user(4, "Di")]
    guest = await connect(name="Guest")
    # Bo wins, then Ada; Cy, Di and a guest resign (the guest is never rated).
    race = await play_rated_race(server, bot, players, winners=[1, 0], guests=(guest,))

    changes = await rating_changes(bot, race)
    assert changes["rated"] is True
    assert changes["variant"] == "klondike" and changes["options"] == {"passes": 0}
    by_name = {line["name"]: line for line in changes["lines"]}
    assert {name: line["place"] for name, line in by_name.items()} == {
        "Bo": 1,
        "Ada": 2,
        "Cy": 3,
        "Di": 3,
    }
    assert by_name["Bo"]["change"] > by_name["Ada"]["change"] > 0 > by_name["Cy"]["change"]
    assert by_name["Cy"]["change"] == by_name["Di"]["change"]
    assert all(line["provisional"] for line in changes["lines"])
    assert guest.welcome["player"]["id"] not in {line["player"] for line in changes["lines"]}
    assert by_name["Bo"]["rating"] == 1500 + by_name["Bo"]["change"]

    # Anyone may ask for the changes later; the players read their ratings and history.
    asked = await guest.ok("race_ratings", race=race)
    assert asked["lines"] == changes["lines"]
    mine = await bot.ok("player_ratings", history=10, act_as=players[1])
    (pool,) = mine["ratings"]
    assert pool["variant"] == "klondike" and pool["games"] == 1
    assert pool["rating"] == by_name["Bo"]["rating"] and pool["provisional"] is True
    assert [point["change"] for point in pool["history"]] == [by_name["Bo"]["change"]]
    assert pool["history"][0]["race"] == race
    theirs = await guest.ok("player_ratings", player=mine["player"])
    assert theirs["name"] == "Bo" and theirs["ratings"][0]["history"] == []
    assert (await guest.ok("player_ratings"))["ratings"] == []


async def test_unrated_races_and_bad_requests_change_nothing(
    server: ArenaServer, connect: Connect
) -> None:
    assert server.services is not None
    bot = await connect(service_token=SERVICE_TOKEN)
    race = await play_rated_race(server, bot, [user(1), user(2)], winners=[0], mark_rated=False)
    assert (await bot.ok("race_ratings", race=race, act_as=user(1))) == {
        "type": "rating_changes",
        "id": bot.next_id,
        "race": race,
        "rated": False,
    }
    await bot.error("player_ratings", "invalid_options", variant="chess", act_as=user(1))
    await bot.error("player_ratings", "not_found", player=999_999, act_as=user(1))
    await bot.error("player_ratings", "invalid_message", history=1000, act_as=user(1))
    pool = server.services.storage.pool
    assert await pool.fetchval("select count(*) from rated_games") == 0
    assert await pool.fetchval("select count(*) from ratings") == 0


async def test_a_race_left_unrated_by_a_stop_is_rated_once_by_the_sweep(
    server: ArenaServer, connect: Connect
) -> None:
    assert server.services is not None
    service = server.services.ratings
    bot = await connect(service_token=SERVICE_TOKEN)
    race = await play_rated_race(server, bot, [user(1), user(2)], winners=[1])
    await rating_changes(bot, race)
    pool = server.services.storage.pool
    # As if the owner had stopped between the race's end and its rating:
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("delete from rating_changes")
        await conn.execute("delete from rated_games")
        await conn.execute("delete from ratings")
    assert await service.store.pending_races() == [race]
    assert await service.rate_pending() == 1
    assert await service.rate_pending() == 0
    assert await service.rate_race(race) is None  # never twice
    rows = await pool.fetch("select player_id, mu from ratings order by mu desc")
    assert len(rows) == 2 and rows[0]["mu"] > ratings.MU > rows[1]["mu"]


async def test_rebuild_recomputes_the_same_numbers_and_repairs_changed_ones(
    server: ArenaServer, connect: Connect, migrated_database_url: str
) -> None:
    assert server.services is not None
    bot = await connect(service_token=SERVICE_TOKEN)
    a, b, c, d = user(1), user(2), user(3), user(4)
    for players, winners in (
        ([a, b, c], [2, 0]),
        ([b, d], [0]),
        ([a, b, c, d], [3]),
        ([c, a], [1, 0]),
    ):
        race = await play_rated_race(server, bot, players, winners)
        await rating_changes(bot, race)
    pool = server.services.storage.pool
    live = await snapshot(pool)
    assert len(live["ratings"]) == 4 and len(live["rating_changes"]) == 11

    done = await asyncio.to_thread(rebuild_command, migrated_database_url)
    assert done.returncode == 0, done.stderr
    assert "4 rated games, 4 ratings; 0 stored numbers differed" in done.stdout
    assert await snapshot(pool) == live

    await pool.execute("update ratings set mu = mu + 1 where player_id = 1")
    await pool.execute("delete from rating_changes where game_id = 2")
    done = await asyncio.to_thread(rebuild_command, migrated_database_url)
    assert done.returncode == 0, done.stderr
    assert "3 stored numbers differed" in done.stdout
    assert await snapshot(pool) == live


async def test_the_numbers_people_see_follow_the_documented_mapping(
    server: ArenaServer, connect: Connect
) -> None:
    assert server.services is not None
    bot = await connect(service_token=SERVICE_TOKEN)
    race = await play_rated_race(server, bot, [user(1), user(2)], winners=[0])
    changes = await rating_changes(bot, race)
    rows = await server.services.storage.pool.fetch(
        "select player_id, mu, sigma from rating_changes order by player_id"
    )
    for row, line in zip(rows, sorted(changes["lines"], key=lambda x: x["player"]), strict=True):
        skill = Skill(row["mu"], row["sigma"])
        assert line["rating"] == round(1500 + ratings.SCALE * (row["mu"] - 25))
        assert line["deviation"] == skill.deviation
