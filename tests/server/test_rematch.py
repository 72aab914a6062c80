"""Rematch after a race's end: one new race with the same settings for its players."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

from server_process import free_port, open_client, server_process, wait_healthy


async def test_a_rematch_is_one_new_race_with_the_same_settings(connect: Any) -> None:
    ann = await connect(name="Ann")
    bob = await connect(name="Bob")
    cy = await connect(name="Cy")
    created = await ann.ok(
        "create_race",
        variant="spider-2",
        options={"layout": "digital"},
        max_players=3,
        countdown_s=0,
        time_limit_s=600,
        allow_hints=True,
        require_winnable=False,
    )
    race = created["race"]["race"]
    await bob.ok("join_race", race=race)
    await bob.error("rematch", "wrong_state", race=race)  # not over yet
    await ann.ok("start_race", race=race)
    await ann.ok("resign", game=created["race"]["your_game"])
    joined = await bob.ok("get_race", race=race)
    await bob.ok("resign", game=joined["race"]["your_game"])
    await ann.event("end", race=race)
    await cy.error("rematch", "not_in_race", race=race)

    first = await bob.ok("rematch", race=race)
    again = first["race"]
    assert (
        again["race"] != race
        and again["state"] == "lobby"
        and again["creator"] != created["race"]["creator"]
    )
    old_settings = dict(created["race"]["settings"])
    new_settings = dict(again["settings"])
    for settings in (old_settings, new_settings):
        settings.pop("ranked", None)
    assert new_settings == old_settings
    told = await ann.event("rematch", race=race)
    assert told["event"]["rematch"] == again["race"]
    assert told["event"]["by"]["name"] == "Bob"

    # Ann asking too joins the same race, not another one.
    second = await ann.ok("rematch", race=race)
    assert second["race"]["race"] == again["race"]
    names = sorted(p["name"] for p in second["race"]["players"])
    assert names == ["Ann", "Bob"]
    await ann.error("rematch", "already_joined", race=race)


async def finished_race(ann: Any, bob: Any, **settings: Any) -> int:
    """A race of Ann's that Bob joined, both resigned: over, ready for a rematch."""
    created = await ann.ok(
        "create_race", variant="klondike", countdown_s=0, require_winnable=False, **settings
    )
    race = int(created["race"]["race"])
    joined = await bob.ok("join_race", race=race)
    await ann.ok("start_race", race=race)
    await ann.ok("resign", game=created["race"]["your_game"])
    await bob.ok("resign", game=joined["race"]["your_game"])
    await ann.event("end", race=race)
    return race


async def test_a_rematch_carries_its_own_context_not_the_old_races(connect: Any) -> None:
    ann = await connect(name="Ann")
    bob = await connect(name="Bob")
    old_context = {"channel_id": "5151", "message_id": "1"}
    race = await finished_race(ann, bob, guild_id="4242", context=old_context)
    await bob.error("rematch", "invalid_message", race=race, context="not an object")
    assert (await bob.ok("get_race", race=race))["race"]["settings"]["context"] == old_context

    new_context = {"channel_id": "5151", "message_id": "2"}
    first = await bob.ok("rematch", race=race, context=new_context)
    settings = first["race"]["settings"]
    assert settings["context"] == new_context and settings["guild_id"] == "4242"
    # Joining it later keeps the context of the one who opened it.
    joined = await ann.ok("rematch", race=race, context={"message_id": "3"})
    assert joined["race"]["race"] == first["race"]["race"]
    assert joined["race"]["settings"]["context"] == new_context

    # Without a context the rematch has none (never the old race's); a guild may be given.
    again = await finished_race(ann, bob, guild_id="4242", context=old_context)
    plain = await ann.ok("rematch", race=again, guild_id="77")
    assert plain["race"]["settings"]["context"] is None
    assert plain["race"]["settings"]["guild_id"] == "77"


async def test_a_rematch_is_stored_across_a_server_restart(
    migrated_database_url: str, tmp_path: Path
) -> None:
    port = free_port()
    with server_process(migrated_database_url, port, tmp_path / "first.log") as first:
        await wait_healthy(port)
        ann = await open_client(port, name="Ann")
        bob = await open_client(port, name="Bob")
        race = await finished_race(ann, bob)
        opened = await bob.ok("rematch", race=race)
        rematch = opened["race"]["race"]
        await ann.close()
        await bob.close()
        first.send_signal(signal.SIGKILL)
        first.wait()

    with server_process(migrated_database_url, port, tmp_path / "second.log"):
        await wait_healthy(port)
        ann = await open_client(port, token=ann.welcome["token"])
        joined = await ann.ok("rematch", race=race)
        assert joined["race"]["race"] == rematch
        assert sorted(p["name"] for p in joined["race"]["players"]) == ["Ann", "Bob"]
        await ann.error("rematch", "already_joined", race=race)
        await ann.close()


async def test_two_processes_asked_at_once_open_one_rematch(
    migrated_database_url: str, tmp_path: Path, nats_url: str
) -> None:
    ports = free_port(), free_port()
    with (
        server_process(migrated_database_url, ports[0], tmp_path / "a.log", nats_url=nats_url),
        server_process(migrated_database_url, ports[1], tmp_path / "b.log", nats_url=nats_url),
    ):
        await wait_healthy(ports[0])
        await wait_healthy(ports[1])
        ann = await open_client(ports[0], name="Ann")
        bob = await open_client(ports[1], name="Bob")
        race = await finished_race(ann, bob)
        both = await asyncio.gather(ann.ok("rematch", race=race), bob.ok("rematch", race=race))
        assert both[0]["race"]["race"] == both[1]["race"]["race"]
        rematch = both[0]["race"]["race"]
        # Whoever joined through the other process is told to the race's owner, too.
        lobby = await ann.event(
            "lobby", race=rematch, predicate=lambda e: len(e["event"]["players"]) == 2
        )
        assert sorted(p["name"] for p in lobby["event"]["players"]) == ["Ann", "Bob"]
        await ann.close()
        await bob.close()
