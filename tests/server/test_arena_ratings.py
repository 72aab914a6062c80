"""Arenas and ratings on a real server, PostgreSQL and sockets (docs/arena.md): players
join with their rating and are paired by it; the operator's scheduled arenas are rated
(their signed-in players only), the arenas players create are not.

Signed-in players connect as the browser does after signing in with Discord: with a
session token of a ``discord:<id>`` player.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest
from arena_client import Client, Connect
from arena_events import arena_event
from test_arenas import MINUTE_MS, MovingClock, next_race

from server.core.identity import TokenSigner
from server.core.ratings import SCALE, pool_options
from server.ops.config import ServerConfig
from server.transport.app import ArenaServer


@pytest.fixture
def clock() -> MovingClock:
    return MovingClock()


@pytest.fixture
def server_config(server_config: ServerConfig) -> ServerConfig:
    # guests_rank is on in these tests' settings: ratings still leave guests out.
    return replace(
        server_config,
        arena_round_ms=50,
        arena_poll_ms=50,
        arena_countdown_s=0,
        arena_schedule=("klondike:60:30",),
    )


@pytest.fixture
async def server(
    migrated_database_url: str, server_config: ServerConfig, clock: MovingClock
) -> AsyncIterator[ArenaServer]:
    async with ArenaServer(server_config, migrated_database_url, clock=clock) as running:
        yield running


async def signed_in(server: ArenaServer, connect: Connect, n: int, name: str) -> Client:
    """A client of the Discord user ``n``, signed in (a session token)."""
    assert server.services is not None
    services = server.services
    player = await services.storage.discord_player(f"discord:{2000 + n}", name, "en")
    signer = TokenSigner(await services.storage.secret())
    return await connect(token=services.accounts.session_token(signer, player.player_id))


async def set_rating(server: ArenaServer, client: Client, rating: int) -> None:
    """Give a player a stored Klondike rating (as rated games before would have)."""
    assert server.services is not None
    mu = 25.0 + (rating - 1500) / SCALE
    await server.services.storage.pool.execute(
        "insert into ratings (variant, options, player_id, mu, sigma, games, rated_at) "
        "values ('klondike', $1, $2, $3, 3.0, 20, now())",
        pool_options("klondike", {}),
        client.welcome["player"]["id"],
        mu,
    )


async def rating_changes(client: Client, race: int) -> dict[str, Any]:
    """The race's rating changes once it is rated (a moment after its end)."""
    for _ in range(100):
        reply = await client.ok("race_ratings", race=race)
        if reply["rated"]:
            return reply
        await asyncio.sleep(0.1)
    raise AssertionError(f"race {race} was not rated")


async def move_and_resign(client: Client, race: int) -> None:
    game = (await client.ok("get_race", race=race))["race"]["your_game"]
    await client.ok("move", game=game, text="d")
    await client.ok("resign", game=game)


async def test_a_scheduled_arena_rates_its_races_for_signed_in_players_only(
    server: ArenaServer, connect: Connect, clock: MovingClock
) -> None:
    ann = await signed_in(server, connect, 1, "Ann")
    bob = await signed_in(server, connect, 2, "Bob")
    gus = await connect(name="Gus")  # a guest: races, is never rated
    listed = await ann.ok("list_arenas")
    for _ in range(100):  # the arena clock creates the schedule's next arena at once
        if listed["arenas"]:
            break
        await asyncio.sleep(0.05)
        listed = await ann.ok("list_arenas")
    (arena,) = listed["arenas"]
    assert arena["settings"]["rated"] is True
    for client in (ann, bob, gus):
        joined = await client.ok("join_arena", arena=arena["arena"])
    clock.skip(arena["starts_at"] - joined["server_time"] + 100)

    race = (await next_race(ann))["race"]
    for client in (bob, gus):
        assert (await next_race(client))["race"] == race
    for client in (bob, gus):  # give up, paired no more (so the clock can move on)
        await client.ok("pause_arena", arena=arena["arena"])
        await move_and_resign(client, race)
    game = (await ann.ok("get_race", race=race))["race"]["your_game"]
    await ann.ok("move", game=game, text="d")
    # A rated race like any other: no rated quick match for Ann meanwhile.
    refused = await ann.error("find_race", "already_racing", variant="klondike", rated=True)
    assert refused["details"] == {"race": race}
    # Ann plays on: the race ends on its time limit, Ann ahead of the two who gave up.
    clock.skip(30 * MINUTE_MS)
    await arena_event(ann, "state", lambda m: m["event"]["state"] == "finished", wait=20)

    rated = await rating_changes(gus, race)
    assert rated["variant"] == "klondike"
    lines = {line["name"]: line for line in rated["lines"]}
    assert set(lines) == {"Ann", "Bob"}  # the guest is left out of the order
    assert (lines["Ann"]["place"], lines["Bob"]["place"]) == (1, 2)
    assert lines["Ann"]["change"] > 0 > lines["Bob"]["change"]
    mine = (await ann.ok("player_ratings", variant="klondike"))["ratings"]
    assert [(r["games"], r["rating"]) for r in mine] == [(1, lines["Ann"]["rating"])]
    assert (await gus.ok("player_ratings"))["ratings"] == []


async def test_a_created_arena_pairs_by_rating_and_rates_nobody(
    server: ArenaServer, connect: Connect, clock: MovingClock
) -> None:
    players = [await signed_in(server, connect, n, f"P{n}") for n in range(1, 5)]
    for client, rating in zip(players, (1900, 1400, 1500, 1700), strict=True):
        await set_rating(server, client, rating)
    first, second, third, fourth = players
    created = await third.ok(
        "create_arena", variant="klondike", minutes=5, race_size=2, starts_in_s=60
    )
    arena = created["arena"]
    assert arena["settings"]["rated"] is False
    for client in (first, second, fourth):
        await client.ok("join_arena", arena=arena["arena"])
    clock.skip(60_000)

    # All on 0 points: the two highest ratings race together, the two lowest together
    # (in the order they joined, the creator and the first would have raced).
    races = {client: (await next_race(client))["race"] for client in players}
    assert races[first] == races[fourth] != races[second] == races[third]
    for client in players:
        await move_and_resign(client, races[client])
    for client in (first, second):
        await client.event("end", races[client])
    await asyncio.sleep(0.5)  # a rating would run in the background right after the end
    for race in (races[first], races[second]):
        assert (await first.ok("race_ratings", race=race))["rated"] is False
    mine = (await first.ok("player_ratings", variant="klondike"))["ratings"]
    assert mine[0]["games"] == 20  # unchanged
