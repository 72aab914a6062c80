"""PostgreSQL restarted mid-race, under a real server process and real clients.

The test starts its own embedded PostgreSQL so it can stop and start it: twice, once
for a moment (a move sent meanwhile waits, unacknowledged, and is committed once the
database is back) and once for longer than the group commit keeps trying (moves are
answered ``unavailable``). Throughout, ``/healthz`` says ``degraded`` while the
database is away and ``ok`` once it is back, no acknowledged move is lost, and the race
goes on afterwards, across server processes too (their change notices listen again).
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import asyncpg
import pytest
from arena_client import Client, Message
from server_process import free_port, open_client, server_process, wait_healthy

from server.store.database import EmbeddedPostgres, create_database, with_database

# Long enough to outlast a PostgreSQL restart on a busy machine, so the first outage's
# move is committed rather than refused.
RETRY_SECONDS = "8"


def health(port: int) -> tuple[int, str]:
    """``/healthz``'s status and body."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as answer:
            return int(answer.status), answer.read().decode()
    except urllib.error.HTTPError as refused:
        return int(refused.code), refused.read().decode()


async def health_becomes(port: int, wanted: Callable[[int, str], bool]) -> tuple[int, str]:
    """Ask ``/healthz`` until its answer is ``wanted`` (bounded: about 30 s)."""
    answer = (0, "")
    for _ in range(300):
        answer = await asyncio.to_thread(health, port)
        if wanted(*answer):
            return answer
        await asyncio.sleep(0.1)
    raise AssertionError(f"/healthz kept answering {answer}")


def degraded(status: int, body: str) -> bool:
    return status == 503 and body.startswith("degraded")


def ok(status: int, body: str) -> bool:
    return (status, body) == (200, "ok\n")


async def stored_move_ids(url: str, game: int) -> list[str | None]:
    database = await asyncpg.connect(url)
    try:
        rows = await database.fetch("select move_id from moves where game_id=$1 order by seq", game)
    finally:
        await database.close()
    return [row["move_id"] for row in rows]


class Player:
    """A racer: its client, its game, and the moves the server acknowledged to it."""

    def __init__(self, client: Client, game: int, name: str) -> None:
        self.client = client
        self.game = game
        self.name = name
        self.acknowledged: list[str] = []
        self.sent = 0

    def next_move_id(self) -> str:
        self.sent += 1
        return f"{self.name}-{self.sent}"

    async def move(self, move_id: str | None = None) -> Message:
        """Draw from the stock (always legal in Klondike); note it when acknowledged."""
        move_id = move_id or self.next_move_id()
        reply = await self.client.request("move", game=self.game, text="d", move_id=move_id)
        if reply["type"] == "view":
            assert not reply.get("duplicate"), reply
            self.acknowledged.append(move_id)
        return reply


@pytest.mark.timeout(240)
@pytest.mark.parametrize("processes", [1, 2])
async def test_a_race_goes_on_through_a_postgres_restart(
    embedded_data_dir: Path, tmp_path: Path, processes: int
) -> None:
    embedded = await asyncio.to_thread(EmbeddedPostgres.start, embedded_data_dir, keep_data=False)
    try:
        await create_database(embedded.admin_url, "solitaire")
        url = with_database(embedded.admin_url, "solitaire")
        port = free_port()
        log = tmp_path / "server.log"
        options = ("--processes", str(processes))
        with server_process(url, port, log, *options, store_retry_seconds=RETRY_SECONDS):
            await wait_healthy(port)
            await race_through_restarts(embedded, url, port, processes)
        lines = [json.loads(line) for line in log.read_text().splitlines()]
    finally:
        await asyncio.to_thread(embedded.stop)
    events = [line.get("event") for line in lines]
    assert "database_away" in events and "database_back" in events
    assert "request_failed" not in events and "task_crashed" not in events
    assert not [line for line in lines if line.get("code") == "internal"]


async def race_through_restarts(
    embedded: EmbeddedPostgres, url: str, port: int, processes: int
) -> None:
    ann_client = await open_client(port, "/?process=0", name="Ann")
    created = await ann_client.ok("create_race", variant="klondike", seed=8, countdown_s=0)
    race = created["race"]["race"]
    bob_client = await open_client(port, f"/races/{race}", name="Bob")
    joined = await bob_client.ok("join_race", race=race)
    await ann_client.ok("start_race", race=race)
    # A watcher on the other process (when there is one) sees the race only through
    # the change notices between processes.
    carl = await open_client(port, f"/?process={processes - 1}", name="Carl")
    await carl.ok("get_race", race=race)
    ann = Player(ann_client, created["race"]["your_game"], "ann")
    bob = Player(bob_client, joined["race"]["your_game"], "bob")
    ann_id = ann_client.welcome["player"]["id"]

    def ann_moved(count: int) -> Callable[[Message], bool]:
        def seen(event: Message) -> bool:
            lines = event["event"]["standings"]
            return any(line["player"] == ann_id and line["moves"] >= count for line in lines)

        return seen

    for _ in range(3):
        for player in (ann, bob):
            assert (await player.move())["type"] == "view"
    await carl.event("progress", race, ann_moved(3))

    # 1. A short outage: the move sent meanwhile waits and is committed afterwards.
    await asyncio.to_thread(embedded.halt)
    status, body = await health_becomes(port, degraded)
    assert (status, body) == (503, "degraded: database unreachable, retrying\n")
    waiting = asyncio.create_task(ann.move())
    await asyncio.sleep(0.5)  # the move is in the group commit's hands now
    assert not waiting.done()
    await asyncio.to_thread(embedded.resume)
    retried = await waiting
    assert retried["type"] == "view", retried
    assert retried["view"]["counters"]["moves"] == 4
    await health_becomes(port, ok)
    await carl.event("progress", race, ann_moved(4))

    # 2. A long outage: past the retries, a clear error, and nothing applied.
    await asyncio.to_thread(embedded.halt)
    await health_becomes(port, degraded)
    refused = {}
    for player in (bob, ann):
        move_id = player.next_move_id()
        reply = await player.move(move_id)
        assert reply["type"] == "error", reply
        assert reply["code"] == "unavailable", reply
        assert "database" in reply["message"]
        refused[player.name] = move_id
    await asyncio.to_thread(embedded.resume)
    await health_becomes(port, ok)

    # 3. Play goes on: a refused move sent again counts once, fresh moves count.
    again = await bob.move(refused["bob"])
    assert again["type"] == "view", again
    assert again["view"]["counters"]["moves"] == 4
    moved = await ann.move()
    assert moved["type"] == "view", moved
    assert moved["view"]["counters"]["moves"] == 5
    await carl.event("progress", race, ann_moved(5))
    standings = (await carl.ok("get_race", race=race))["race"]["players"]
    assert {line["player"]: line["moves"] for line in standings}[ann_id] == 5

    # Every acknowledged move is in the log, in order, and nothing else is.
    for player in (ann, bob):
        assert await stored_move_ids(url, player.game) == player.acknowledged
    assert refused["ann"] not in ann.acknowledged
    for client in (ann_client, bob_client, carl):
        await client.close()
