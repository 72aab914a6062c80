"""The race of a Discord Activity's instance (``activity_race``), over real sockets:
everyone in one instance lands in one race, found or created once even when they
ask at the same moment, and a new race after the last one finished."""

from __future__ import annotations

import asyncio

from arena_client import Connect

from server.transport.app import ArenaServer


def players(reply: dict) -> list[str]:  # type: ignore[type-arg]
    return [line["name"] for line in reply["race"]["players"]]


async def test_one_race_per_instance(server: ArenaServer, connect: Connect) -> None:
    ann, bob, cy = [await connect(name=name) for name in ("Ann", "Bob", "Cy")]
    first = await ann.ok(
        "activity_race", instance_id="i-1001-gc-42", variant="yukon", guild_id="4242"
    )
    race = first["race"]
    assert race["state"] == "lobby" and race["creator"] == ann.welcome["player"]["id"]
    settings = race["settings"]
    assert settings["variant"] == "yukon" and settings["start"] == "manual"
    assert settings["context"] == {"discord_activity": "i-1001-gc-42"}
    assert settings["guild_id"] == "4242"
    assert race["your_game"] is not None

    joined = await bob.ok("activity_race", instance_id="i-1001-gc-42", variant="spider-4")
    assert joined["race"]["race"] == race["race"]  # the instance's race, not a new one
    assert joined["race"]["settings"]["variant"] == "yukon"
    assert players(joined) == ["Ann", "Bob"] and joined["race"]["your_game"] is not None
    again = await bob.ok("activity_race", instance_id="i-1001-gc-42")
    assert again["race"]["race"] == race["race"] and players(again) == ["Ann", "Bob"]

    other = await cy.ok("activity_race", instance_id="i-2002")
    assert other["race"]["race"] != race["race"] and players(other) == ["Cy"]

    # Running, the race is watched by a newcomer; finished, the next ask opens a new one.
    await ann.ok("start_race", race=race["race"])
    await ann.event("start", race=race["race"])
    watching = await cy.ok("activity_race", instance_id="i-1001-gc-42")
    assert watching["race"]["race"] == race["race"] and watching["race"]["state"] == "running"
    assert watching["race"]["your_game"] is None and players(watching) == ["Ann", "Bob"]
    for client, reply in ((ann, first), (bob, joined)):
        await client.ok("resign", game=reply["race"]["your_game"])
    await ann.event("end", race=race["race"])
    fresh = await bob.ok("activity_race", instance_id="i-1001-gc-42")
    assert fresh["race"]["race"] not in (race["race"], other["race"]["race"])
    assert fresh["race"]["creator"] == bob.welcome["player"]["id"]


async def test_at_the_same_moment_one_race(server: ArenaServer, connect: Connect) -> None:
    clients = [await connect(name=f"P{n}") for n in range(5)]
    replies = await asyncio.gather(
        *(c.ok("activity_race", instance_id="i-3003", variant="klondike") for c in clients)
    )
    assert len({reply["race"]["race"] for reply in replies}) == 1
    final = await clients[0].ok("get_race", race=replies[0]["race"]["race"])
    assert sorted(players(final)) == [f"P{n}" for n in range(5)]


async def test_bad_requests_change_nothing(server: ArenaServer, connect: Connect) -> None:
    ann = await connect(name="Ann")
    await ann.error("activity_race", "invalid_message", instance_id="")
    await ann.error("activity_race", "invalid_message", instance_id="i 1 <script>")
    await ann.error("activity_race", "invalid_message", instance_id="x" * 201)
    await ann.error("activity_race", "invalid_options", instance_id="i-4", variant="chess")
    created = await ann.ok("activity_race", instance_id="i-4")
    assert created["race"]["settings"]["variant"] == "klondike"
