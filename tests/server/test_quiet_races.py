"""A race its players walked away from leaves the server's memory, and comes back.

Issue #19's soak: a race with no time limit whose players all left was never finished,
so it stayed in memory until a restart (races held grew from 713 to 1,817 in 30
minutes, and the server's memory with them). Now a race with no clock of its own
running, watched by nobody and quiet for ``idle_race_seconds`` leaves memory and its
lease is parked; whoever asks for it next rebuilds it from the database.
"""

from __future__ import annotations

import asyncio
import urllib.request
from collections.abc import Awaitable, Callable
from pathlib import Path

import asyncpg
from arena_client import Client
from server_process import free_port, open_client, server_process, wait_healthy

from server.store.leases import PARKED

# Seconds: short, so a test sees races go quiet; the lease short too, so its renewals
# (which take over orphaned races) run many times while the test waits.
IDLE = "1"
LEASE = "1"


def races_held(port: int, process: int = 0) -> float:
    """The process's ``solitaire_races_held`` gauge."""
    url = f"http://127.0.0.1:{port}/metrics?process={process}"
    with urllib.request.urlopen(url, timeout=5) as answer:
        for line in answer.read().decode().splitlines():
            name, _, value = line.rpartition(" ")
            if name == "solitaire_races_held":
                return float(value)
    raise AssertionError("no solitaire_races_held gauge")


async def until(check: Callable[[], bool | Awaitable[bool]], seconds: float = 20.0) -> None:
    """Wait until ``check()`` holds (polled), or fail. A check that blocks (an HTTP
    request) runs in a thread; one that returns an awaitable (a query) is awaited."""
    for _ in range(int(seconds / 0.1)):
        held = await asyncio.to_thread(check)
        if held if isinstance(held, bool) else await held:
            return
        await asyncio.sleep(0.1)
    raise AssertionError("never happened")


async def lease_holder(database_url: str, race: int) -> str | None:
    connection = await asyncpg.connect(database_url)
    try:
        holder = await connection.fetchval(
            "select holder from race_leases where race_id = $1", race
        )
        return None if holder is None else str(holder)
    finally:
        await connection.close()


async def parked(database_url: str, race: int) -> bool:
    """Whether the race's lease is parked. The server stores the park just after the race
    leaves its memory (one statement later), so a test that saw it leave waits for this."""
    return await lease_holder(database_url, race) == PARKED


async def start_alone(client: Client) -> tuple[int, int]:
    """A race of one with no time limit, started: its id and the player's game."""
    created = await client.ok(
        "create_race", variant="klondike", seed=8, max_players=1, countdown_s=0
    )
    race, game = created["race"]["race"], created["race"]["your_game"]
    await client.ok("start_race", race=race)
    return race, game


async def test_an_abandoned_race_leaves_memory_and_its_player_goes_on(
    migrated_database_url: str, tmp_path: Path
) -> None:
    port = free_port()
    settings = {"idle_race_seconds": IDLE, "lease_seconds": LEASE}
    with server_process(migrated_database_url, port, tmp_path / "server.log", **settings):
        await wait_healthy(port)
        ann = await open_client(port, name="Ann")
        race, game = await start_alone(ann)
        await ann.ok("move", game=game, text="d")
        await ann.ok("move", game=game, text="d")
        # While Ann is connected she watches her race: it stays, however quiet.
        await asyncio.sleep(2.5)
        assert races_held(port) == 1
        await ann.close()

        await until(lambda: races_held(port) == 0)
        await until(lambda: parked(migrated_database_url, race))
        # Renewals take over orphaned races; a parked one is nobody's to take unasked.
        await asyncio.sleep(2.0)
        assert races_held(port) == 0
        assert await lease_holder(migrated_database_url, race) == PARKED

        # Ann comes back: the race is rebuilt as it was, and her moves go on.
        back = await open_client(port, token=ann.welcome["token"])
        state = await back.ok("get_race", race=race)
        assert state["race"]["state"] == "running"
        assert [s["moves"] for s in state["race"]["players"]] == [2]
        await back.ok("move", game=game, text="d")
        progress = await back.event(
            "progress", race, lambda e: e["event"]["standings"][0]["moves"] == 3
        )
        assert progress["seq"] > state["race"]["seq"]
        assert races_held(port) == 1
        holder = await lease_holder(migrated_database_url, race)
        assert holder not in (None, PARKED)
        # A race that still runs a clock (a time limit) is never parked.
        timed = await back.ok(
            "create_race", variant="klondike", max_players=1, countdown_s=0, time_limit_s=600
        )
        await back.ok("start_race", race=timed["race"]["race"])
        await back.close()
        await until(lambda: races_held(port) == 1)  # the first race went quiet again
        await asyncio.sleep(2.0)
        assert races_held(port) == 1
        timed_holder = await lease_holder(migrated_database_url, timed["race"]["race"])
        assert timed_holder not in (None, PARKED)


async def test_a_parked_race_is_taken_by_the_process_its_player_comes_back_to(
    migrated_database_url: str, tmp_path: Path
) -> None:
    port = free_port()
    settings = {"idle_race_seconds": IDLE, "lease_seconds": LEASE}
    log = tmp_path / "server.log"
    with server_process(migrated_database_url, port, log, "--processes", "2", **settings):
        await wait_healthy(port)
        # Ann owns the race on process 0; Bob plays it through process 1.
        ann = await open_client(port, "/?process=0", name="Ann")
        bob = await open_client(port, "/?process=1", name="Bob")
        created = await ann.ok("create_race", variant="klondike", seed=8, countdown_s=0)
        race = created["race"]["race"]
        bob_game = (await bob.ok("join_race", race=race))["race"]["your_game"]
        await ann.ok("start_race", race=race)
        await bob.ok("move", game=bob_game, text="d")
        await ann.event("progress", race, lambda e: _moves(e, "Bob") == 1)
        await ann.close()
        await bob.close()
        await until(lambda: races_held(port, 0) == 0 and races_held(port, 1) == 0)
        await until(lambda: parked(migrated_database_url, race))

        # Bob comes back through process 1 and moves: that process takes the race, and
        # a watcher through process 0 sees his count.
        bob = await open_client(port, "/?process=1", token=bob.welcome["token"])
        watcher = await open_client(port, "/?process=0", name="Watcher")
        await watcher.ok("get_race", race=race)
        await bob.ok("get_race", race=race)
        await bob.ok("move", game=bob_game, text="d")
        await bob.ok("move", game=bob_game, text="d")
        await watcher.event("progress", race, lambda e: _moves(e, "Bob") == 3)
        await bob.event("progress", race, lambda e: _moves(e, "Bob") == 3)
        assert await lease_holder(migrated_database_url, race) not in (None, PARKED)
        await bob.close()
        await watcher.close()


def _moves(event: dict[str, object], name: str) -> int:
    body = event["event"]
    assert isinstance(body, dict)
    return next(s["moves"] for s in body["standings"] if s["name"] == name)
