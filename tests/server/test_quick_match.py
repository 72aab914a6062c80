"""Quick match on a real server and PostgreSQL: a queue gathers players into races, keeps a
reconnecting player's place, allows one rated race at a time, and is one queue for several
server processes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from arena_client import SERVICE_TOKEN, Client, Connect
from rated_races import rating_changes, user
from server_process import free_port, open_client, server_process, wait_healthy

from server.ops.config import ServerConfig


@pytest.fixture
def server_config(server_config: ServerConfig) -> ServerConfig:
    """Groups start after 0.5 s of waiting, with a 1 s countdown (the tests' pace)."""
    from dataclasses import replace

    return replace(
        server_config,
        quick_match_interval_s=0.1,
        quick_match_gather_s=0.5,
        quick_match_countdown_s=1,
    )


async def found(client: Client, player: int | None = None) -> dict[str, Any]:
    """The next ``match_found`` (for ``player``)."""
    seen = 0
    while True:
        for message in client.received[seen:]:
            seen += 1
            if message["type"] == "match_found" and player in (None, message["player"]):
                return message
        await client.receive(timeout=20.0)


async def test_waiting_players_are_gathered_into_one_race(connect: Connect) -> None:
    bot = await connect(service_token=SERVICE_TOKEN)
    ada, bo = user(1, "Ada"), user(2, "Bo")
    first = await bot.ok("find_race", variant="klondike", rated=True, act_as=ada)
    assert first["rated"] is True and first["rating"] == 1500
    assert first["options"] == {"passes": 0}
    await bot.ok("find_race", variant="klondike", rated=True, act_as=bo)
    for_ada = await found(bot, player=1)
    for_bo = await found(bot, player=2)
    race = for_ada["race"]
    assert race["race"] == for_bo["race"]["race"]
    assert race["state"] in ("countdown", "running")
    assert race["settings"]["ranked"] is True and race["settings"]["start"] == "countdown"
    assert sorted(s["name"] for s in race["players"]) == ["Ada", "Bo"]
    assert race["your_game"] != for_bo["race"]["your_game"]
    # One rated race at a time: Ada must finish (or give up) first.
    busy = await bot.error(
        "find_race", "already_racing", variant="klondike", rated=True, act_as=ada
    )
    assert busy["details"]["race"] == race["race"]
    if race["state"] == "countdown":
        await bot.event("start", race["race"])
    await bot.ok("leave_race", race=race["race"], act_as=ada)
    await bot.ok("leave_race", race=race["race"], act_as=bo)
    await bot.event("end", race["race"])
    changes = await rating_changes(bot, race["race"])  # a rated race: rated at its end
    assert [(line["place"], line["change"]) for line in changes["lines"]] == [(1, 0), (1, 0)]
    again = await bot.ok("find_race", variant="klondike", rated=True, act_as=ada)
    assert again["rating"] == 1500  # the two shared the last place: ratings unchanged


async def test_guests_race_unrated_and_pools_stay_apart(connect: Connect) -> None:
    guest = await connect(name="Guest")
    await guest.error("find_race", "sign_in_required", variant="klondike", rated=True)
    await guest.error("find_race", "invalid_options", variant="chess")
    await guest.error("find_race", "invalid_options", variant="klondike", options={"passes": -2})
    waiting = await guest.ok("find_race", variant="yukon")
    assert waiting["rated"] is False
    assert (await guest.ok("cancel_find"))["cancelled"] is True
    assert (await guest.ok("cancel_find"))["cancelled"] is False
    other = await connect(name="Other")
    await guest.ok("find_race", variant="yukon")
    await other.ok("find_race", variant="klondike")  # another pool: never together
    await asyncio.sleep(1.5)
    assert not [m for m in guest.received + other.received if m["type"] == "match_found"]
    await other.ok("find_race", variant="yukon")  # a new choice: a new wait
    match = await found(guest)
    assert match["race"]["settings"]["variant"] == "yukon"
    assert (await found(other))["race"]["race"] == match["race"]["race"]


async def test_a_reconnect_keeps_the_place_and_hears_of_its_race(
    connect: Connect, server: Any
) -> None:
    first = await connect(name="Ann")
    token = first.welcome["token"]
    waiting = await first.ok("find_race", variant="klondike-3")
    await first.close()
    back = await connect(token=token)
    again = await back.ok("find_race", variant="klondike-3")
    assert again["since"] == waiting["since"]  # the same place in the queue
    await back.close()
    # Matched while away (within a few seconds of leaving): told on coming back.
    partner = await connect(name="Pat")
    await partner.ok("find_race", variant="klondike-3")
    match = await found(partner)
    returned = await connect(token=token)
    await returned.ok("find_race", variant="klondike-3")
    told = await found(returned)
    assert told["race"]["race"] == match["race"]["race"]
    assert told["race"]["your_game"] is not None


async def test_one_queue_for_several_server_processes(
    migrated_database_url: str, tmp_path: Path, nats_url: str
) -> None:
    ports = [free_port() for _ in range(3)]
    settings = {
        "quick_match_interval_s": "0.2",
        "quick_match_gather_s": "2",
        "quick_match_countdown_s": "2",
        "hosts": "3",
        "nats_url": nats_url,
        "service_tokens": SERVICE_TOKEN,
    }
    with (
        server_process(
            migrated_database_url, ports[0], tmp_path / "a.log", host_index="0", **settings
        ),
        server_process(
            migrated_database_url, ports[1], tmp_path / "b.log", host_index="1", **settings
        ),
        server_process(
            migrated_database_url, ports[2], tmp_path / "c.log", host_index="2", **settings
        ),
    ):
        for port in ports:
            await wait_healthy(port)
        clients = [await open_client(ports[index % 3], name=f"P{index}") for index in range(10)]
        for client in clients:
            await client.ok("find_race", variant="klondike")
        matches = [await found(client) for client in clients]
        races: dict[int, list[int]] = {}
        for client, match in zip(clients, matches, strict=True):
            assert match["player"] == client.welcome["player"]["id"]
            races.setdefault(match["race"]["race"], []).append(match["player"])
        # Ten players: one full race of eight at once, the other two together after.
        assert sorted(len(players) for players in races.values()) == [2, 8]
        everyone = [player for players in races.values() for player in players]
        assert len(set(everyone)) == 10
        for client, match in zip(clients, matches, strict=True):
            race = match["race"]["race"]
            if match["race"]["state"] == "countdown":  # else it started before the telling
                await client.event("start", race)
            view = await client.ok("get_view", game=match["race"]["your_game"])
            assert view["view"]["status"] == "playing"
        for client in clients:
            await client.close()
