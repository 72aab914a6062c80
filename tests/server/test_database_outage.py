"""An 8 s database outage under races played on three hosts behind the real HAProxy.

Every host loses PostgreSQL at once: the test runs an embedded PostgreSQL of its own and
stops it for 8 s (as an operator's restart or a failover would). Before leases were
fenced, an owner that could not renew its lease went on acting as the owner while
another host took the race over once the database was back, and both numbered the
race's events: players got false ``conflict``s. Now an owner stops acting as one once
its lease could have run out. And the proxy checks each host's liveness, not its
database: it keeps every host in, so the connections in play keep their session and new
ones are still taken while the database is away.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest
from arena_client import Client
from proxy_hosts import Cluster, hosts_behind_proxy

from server.ops.config import ServerConfig
from server.store.database import EmbeddedPostgres, create_database, with_database

RACES = 4
OUTAGE_SECONDS = 8.0


async def keep_drawing(client: Client, game: int, stop: asyncio.Event, codes: Counter[str]) -> None:
    """Draw from the stock until told to stop; count each reply's type or error code."""
    while not stop.is_set():
        reply = await client.request("move", game=game, text="d", wait=30)
        codes[reply["code"] if reply["type"] == "error" else reply["type"]] += 1
        await asyncio.sleep(0.05)


async def race_on_three_hosts(cluster: Cluster, number: int) -> list[tuple[Client, int]]:
    """A started race: its creator on the race's host, a rival and a third player on
    whatever hosts the proxy picks (mirrors, mostly)."""
    ann, _ = await cluster.connect("/", name=f"Ann{number}")
    created = await ann.ok("create_race", variant="klondike", seed=8, countdown_s=0)
    race = created["race"]["race"]
    players = [(ann, created["race"]["your_game"])]
    for name in ("Bob", "Cy"):
        client, _ = await cluster.connect("/", name=f"{name}{number}")
        joined = await client.ok("join_race", race=race)
        players.append((client, joined["race"]["your_game"]))
    await ann.ok("start_race", race=race)
    return players


@pytest.mark.timeout(180)
async def test_a_database_outage_ends_with_no_false_conflict_and_no_host_dropped(
    embedded_data_dir: Path, tmp_path: Path, nats_url: str
) -> None:
    embedded = await asyncio.to_thread(EmbeddedPostgres.start, embedded_data_dir, keep_data=False)
    try:
        await create_database(embedded.admin_url, "solitaire")
        url = with_database(embedded.admin_url, "solitaire")
        await play_through_an_outage(embedded, url, tmp_path, nats_url)
    finally:
        await asyncio.to_thread(embedded.stop)


async def play_through_an_outage(
    embedded: EmbeddedPostgres, url: str, logs: Path, nats_url: str
) -> None:
    lease = ServerConfig().lease_seconds  # the default, as a deployment runs it
    async with hosts_behind_proxy(url, logs, lease_seconds=lease, nats_url=nats_url) as cluster:
        players = [p for n in range(RACES) for p in await race_on_three_hosts(cluster, n)]
        codes: Counter[str] = Counter()
        stop = asyncio.Event()
        drawing = [asyncio.create_task(keep_drawing(c, g, stop, codes)) for c, g in players]
        await asyncio.sleep(2)
        await asyncio.to_thread(embedded.halt)
        await asyncio.sleep(OUTAGE_SECONDS / 2)
        # Mid-outage the proxy still takes connections, on any host.
        newcomer = await asyncio.wait_for(cluster.connect_only("/"), 10)
        cut_during = codes.copy()
        await asyncio.sleep(OUTAGE_SECONDS / 2)
        await asyncio.to_thread(embedded.resume)
        await asyncio.sleep(6)  # play on after the outage, while leases change hands
        stop.set()
        await asyncio.gather(*drawing)
        assert codes["view"] > cut_during["view"] > 0, codes  # moves before and after
        assert codes["conflict"] == 0, codes
        # Every connection in play kept its session through the outage.
        for client, game in players:
            view = await client.ok("get_view", game=game)
            assert view["view"]["counters"]["moves"] > 0
            await client.close()
        await newcomer.close()
