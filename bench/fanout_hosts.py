"""Race events across three hosts: how late they reach other hosts, and what they cost.

Three server hosts (``python -m server`` on 127.0.0.2, .3 and .4, one PostgreSQL, the
real HAProxy in front as in tests/server/proxy_hosts.py) with one progress event per
move (``progress_interval_ms=0``). Each of ``--races`` races is created on host 0,
which owns it, and watched by one client on each host. Two phases:

- **owner**: each race's player is on host 0 and draws ``--moves`` times, one move
  every ``--pace-ms``. An event reaches host 0's watcher at once and the others over
  LISTEN/NOTIFY (the group commit's notices, at most every 50 ms).
- **mirror**: the same with the player on host 1: each move is committed there and
  reported to host 0 (server/services/relay.py), which numbers the event; it reaches
  the watchers as before.

Printed per phase: the delay from an event's server time to its arrival, per watcher's
host (p50, p99, max, in ms); the CPU each host spent (user + system) per move; host 0's
mean group commit (``solitaire_commit_seconds``). Hosts 1 and 2 only watch in the owner
phase, so their CPU per move there is what fanning out one event costs a listening host.
The load generator shares the cores: compare phases within one run.

Usage: ``.venv/bin/python bench/fanout_hosts.py --races 20 --moves 40 --pace-ms 100``
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "server"))
sys.path.insert(0, str(ROOT / "bench"))

from arena_client import Client  # noqa: E402
from load import ProcessStats, metric_totals  # noqa: E402
from proxy_hosts import Cluster, Host, hosts_behind_proxy  # noqa: E402
from websockets.asyncio.client import connect as ws_connect  # noqa: E402

from server.store.database import (  # noqa: E402
    LOCAL_SERVER_URL,
    locate_postgres,
    temporary_database,
)


def commit_figures(host: Host) -> tuple[float, float]:
    """Host's (sum of commit seconds, commits) from its /metrics."""
    names = ("solitaire_commit_seconds_sum", "solitaire_commit_seconds_count")
    found = metric_totals([f"http://{host.address}:{host.port}/metrics"], names)
    return found[names[0]], found[names[1]]


async def on_host(host: Host, **hello: str) -> Client:
    client = Client(await ws_connect(f"ws://{host.address}:{host.port}/", max_queue=None))
    client.welcome = await client.ok("hello", **hello)
    return client


class Watcher:
    """A client on one host that notes when each event of its races arrives."""

    def __init__(self, client: Client, host: int) -> None:
        self.client = client
        self.host = host
        self.delays: list[float] = []
        self.task: asyncio.Task[None] | None = None

    async def listen(self) -> None:
        while True:
            message = await self.client.receive(timeout=60)
            if message["type"] == "event" and message["event"]["kind"] == "progress":
                self.delays.append(time.time() * 1000 - message["time"])


async def phase(cluster: Cluster, player_host: int, args: argparse.Namespace) -> dict[str, object]:
    hosts = cluster.hosts
    creators = [await on_host(hosts[0], name=f"C{i}") for i in range(args.races)]
    players = [await on_host(hosts[player_host], name=f"P{i}") for i in range(args.races)]
    watchers = [Watcher(await on_host(h, name=f"W{h.index}"), h.index) for h in hosts]
    games = []
    for creator, player in zip(creators, players, strict=True):
        created = await creator.ok("create_race", variant="klondike", seed=8, countdown_s=0)
        race = created["race"]["race"]
        games.append((await player.ok("join_race", race=race))["race"]["your_game"])
        for watcher in watchers:
            await watcher.client.ok("get_race", race=race)
        await creator.ok("start_race", race=race)
    for watcher in watchers:
        watcher.delays.clear()
        watcher.task = asyncio.create_task(watcher.listen())
    await asyncio.sleep(0.5)
    stats = [ProcessStats(h.process.pid) for h in hosts]
    cpu_before = [stat.cpu_seconds() for stat in stats]
    commits_before = commit_figures(hosts[0])

    async def play(player: Client, game: int) -> None:
        for _ in range(args.moves):
            await player.ok("move", game=game, text="d")
            await asyncio.sleep(args.pace_ms / 1000)

    await asyncio.gather(*(play(p, g) for p, g in zip(players, games, strict=True)))
    await asyncio.sleep(1.0)  # the last notices
    cpu_after = [stat.cpu_seconds() for stat in stats]
    commits_after = commit_figures(hosts[0])
    for watcher in watchers:
        assert watcher.task is not None
        watcher.task.cancel()
    for client in [*creators, *players, *(w.client for w in watchers)]:
        await client.close()
    moves = args.races * args.moves
    commits = commits_after[1] - commits_before[1]
    return {
        "moves": moves,
        "events seen per watcher": [len(w.delays) for w in watchers],
        "delay ms p50/p99/max per watcher's host": [
            (
                round(statistics.median(w.delays), 1),
                round(statistics.quantiles(w.delays, n=100)[98], 1),
                round(max(w.delays), 1),
            )
            for w in watchers
        ],
        "CPU us per move per host": [
            round((after - before) / moves * 1e6)
            for before, after in zip(cpu_before, cpu_after, strict=True)
        ],
        "host 0 commits, mean ms": (
            int(commits),
            round((commits_after[0] - commits_before[0]) / max(commits, 1) * 1000, 2),
        ),
    }


async def run(args: argparse.Namespace) -> None:
    url = os.environ.get("SOLITAIRE_DATABASE_URL") or None
    with tempfile.TemporaryDirectory(prefix="solitaire-fanout-") as folder:
        location = await locate_postgres(url, LOCAL_SERVER_URL, Path(folder) / "pg")
        try:
            async with (
                temporary_database(location.admin_url, "solitaire_fanout") as database,
                hosts_behind_proxy(
                    database, Path(folder), lease_seconds=10.0, progress_interval_ms="0"
                ) as cluster,
            ):
                for name, player_host in (("owner", 0), ("mirror", 1)):
                    figures = await phase(cluster, player_host, args)
                    print(f"phase {name} (player on host {player_host}):")
                    for key, value in figures.items():
                        print(f"  {key}: {value}")
        finally:
            if location.embedded is not None:
                location.embedded.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--races", type=int, default=20)
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--pace-ms", type=float, default=100.0)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
