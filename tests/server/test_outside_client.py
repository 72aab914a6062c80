"""What a client written from docs/protocol.md alone tripped on: the documented ranges,
the order of events and replies, binary frames, bounded guild ids, the time of a
practice record, the log line of a held result, and `serve --help`."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import structlog
from arena_client import Client
from websockets.asyncio.client import connect as ws_connect

import engine
from engine.solver import solve
from server import protocol as p
from server.ops.cli import main
from server.ops.config import ServerConfig
from server.transport.app import ArenaServer

SCHEMA = Path(__file__).resolve().parents[2] / "docs" / "protocol.schema.json"


def yukon_win(seed: int) -> list[str]:
    game = engine.new_game("yukon", seed=seed)
    return [move.notation() for move in solve(game.rules, game.position, 2_000_000, 60).moves]


def test_create_races_ranges_are_in_the_schema() -> None:
    fields = json.loads(SCHEMA.read_text())["$defs"]["CreateRace"]["properties"]
    for name, (low, high) in [
        ("max_players", p.MAX_PLAYERS),
        ("countdown_s", p.COUNTDOWN_S),
    ]:
        assert (fields[name]["minimum"], fields[name]["maximum"]) == (low, high)
    limit = next(kind for kind in fields["time_limit_s"]["anyOf"] if kind.get("type") == "integer")
    assert (limit["minimum"], limit["maximum"]) == p.TIME_LIMIT_S
    assert fields["guild_id"]["anyOf"][0]["maxLength"] == 32


async def test_a_race_number_out_of_its_range_is_refused_naming_each(connect: Any) -> None:
    ann = await connect(name="Ann")
    reply = await ann.error(
        "create_race", "invalid_options", variant="yukon", max_players=101, countdown_s=-1,
        time_limit_s=86401,
    )  # fmt: skip
    assert reply["details"]["reason"] == (
        "max_players must be from 1 to 100; countdown_s must be from 0 to 3600; "
        "time_limit_s must be from 1 to 86400."
    )
    edges = {"max_players": 100, "countdown_s": 3600, "time_limit_s": 86400}
    await ann.ok("create_race", variant="yukon", require_winnable=False, **edges)


async def test_a_guild_id_has_a_length_limit(connect: Any, server: ArenaServer) -> None:
    ann = await connect(name="Ann")
    huge = "7" * 15_000
    for kind, fields in [
        ("create_race", {"variant": "yukon"}),
        ("practice", {"variant": "yukon"}),
        ("daily_start", {"variant": "yukon"}),
        ("daily_board", {"variant": "yukon"}),
        ("leaderboard", {"variant": "yukon"}),
    ]:
        reply = await ann.error(kind, "invalid_message", guild_id=huge, **fields)
        assert "length <= 32" in reply["details"]["reason"]
    assert server.services is not None
    pool = server.services.storage.pool
    assert await pool.fetchval("select count(*) from races") == 0
    assert await pool.fetchval("select count(*) from entries") == 0
    snowflake = "81384788765712384"
    race = await ann.ok("create_race", variant="yukon", require_winnable=False, guild_id=snowflake)
    assert race["race"]["settings"]["guild_id"] == snowflake


async def test_a_binary_frame_gets_bad_json_even_holding_json(connect: Any) -> None:
    ann = await connect(name="Ann")
    await ann.send_raw(json.dumps({"type": "practice", "id": 5, "variant": "yukon"}).encode())
    reply = await ann.receive()
    assert (reply["type"], reply["code"]) == ("error", "bad_json")
    assert reply["details"]["reason"].startswith("a binary frame")
    assert "id" not in reply
    await ann.ok("practice", variant="yukon")  # the connection goes on


async def test_events_come_before_the_reply_of_the_request_that_caused_them(
    connect: Any,
) -> None:
    ann = await connect(name="Ann")
    created = await ann.ok("create_race", variant="yukon", seed=2, max_players=1, start="now")
    kinds = [(m["type"], m.get("event", {}).get("kind")) for m in ann.received[1:]]
    assert kinds == [("event", "lobby"), ("event", "start"), ("race", None)]
    game = created["race"]["your_game"]
    line = yukon_win(2)
    for move in line[:-1]:
        await ann.ok("move", game=game, text=move)
        assert "seed" not in ann.received[-1]["view"]  # nothing of the deal while it runs
    before = len(ann.received)
    last = await ann.ok("move", game=game, text=line[-1])
    order = [(m["type"], m.get("event", {}).get("kind")) for m in ann.received[before:]]
    # The race-ending move: its events first (the end reveals the seed), then its reply,
    # which is the won game's view with the seed, as a finished race's views all are.
    assert order[-3:] == [("event", "finish"), ("event", "end"), ("view", None)]
    end = ann.received[before:][-2]["event"]
    assert last["view"]["seed"] == int(end["seed"]) == 2


async def test_a_practice_records_time_is_the_time_it_took(connect: Any) -> None:
    ann = await connect(name="Ann")
    line = yukon_win(2)
    reply = await ann.ok("practice_record", variant="yukon", seed=2, actions=line, time_ms=95_000)
    view = reply["view"]
    assert view["status"] == "won" and view["finished_at"] - view["started_at"] == 95_000
    again = await ann.ok("get_view", game=reply["game"])  # as stored, replayed
    assert again["view"]["finished_at"] - again["view"]["started_at"] == 95_000
    await ann.error(
        "practice_record", "invalid_message", variant="yukon", seed=2, actions=line, time_ms=-1
    )


@pytest.fixture
async def timed(
    server_config: ServerConfig, migrated_database_url: str
) -> AsyncIterator[tuple[ArenaServer, list[int]]]:
    now = [1_773_490_500_000]
    async with ArenaServer(server_config, migrated_database_url, clock=lambda: now[0]) as server:
        yield server, now


async def test_a_held_result_is_logged_with_its_own_player(
    timed: tuple[ArenaServer, list[int]],
) -> None:
    server, now = timed
    rusher = Client(await ws_connect(server.url))
    other = Client(await ws_connect(server.url))
    try:
        rusher.welcome = await rusher.ok("hello", name="Rusher")
        other.welcome = await other.ok("hello", name="Other")
        # A deal the server drew and the solver proved winnable: a race that ranks.
        created = await rusher.ok("create_race", variant="yukon", max_players=2, start="now")
        race = created["race"]["race"]
        joined = await other.ok("join_race", race=race)
        assert server.services is not None
        pool = server.services.storage.pool
        seed = int(await pool.fetchval("select seed from races where id=$1", race))
        for move in yukon_win(seed):  # far too fast: 10 ms a move
            now[0] += 10
            await rusher.ok("move", game=created["race"]["your_game"], text=move)
        with structlog.testing.capture_logs(
            processors=[structlog.contextvars.merge_contextvars]
        ) as logs:
            # The other racer's resignation ends the race: the review runs after it.
            await other.ok("resign", game=joined["race"]["your_game"])
            for _ in range(100):
                if any(line["event"] == "result_held" for line in logs):
                    break
                await asyncio.sleep(0.05)
        held = next(line for line in logs if line["event"] == "result_held")
        assert held["player"] == rusher.welcome["player"]["id"]
        assert held["reason"] == "too_fast" and "conn" not in held
    finally:
        await rusher.close()
        await other.close()


def test_serve_help_shows_the_defaults_of_rates_and_sizes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "messages per second per connection (default: 20.0;" in text
    assert "burst of messages per connection (default: 40)" in text
    assert "closes with 1009 (default: 16384)" in text
    assert "seconds without a message before close (default: 600.0)" in text
