"""Ghost races on a real server, PostgreSQL and sockets (docs/arena.md, "Ghost races")."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

import asyncpg
import pytest
from arena_client import Client, Connect
from won_games import WINNABLE_KLONDIKE_SEED, winning_line

from server.ops.config import ServerConfig

PAST = date.today() - timedelta(days=3)


@pytest.fixture
def server_config(server_config: ServerConfig) -> ServerConfig:
    return replace(server_config, arena_countdown_s=0)


@pytest.fixture
async def pool(migrated_database_url: str) -> AsyncIterator[asyncpg.Pool]:
    async with asyncpg.create_pool(migrated_database_url, min_size=1, max_size=2) as opened:
        yield opened


async def daily_attempt(
    pool: asyncpg.Pool, name: str, day: date, seed: int, gap_ms: int, won: bool = True
) -> int:
    """A stored ranked daily attempt of ``name`` at the day's deal: the winning line,
    one action every ``gap_ms`` from 09:00 UTC (the deal is stored once)."""
    await pool.execute(
        "insert into daily_deals (variant, day, seed, candidate, salt, commitment, verdict, "
        "solution_length, solver_nodes, solver_ms) "
        "values ('klondike', $1, $2, 0, 'salt', 'c', 'winnable', 90, 1, 1) on conflict do nothing",
        day,
        seed,
    )
    player = await pool.fetchval(
        "insert into players (principal, display_name) values ($1, $2) returning id",
        f"guest:{name}",
        name,
    )
    actions = winning_line(WINNABLE_KLONDIKE_SEED)
    started = datetime(day.year, day.month, day.day, 9, tzinfo=UTC)
    finished = started + timedelta(milliseconds=gap_ms * len(actions))
    game = await pool.fetchval(
        "insert into entries (player_id, variant, seed, status, created_at, finished_at) "
        "values ($1, 'klondike', $2, $3, $4, $5) returning id",
        player,
        seed,
        "won" if won else "resigned",
        started,
        finished,
    )
    await pool.executemany(
        "insert into moves (game_id, seq, action, played_at) values ($1, $2, $3, $4)",
        [
            (game, seq, action, started + timedelta(milliseconds=gap_ms * (seq + 1)))
            for seq, action in enumerate(actions)
        ],
    )
    await pool.execute(
        "insert into daily_entries (entry_id, variant, day, player_id, ranked, started_at, "
        "deadline, status, time_ms, moves, undos, hints, finished_at) "
        "values ($1, 'klondike', $2, $3, true, $4, $5, $6, $7, $8, 0, 0, $9)",
        game,
        day,
        player,
        started,
        started + timedelta(hours=1),
        "won" if won else "resigned",
        gap_ms * len(actions),
        len(actions),
        finished,
    )
    return int(game)


async def play_line(client: Client, game: int) -> dict[str, Any]:
    reply: dict[str, Any] = {}
    for action in winning_line(WINNABLE_KLONDIKE_SEED):
        reply = await client.ok("move", game=game, text=action)
    return reply


async def message_of(
    client: Client, kind: str, where: Callable[[dict[str, Any]], bool] | None = None
) -> dict[str, Any]:
    """The first message of ``kind`` the client received (or receives) that matches."""
    index = 0
    while True:
        while index < len(client.received):
            message = client.received[index]
            index += 1
            if message["type"] == kind and (where is None or where(message)):
                return message
        await client.receive(20)


async def test_racing_the_best_of_a_closed_daily_and_beating_it(
    connect: Connect, pool: asyncpg.Pool
) -> None:
    await daily_attempt(pool, "Bob", PAST, WINNABLE_KLONDIKE_SEED, gap_ms=1000)
    best = await daily_attempt(pool, "Cy", PAST, WINNABLE_KLONDIKE_SEED, gap_ms=500)
    await daily_attempt(pool, "Dee", PAST, WINNABLE_KLONDIKE_SEED, gap_ms=100, won=False)
    ann = await connect(name="Ann")
    reply = await ann.ok("ghost_race", variant="klondike", date=PAST.isoformat())
    ghost = reply["ghost"]
    assert ghost == {
        "game": best,
        "name": "Cy",
        "source": "daily",
        "date": PAST.isoformat(),
        "time_ms": 500 * len(winning_line()),
    }
    race = reply["race"]
    assert race["state"] == "running" and race["settings"]["ranked"] is False
    assert [s["name"] for s in race["players"]] == ["Ann"]
    assert reply["standing"]["player"] == 0 and reply["standing"]["name"] == "Cy"
    # The ghost plays its stored moves as the race's clock runs, beside Ann's own events.
    moved = await message_of(ann, "ghost_event", lambda m: m["standing"]["moves"] > 0)
    assert moved["race"] == race["race"] and moved["time"] >= 500
    assert set(moved["order"]) == {0, ann.welcome["player"]["id"]}
    last = await play_line(ann, race["your_game"])
    assert last["view"]["outcome"] == "won"
    result = (await message_of(ann, "ghost_result"))["result"]
    assert result["beat"] is True
    # As in a live race, the ghost plays on to its own finish, later than Ann's.
    assert result["you"]["finished"] and result["ghost"]["finished"]
    assert result["you"]["time_ms"] < result["ghost"]["time_ms"] == ghost["time_ms"]
    # A ghost race is no daily attempt.
    ann_id = ann.welcome["player"]["id"]
    attempts = await pool.fetchval("select count(*) from daily_entries where player_id=$1", ann_id)
    assert attempts == 0
    again = await ann.ok("get_ghost", race=race["race"])
    assert again["result"] == result and again["race"]["state"] == "finished"


async def test_racing_your_own_best_and_losing_to_it(connect: Connect) -> None:
    ann = await connect(name="Ann")
    practice = await ann.ok("practice", variant="klondike", seed=WINNABLE_KLONDIKE_SEED)
    await play_line(ann, practice["game"])
    first = await ann.ok("ghost_race", game=practice["game"])
    assert first["ghost"]["game"] == practice["game"] and first["ghost"]["source"] == "own"
    race = first["race"]
    # Ann waits for her ghost to finish, then gives up.
    await message_of(ann, "ghost_event")
    while not [m for m in ann.received if m["type"] == "ghost_event" and m["standing"]["finished"]]:
        await ann.receive(20)
    await ann.ok("resign", game=race["your_game"])
    result = (await message_of(ann, "ghost_result"))["result"]
    assert result["beat"] is False and result["ghost"]["finished"]
    # A race of one ghost is not listed among live races, nor ranked anywhere.
    assert (await ann.ok("list_live_races"))["races"] == []


async def test_requests_that_would_give_a_deal_away_or_name_nothing(
    connect: Connect, pool: asyncpg.Pool
) -> None:
    today = datetime.now(UTC).date()
    bob_attempt = await daily_attempt(pool, "Bob", today, 99, gap_ms=10)
    ann = await connect(name="Ann")
    refused = await ann.error("ghost_race", "deal_live", variant="klondike", date=today.isoformat())
    assert "can still be played" in refused["message"]
    await ann.error("ghost_race", "forbidden", game=bob_attempt)
    # Ann's own game on today's daily deal: racing it would give the deal away.
    mine = await ann.ok("practice", variant="klondike", seed=99)
    await ann.ok("resign", game=mine["game"])
    await ann.error("ghost_race", "deal_live", game=mine["game"])
    await ann.error("ghost_race", "not_found", game=mine["game"] + 1000)
    await ann.error("ghost_race", "not_found", variant="klondike", date=PAST.isoformat())
    await ann.error("ghost_race", "invalid_options")
    await ann.error("ghost_race", "invalid_options", variant="klondike", game=mine["game"])
    # A practice game not won is no ghost on a deal that is no daily.
    other = await ann.ok("practice", variant="klondike", seed=5)
    await ann.ok("resign", game=other["game"])
    await ann.error("ghost_race", "not_found", game=other["game"])
    await ann.error("get_ghost", "not_found", race=12345)
