"""Race events between 2, 4, 8 and 16 server processes: CPU per delivered event, delays.

For each count N, N servers (``python -m server``, each told it is host i of N, on
127.0.0.2, .3, ...) share one throwaway database and a nats-server on loopback (started
here, as the servers' front would). Every process creates ``--races-per-process`` races,
which it owns, and plays each with one player of its own; each race is watched by one
client on its owner and one on each of the next ``--elsewhere`` processes. One progress
event per move (``progress_interval_ms=0``); each player moves every ``--pace-ms``. So
the work of each process stays the same as N grows: what a fan-out costs beyond that
shows as CPU per delivered event growing with N.

Printed per N: events delivered, the servers' CPU (user + system, every process) per
delivered event, the same net of what the processes spend idle (measured first, for
``--idle-seconds``), and the delay from an event's server time to its arrival at a watcher
on the race's own process and on another (p50, p99, ms).

``--build DIR`` runs the servers of another checkout (its C extensions built in place,
as bench/paired.py takes them), so the previous fan-out over PostgreSQL's NOTIFY can be
measured beside NATS in the same run: ``--build`` twice, the first as the reference.

Usage: ``.venv/bin/python bench/fanout_hosts.py --counts 2 4 8 16 --build . --build /tmp/notify``
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "server"))
sys.path.insert(0, str(ROOT / "bench"))

from arena_client import Client  # noqa: E402
from load import ADDRESS_LIMITS, ProcessStats  # noqa: E402
from server_process import free_port  # noqa: E402
from websockets.asyncio.client import connect as ws_connect  # noqa: E402

from server.store.database import (  # noqa: E402
    LOCAL_SERVER_URL,
    locate_postgres,
    temporary_database,
)
from server.transport.broker import nats_server  # noqa: E402


@contextlib.contextmanager
def servers(build: Path, database: str, nats: str, count: int, logs: Path) -> Iterator[list[str]]:
    """``count`` servers of ``build``; their addresses (``host:port``)."""
    processes: list[subprocess.Popen[bytes]] = []
    addresses = []
    try:
        for index in range(count):
            address, port = f"127.0.0.{index + 2}", free_port()
            env = {
                **os.environ,
                "SOLITAIRE_DATABASE_URL": database,
                "SOLITAIRE_NATS_URL": nats,
                "SOLITAIRE_HOSTS": str(count),
                "SOLITAIRE_HOST_INDEX": str(index),
                "SOLITAIRE_PROGRESS_INTERVAL_MS": "0",
                "SOLITAIRE_RATE_BURST": "100000",
                "SOLITAIRE_RATE_PER_SECOND": "100000",
                **{f"SOLITAIRE_ADDRESS_{name}": "1000000" for name in ADDRESS_LIMITS},
                "SOLITAIRE_DAILY_PREPARE_AHEAD": "0",
                "SOLITAIRE_SOLVER_WORKERS": "1",
                # 16 processes share one PostgreSQL of 100 connections.
                "SOLITAIRE_POOL_SIZE": "3",
                "SOLITAIRE_LOG_JSON": "1",
            }
            with (logs / f"server{index}.log").open("ab") as sink:
                command = [sys.executable, "-m", "server", "--host", address, "--port", str(port)]
                processes.append(
                    subprocess.Popen(command, cwd=build, env=env, stdout=sink, stderr=sink)
                )
            addresses.append(f"{address}:{port}")
        yield addresses
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


async def connect(address: str, name: str) -> Client:
    for _ in range(2400):  # 16 servers starting at once on a busy machine take a while
        try:
            websocket = await ws_connect(f"ws://{address}/", max_queue=None)
            break
        except OSError:
            await asyncio.sleep(0.05)
    else:
        raise RuntimeError(f"{address} did not come up")
    client = Client(websocket)
    client.welcome = await client.ok("hello", name=name)
    return client


class Watcher:
    """A client on one process that notes when each event of its races arrives."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.own: list[float] = []  # delays of events of races owned where it is
        self.other: list[float] = []  # of races owned elsewhere
        self.own_races: set[int] = set()

    async def listen(self) -> None:
        while True:
            message = await self.client.receive(timeout=120)
            if message["type"] == "event" and message["event"]["kind"] == "progress":
                delay = time.time() * 1000 - message["time"]
                (self.own if message["race"] in self.own_races else self.other).append(delay)


async def measure(addresses: list[str], args: argparse.Namespace) -> dict[str, object]:
    count = len(addresses)
    watchers = [Watcher(await connect(a, f"W{i}")) for i, a in enumerate(addresses)]
    games: list[tuple[Client, int]] = []
    for index, address in enumerate(addresses):
        for number in range(args.races_per_process):
            player = await connect(address, f"P{index}.{number}")
            created = await player.ok("create_race", variant="klondike", seed=8, countdown_s=0)
            race = created["race"]["race"]
            watchers[index].own_races.add(race)
            for step in range(args.elsewhere + 1):
                await watchers[(index + step) % count].client.ok("get_race", race=race)
            await player.ok("start_race", race=race)
            games.append((player, created["race"]["your_game"]))
    listening = [asyncio.create_task(w.listen()) for w in watchers]
    await asyncio.sleep(1.0)
    for watcher in watchers:
        watcher.own.clear()
        watcher.other.clear()
    stats = [ProcessStats(pid) for pid in args.pids]
    # What the processes spend with no move at all (lease renewals, clocks, sweeps),
    # measured first, so the figure net of it shows the fan-out's own cost.
    idle_from = sum(s.cpu_seconds() for s in stats)
    await asyncio.sleep(args.idle_seconds)
    idle_per_second = (sum(s.cpu_seconds() for s in stats) - idle_from) / args.idle_seconds
    before = sum(s.cpu_seconds() for s in stats)
    started = time.perf_counter()
    stop = time.perf_counter() + args.seconds

    async def play(player: Client, game: int) -> None:
        while time.perf_counter() < stop:
            await player.ok("move", game=game, text="d", wait=30)
            await asyncio.sleep(args.pace_ms / 1000)

    await asyncio.gather(*(play(p, g) for p, g in games))
    await asyncio.sleep(1.0)  # the last events on their way
    cpu = sum(s.cpu_seconds() for s in stats) - before
    elapsed = time.perf_counter() - started
    for task in listening:
        task.cancel()
    for client in [*(w.client for w in watchers), *(p for p, _ in games)]:
        await client.close()
    own = [d for w in watchers for d in w.own]
    other = [d for w in watchers for d in w.other]
    delivered = len(own) + len(other)

    def spread(delays: list[float]) -> str:
        if len(delays) < 2:
            return "-"
        p99 = statistics.quantiles(delays, n=100)[98]
        return f"{statistics.median(delays):.1f}/{p99:.1f}"

    return {
        "events delivered": f"{delivered} ({delivered / elapsed:,.0f}/s)",
        "server CPU us per delivered event": round(cpu / max(delivered, 1) * 1e6, 1),
        "the same, net of idle work": round(
            (cpu - idle_per_second * elapsed) / max(delivered, 1) * 1e6, 1
        ),
        "delay ms p50/p99, same process": spread(own),
        "delay ms p50/p99, another process": spread(other),
    }


@contextlib.asynccontextmanager
async def database_server(url: str | None, folder: Path) -> AsyncIterator[str]:
    location = await locate_postgres(url, LOCAL_SERVER_URL, folder / "pg")
    try:
        yield location.admin_url
    finally:
        if location.embedded is not None:
            location.embedded.stop()


async def run(args: argparse.Namespace) -> None:
    builds = [Path(b).resolve() for b in args.build] or [ROOT]
    url = os.environ.get("SOLITAIRE_DATABASE_URL") or None
    with tempfile.TemporaryDirectory(prefix="solitaire-fanout-") as folder:
        async with database_server(url, Path(folder)) as admin, nats_server() as nats:
            for count in args.counts:
                for number, build in enumerate(builds):
                    logs = Path(folder) / f"{count}-{number}"
                    logs.mkdir()
                    name = f"solitaire_fanout_{count}_{number}"
                    async with temporary_database(admin, name) as database:
                        with servers(build, database, nats, count, logs) as addresses:
                            args.pids = [p.pid for p in psutil_children()]
                            figures = await measure(addresses, args)
                    print(f"{count} processes, {build}:", flush=True)
                    for key, value in figures.items():
                        print(f"  {key}: {value}", flush=True)


def psutil_children() -> list[object]:
    """This process's server children (each a ``python -m server``)."""
    import psutil

    return [
        child
        for child in psutil.Process().children()
        if "server" in " ".join(child.cmdline()) and "nats" not in child.name()
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--counts", type=int, nargs="+", default=[2, 4, 8, 16])
    parser.add_argument("--races-per-process", type=int, default=2)
    parser.add_argument("--elsewhere", type=int, default=1, help="watchers on other processes")
    parser.add_argument("--pace-ms", type=float, default=200.0)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--idle-seconds", type=float, default=5.0, help="measured before")
    parser.add_argument("--build", action="append", default=[], help="a checkout to run")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
