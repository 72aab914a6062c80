"""Arena tournaments on a real server, PostgreSQL and sockets (docs/arena.md).

The server's clock runs with real time plus an offset the test can move on, so an arena
of five minutes ends when the test says, through the same rounds and race clocks.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest
from arena_client import Client, Connect
from arena_events import arena_event, pushed

from server.ops.config import ServerConfig
from server.transport.app import ArenaServer

MINUTE_MS = 60_000


class MovingClock:
    """Real server time plus an offset a test moves on."""

    def __init__(self) -> None:
        self.offset = 0

    def __call__(self) -> int:
        return time.time_ns() // 1_000_000 + self.offset

    def skip(self, ms: int) -> None:
        self.offset += ms


@pytest.fixture
def clock() -> MovingClock:
    return MovingClock()


@pytest.fixture
def server_config(server_config: ServerConfig) -> ServerConfig:
    return replace(server_config, arena_round_ms=50, arena_poll_ms=50, arena_countdown_s=0)


@pytest.fixture
async def server(
    migrated_database_url: str, server_config: ServerConfig, clock: MovingClock
) -> AsyncIterator[ArenaServer]:
    async with ArenaServer(server_config, migrated_database_url, clock=clock) as running:
        yield running


async def next_race(client: Client, after: int = 0) -> dict[str, Any]:
    """The client's next-race event (from message index ``after`` on), its race followed."""
    event = (await arena_event(client, "race", after=after))["event"]
    await client.ok("get_race", race=event["race"])
    return event


async def ended(client: Client, race: int) -> dict[str, Any]:
    return (await client.event("end", race))["event"]


async def test_an_arena_pairs_scores_repairs_and_ends_with_a_podium(
    connect: Connect, clock: MovingClock
) -> None:
    ann = await connect(name="Ann")
    bob = await connect(name="Bob")
    cy = await connect(name="Cy")
    created = (
        await ann.ok(
            "create_arena", variant="klondike", minutes=5, title="Tea time", starts_in_s=60
        )
    )["arena"]
    arena = created["arena"]
    assert created["settings"] == {
        "variant": "klondike",
        "options": {},
        "minutes": 5,
        "race_time_s": 600,
        "race_size": 8,
        "countdown_s": 0,
        "rated": False,
        "title": "Tea time",
    }
    assert created["you"]["name"] == "Ann" and created["players"] == 1
    assert created["state"] == "upcoming"
    for player in (bob, cy):
        joined = (await player.ok("join_arena", arena=arena))["arena"]
        assert joined["you"] is not None
    clock.skip(60_000)
    started = await arena_event(bob, "state")
    assert started["event"]["state"] == "running" and "player" not in started
    # The three wait together at the start: one race of three, announced to each.
    first = [await next_race(c) for c in (ann, bob, cy)]
    race = first[0]["race"]
    assert {e["race"] for e in first} == {race}
    assert sorted(p["name"] for p in first[0]["players"]) == ["Ann", "Bob", "Cy"]
    info = (await ann.ok("get_race", race=race))["race"]
    assert info["state"] == "running" and info["settings"]["context"]["arena"] == arena
    assert info["settings"]["time_limit_s"] <= 5 * 60

    # Bob gives up first: alone, he waits; Ann gives up: the two race again at once,
    # while Cy is still in the first race.
    games = {c: (await c.ok("get_race", race=race))["race"]["your_game"] for c in (ann, bob, cy)}
    await bob.ok("move", game=games[bob], text="d")
    await bob.ok("resign", game=games[bob])
    await ann.ok("move", game=games[ann], text="d")
    mark = len(bob.received)
    await ann.ok("resign", game=games[ann])
    second = await next_race(bob, after=mark)
    assert sorted(p["name"] for p in second["players"]) == ["Ann", "Bob"]
    assert second["race"] != race
    assert pushed(cy, "race") == [first[2]]

    # The first race ends when Cy gives up: each scores the places beaten, by the race's
    # own final ranking.
    await cy.ok("move", game=games[cy], text="d")
    await cy.ok("resign", game=games[cy])
    ranking = (await ended(cy, race))["ranking"]
    for client, name in ((ann, "Ann"), (bob, "Bob"), (cy, "Cy")):
        scored = (await arena_event(client, "scored"))["event"]
        rank = next(line["rank"] for line in ranking if line["name"] == name)
        assert (scored["race"], scored["rank"], scored["racers"]) == (race, rank, 3)
        assert scored["points"] == 3 - rank and scored["fire"] is False
    standings = await arena_event(
        ann, "standings", lambda m: sum(line["races"] for line in m["event"]["top"]) == 3
    )
    assert standings["player"] == ann.welcome["player"]["id"]
    assert standings["event"]["you"]["name"] == "Ann"
    assert [line["score"] for line in standings["event"]["top"]] == [2, 1, 0]

    # The arena's time runs out: the second race ends by its own time limit, is scored,
    # and the arena finishes with its podium.
    clock.skip(5 * MINUTE_MS)
    state = await arena_event(ann, "state", lambda m: m["event"]["state"] == "finished")
    podium = state["event"]["podium"]
    assert len(podium) == 3 and [line["rank"] for line in podium] == [1, 2, 3]
    final = (await cy.ok("get_arena", arena=arena, player=ann.welcome["player"]["id"]))["arena"]
    assert final["state"] == "finished" and final["podium"] == podium
    assert [r["race"] for r in final["races"]] == [race, second["race"]]
    assert all(r["points"] is not None for r in final["races"])
    await cy.error("join_arena", "arena_state", arena=arena)


async def test_leave_gives_up_the_race_and_join_comes_back(connect: Connect) -> None:
    ann = await connect(name="Ann")
    bob = await connect(name="Bob")
    arena = (await ann.ok("create_arena", variant="klondike", minutes=10))["arena"]["arena"]
    await bob.ok("join_arena", arena=arena)
    race = (await next_race(ann))["race"]
    await next_race(bob)
    left = (await ann.ok("leave_arena", arena=arena))["arena"]
    assert left["you"]["status"] in ("racing", "paused")
    # Leaving resigned Ann's game: Bob gives up too and the race ends, Ann ranked in it.
    bob_game = (await bob.ok("get_race", race=race))["race"]["your_game"]
    ann_view = (await ann.ok("get_race", race=race))["race"]
    assert any(s["name"] == "Ann" and s["resigned"] for s in ann_view["players"])
    await bob.ok("move", game=bob_game, text="d")
    await bob.ok("resign", game=bob_game)
    await ended(bob, race)
    scored = (await arena_event(ann, "scored"))["event"]
    assert scored["race"] == race
    paused = (await ann.ok("get_arena", arena=arena))["arena"]
    assert paused["you"]["status"] == "paused" and paused["you"]["races"] == 1
    # Not paired while paused; back with join_arena, paired with Bob again.
    mark = len(ann.received)
    back = (await ann.ok("join_arena", arena=arena))["arena"]
    assert back["you"]["status"] in ("waiting", "paired", "racing")
    again = await next_race(ann, after=mark)
    assert sorted(p["name"] for p in again["players"]) == ["Ann", "Bob"]


async def test_pause_waits_for_the_race_under_way(connect: Connect) -> None:
    ann = await connect(name="Ann")
    bob = await connect(name="Bob")
    arena = (await ann.ok("create_arena", variant="klondike", minutes=10))["arena"]["arena"]
    await bob.ok("join_arena", arena=arena)
    race = (await next_race(ann))["race"]
    await next_race(bob)
    paused = (await bob.ok("pause_arena", arena=arena))["arena"]
    assert paused["you"]["status"] == "racing" and paused["your_race"] == race
    games = {c: (await c.ok("get_race", race=race))["race"]["your_game"] for c in (ann, bob)}
    for client in (ann, bob):
        await client.ok("move", game=games[client], text="d")
        await client.ok("resign", game=games[client])
    await arena_event(bob, "scored")
    await arena_event(ann, "scored")
    after = (await ann.ok("get_arena", arena=arena))["arena"]
    status = {line["name"]: line["status"] for line in after["top"]}
    assert status == {"Ann": "waiting", "Bob": "paused"}
    assert len(pushed(ann, "race")) == 1


async def test_a_player_who_never_moves_scores_nothing_and_is_paused(
    connect: Connect, clock: MovingClock
) -> None:
    ann = await connect(name="Ann")
    bob = await connect(name="Bob")
    arena = (await ann.ok("create_arena", variant="klondike", minutes=30, race_time_s=60))["arena"][
        "arena"
    ]
    await bob.ok("join_arena", arena=arena)
    race = (await next_race(ann))["race"]
    await next_race(bob)
    game = (await ann.ok("get_race", race=race))["race"]["your_game"]
    await ann.ok("move", game=game, text="d")
    clock.skip(61_000)  # the race's time limit: Bob never moved
    await ended(ann, race)
    bob_scored = (await arena_event(bob, "scored"))["event"]
    ann_scored = (await arena_event(ann, "scored"))["event"]
    assert bob_scored["points"] == 0
    assert ann_scored["points"] == 1 and ann_scored["rank"] == 1
    lines = (await ann.ok("get_arena", arena=arena))["arena"]["top"]
    assert {line["name"]: line["status"] for line in lines}["Bob"] == "paused"


async def test_requests_out_of_range_or_out_of_turn_change_nothing(connect: Connect) -> None:
    ann = await connect(name="Ann")
    bob = await connect(name="Bob")
    refused = await ann.error("create_arena", "invalid_options", variant="klondike", minutes=3)
    assert "minutes must be from 5 to 60" in refused["message"]
    refused = await ann.error(
        "create_arena", "invalid_options", variant="klondike", race_size=9, race_time_s=10
    )
    assert "race_size" in refused["message"] and "race_time_s" in refused["message"]
    await ann.error("create_arena", "invalid_options", variant="chess")
    assert (await ann.ok("list_arenas"))["arenas"] == []
    await ann.error("join_arena", "not_found", arena=999)
    arena = (
        await ann.ok("create_arena", variant="klondike", minutes=5, starts_in_s=600, join=False)
    )["arena"]
    assert arena["state"] == "upcoming" and arena["players"] == 0 and arena["you"] is None
    await ann.error("leave_arena", "not_in_arena", arena=arena["arena"])
    await ann.ok("join_arena", arena=arena["arena"])
    error = await ann.error("join_arena", "arena_joined", arena=arena["arena"])
    assert error["message"] == "You are already in this arena."
    await bob.ok("join_arena", arena=arena["arena"])
    # Leaving before the start takes the player off the arena.
    gone = (await bob.ok("leave_arena", arena=arena["arena"]))["arena"]
    assert gone["you"] is None and gone["players"] == 1
    listed = (await bob.ok("list_arenas", variant="klondike"))["arenas"]
    assert [(a["arena"], a["state"], a["players"]) for a in listed] == [
        (arena["arena"], "upcoming", 1)
    ]
    assert (await bob.ok("list_arenas", variant="yukon"))["arenas"] == []


async def test_a_player_creates_at_most_two_arenas_not_finished(
    connect: Connect, clock: MovingClock
) -> None:
    ann = await connect(name="Ann", locale="de")
    bob = await connect(name="Bob")
    first = (await ann.ok("create_arena", variant="klondike", minutes=5))["arena"]
    await ann.ok("create_arena", variant="yukon", minutes=10, starts_in_s=600)
    refused = await ann.error("create_arena", "too_many_arenas", variant="klondike", minutes=5)
    assert refused["details"] == {"limit": 2}
    assert refused["message"].startswith("Du hast schon 2 eigene Arenen")
    assert len((await ann.ok("list_arenas"))["arenas"]) == 2  # nothing was created
    # Others still may; and once Ann's first arena is over, Ann may create another.
    await bob.ok("create_arena", variant="klondike", minutes=5)
    clock.skip(5 * MINUTE_MS)
    await arena_event(
        ann, "state", lambda m: m["arena"] == first["arena"] and m["event"]["state"] == "finished"
    )
    await ann.ok("create_arena", variant="klondike", minutes=5)
