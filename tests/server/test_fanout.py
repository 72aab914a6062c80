"""Race events between server processes over NATS (server/transport/fanout.py).

Two servers on one database and one NATS: the race's owner sends each committed event
on the race's subject, the other process passes it on to its watchers. NATS keeps no
message: what a process missed while NATS was away it reads from the database, by event
number, once NATS is back, so its watchers see every event once and in order.
"""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from arena_client import Client
from server_process import free_port
from websockets.asyncio.client import connect as ws_connect

from server.ops.config import ServerConfig
from server.transport.app import ArenaServer
from server.transport.broker import nats_server_binary


@contextmanager
def nats_on(port: int) -> Iterator[subprocess.Popen[bytes]]:
    """A nats-server on a loopback port of the test's choosing (so it can come back on it)."""
    process = subprocess.Popen(
        [str(nats_server_binary()), "--addr", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield process
    finally:
        process.terminate()
        process.wait()


async def open_on(server: ArenaServer, name: str) -> Client:
    client = Client(await ws_connect(server.url, max_queue=None))
    await client.ok("hello", name=name)
    return client


async def test_events_missed_while_nats_was_away_are_read_from_the_database(
    server_config: ServerConfig, migrated_database_url: str
) -> None:
    port = free_port()
    config = replace(server_config, nats_url=f"nats://127.0.0.1:{port}")
    with nats_on(port) as nats:
        async with (
            ArenaServer(config, migrated_database_url) as owner,
            ArenaServer(config, migrated_database_url) as mirror,
        ):
            ann = await open_on(owner, "Ann")
            created = await ann.ok("create_race", variant="klondike", seed=8, countdown_s=0)
            race, game = created["race"]["race"], created["race"]["your_game"]
            watcher = await open_on(mirror, "Watcher")
            await watcher.ok("get_race", race=race)
            await ann.ok("start_race", race=race)
            await watcher.event("start", race)

            nats.terminate()
            nats.wait()
            for _ in range(3):  # committed and acknowledged with NATS away
                await ann.ok("move", game=game, text="d")
            with nats_on(port):
                await ann.ok("move", game=game, text="d")
                await watcher.event(
                    "progress",
                    race,
                    lambda e: e["event"]["standings"][0]["moves"] == 4,
                )
                numbers = [e["seq"] for e in watcher.events]
                assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
                await asyncio.gather(ann.close(), watcher.close())
