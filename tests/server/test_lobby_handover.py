"""A lobby its creator leaves can still be started, and an idle lobby expires.

Real server, real PostgreSQL, real sockets: the creator leaves, the first player to
have joined of those left may start the race (told by the ``lobby`` event's
``starter``) and nobody else; a lobby nobody joins or leaves for the server's
``lobby_idle_ms`` ends as ``expired``, with no ranking and nothing stored as a result.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest

from server.ops.config import ServerConfig
from server.transport.app import ArenaServer

IDLE_MS = 1500  # the lobby's idle time in these tests (30 minutes by default)


@pytest.fixture
def server_config(server_config: ServerConfig) -> ServerConfig:
    return dataclasses.replace(server_config, lobby_idle_ms=IDLE_MS)


async def test_the_first_to_join_after_the_creator_left_starts_the_race(connect: Any) -> None:
    ann, bob, cid = [await connect(name=n) for n in ("Ann", "Bob", "Cid")]
    created = await ann.ok("create_race", variant="klondike", seed=5, countdown_s=0)
    race = created["race"]["race"]
    assert created["race"]["starter"] == created["race"]["creator"]
    bob_id = (await bob.ok("join_race", race=race))["race"]["players"][1]["player"]
    await cid.ok("join_race", race=race)
    await ann.ok("leave_race", race=race)
    left = await cid.event("lobby", race, lambda e: len(e["event"]["players"]) == 2)
    assert left["event"]["starter"] == bob_id
    state = await cid.ok("get_race", race=race)
    assert state["race"]["starter"] == bob_id and state["race"]["creator"] != bob_id
    await ann.error("start_race", "not_creator", race=race)  # gone: the lobby is Bob's
    await cid.error("start_race", "not_creator", race=race)  # not the first to join
    started = await bob.ok("start_race", race=race)
    assert started["race"]["state"] == "running" and started["race"]["starter"] is None
    await cid.event("start", race)


async def test_an_idle_lobby_expires_and_ranks_nobody(connect: Any, server: ArenaServer) -> None:
    ann, bob = await connect(name="Ann"), await connect(name="Bob")
    created = await ann.ok("create_race", variant="klondike", seed=7)
    race = created["race"]["race"]
    await bob.ok("join_race", race=race)  # a join: the idle time counts from here
    end = await bob.event("end", race)
    assert end["event"]["reason"] == "expired" and end["event"]["ranking"] == []
    assert end["event"]["seed"] == "7"
    state = await ann.ok("get_race", race=race)
    assert state["race"]["state"] == "finished" and state["race"]["ranking"] == []
    await bob.error("start_race", "wrong_state", race=race)
    await bob.error("join_race", "wrong_state", race=race)
    stored = await server.services.storage.pool.fetchrow(
        "select state, end_reason from races where id = $1", race
    )
    assert (stored["state"], stored["end_reason"]) == ("finished", "expired")
    results = await server.services.storage.pool.fetchval(
        "select count(*) from results where race_id = $1", race
    )
    assert results == 0


async def test_a_lobby_kept_busy_does_not_expire(connect: Any) -> None:
    ann, bob = await connect(name="Ann"), await connect(name="Bob")
    race = (await ann.ok("create_race", variant="klondike", seed=9))["race"]["race"]
    for _ in range(3):  # a join or a leave every half idle time keeps it open
        await bob.ok("join_race", race=race)
        await bob.ok("leave_race", race=race)
        state = (await ann.ok("get_race", race=race))["race"]["state"]
        assert state == "lobby"
        await asyncio.sleep(IDLE_MS / 2000)
    assert (await ann.ok("get_race", race=race))["race"]["state"] == "lobby"
