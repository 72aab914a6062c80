"""Paired comparison of two builds of the race server, at saturation or at a steady rate.

The machine's speed drifts by tens of percent within minutes, more than most changes
are worth, so two single runs of ``bench/load.py`` cannot tell a 5% gain from the
drift. This runs both builds at once, each a server subprocess (``--processes``
workers) on a throwaway database of its own with its own seated players, and
measures them in turn, round after round (A B, B A, A B, ...): each round's B/A
ratio compares two measurements seconds apart. It prints every round and the
medians of the ratios of moves per second and of CPU per move (server, PostgreSQL
and load generator together).

With ``--rate`` the players move that often a second each (bench/load.py's steady
phase) instead of as fast as acknowledged; with ``--echo`` each round also measures a
bare websockets echo server, and every build's server CPU per move is also given in
its round's echo round trips (the echo server's CPU per round trip), so figures from
different hours and machines compare.

Each build is a checkout with its C extensions built in place (``make test`` or
``python setup.py build_ext --inplace`` there); the server runs from that folder. The
same build twice with ``--setting-b`` compares two settings.

Usage: ``.venv/bin/python bench/paired.py --a /tmp/before --b . --rounds 10``, or for the
steady load: ``... --players 1000 --rate 2 --echo --rounds 4``
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import load  # bench/load.py: the players, the measuring and the server's process stats
from websockets.asyncio.client import ClientConnection, connect

from server.store.database import temporary_database


@dataclass
class Round:
    """One build's measurement: moves a second and the CPU per move of each part."""

    rate: float
    server_us: float
    postgres_us: float
    generator_us: float

    p99_ms: float
    stolen: float  # the share of the cores' time the host gave to others

    @property
    def machine_us(self) -> float:
        return self.server_us + self.postgres_us + self.generator_us


def start(
    root: Path, port: int, url: str, processes: int, log: Path, settings: dict[str, str]
) -> subprocess.Popen[bytes]:
    """The build in ``root`` serving on ``port`` over the database ``url``."""
    env = {
        **os.environ,
        **settings,
        "SOLITAIRE_DATABASE_URL": url,
        "SOLITAIRE_RATE_PER_SECOND": "10000",
        "SOLITAIRE_RATE_BURST": "10000",
        # Every player of a benchmark is on one loopback address: the limits per
        # address (docs/operations.md) are lifted, as the per-connection rate is.
        **{f"SOLITAIRE_ADDRESS_{name}": "1000000" for name in load.ADDRESS_LIMITS},
        "SOLITAIRE_LOG_JSON": "1",
        "SOLITAIRE_DAILY_PREPARE_AHEAD": "0",
    }
    command = [sys.executable, "-m", "server", "--port", str(port), "--processes", str(processes)]
    with log.open("wb") as sink:
        return subprocess.Popen(command, cwd=root, env=env, stdout=sink, stderr=sink)


async def compare(args: argparse.Namespace, urls: dict[str, str]) -> None:
    roots = {"A": Path(args.a).resolve(), "B": Path(args.b).resolve()}
    async with contextlib.AsyncExitStack() as stack:
        ports, stats, players = {}, {}, {}
        for name, root in roots.items():
            ports[name] = load.free_port()
            log = Path(tempfile.gettempdir()) / f"solitaire-paired-{name}-{os.getpid()}.log"
            settings = dict(item.split("=", 1) for item in args.setting_b) if name == "B" else {}
            process = start(root, ports[name], urls[name], args.processes, log, settings)
            stack.callback(process.wait, 30)
            stack.callback(process.terminate)
            # Stats of the whole server (front and workers), made once it answers.
            await load.wait_for_server(ports[name])
            stats[name] = load.ProcessStats(process.pid)
            url = f"ws://127.0.0.1:{ports[name]}/"
            players[name] = await load.seat_players(url, args.players, args.seed)
        echo = await stack.enter_async_context(echo_server(args)) if args.echo else None
        rounds: dict[str, list[Round]] = {"A": [], "B": []}
        echoes: list[float] = []
        for number in range(args.rounds):
            for name in ("A", "B") if number % 2 == 0 else ("B", "A"):
                if args.rate:
                    drivers = [partial(load.paced, p, args.rate) for p in players[name]]
                else:
                    drivers = [partial(load.flat_out, p) for p in players[name]]
                tally, elapsed, cpu = await load.measure(
                    drivers, args.warmup, args.duration, stats[name]
                )
                acks = max(1, tally.acks)
                measured = Round(
                    tally.acks / elapsed,
                    cpu / acks * 1e6,
                    tally.postgres_cpu / acks * 1e6,
                    tally.generator_cpu / acks * 1e6,
                    load.percentile(tally.latencies, 0.99) * 1000,
                    tally.stolen / elapsed / (os.cpu_count() or 1),
                )
                rounds[name].append(measured)
                print(
                    f"round {number + 1} {name}: {measured.rate:,.0f} moves/s, CPU per move: "
                    f"server {measured.server_us:.0f} µs, PostgreSQL {measured.postgres_us:.0f}, "
                    f"generator {measured.generator_us:.0f}; p99 {measured.p99_ms:.1f} ms, "
                    f"stolen {measured.stolen * 100:.0f}%",
                    flush=True,
                )
            if echo is not None:
                echoes.append(await echo.round_trip_cpu(args))
                print(
                    f"round {number + 1} echo: {echoes[-1]:.1f} µs of the echo server's CPU "
                    "per round trip",
                    flush=True,
                )
        pairs = list(zip(rounds["A"], rounds["B"], strict=True))
        rates = [b.rate / a.rate for a, b in pairs]
        machine = [b.machine_us / a.machine_us for a, b in pairs]
        server = [b.server_us / a.server_us for a, b in pairs]
        print(
            f"B/A moves/s: median {statistics.median(rates):.3f} "
            f"({', '.join(f'{r:.2f}' for r in rates)})"
        )
        print(
            f"B/A server CPU per move: median {statistics.median(server):.3f} "
            f"({', '.join(f'{r:.2f}' for r in server)})"
        )
        print(f"B/A CPU per move, all parts: median {statistics.median(machine):.3f}")
        for name in ("A", "B"):
            print(
                f"{name}: server CPU per move median "
                f"{statistics.median(r.server_us for r in rounds[name]):.0f} µs, "
                f"p99 median {statistics.median(r.p99_ms for r in rounds[name]):.1f} ms"
            )
        if echoes:
            for name in ("A", "B"):
                units = [r.server_us / e for r, e in zip(rounds[name], echoes, strict=True)]
                print(
                    f"{name}: server CPU per move in echo round trips: median "
                    f"{statistics.median(units):.2f} ({', '.join(f'{u:.2f}' for u in units)}; "
                    f"echo {statistics.median(echoes):.0f} µs per round trip, median)"
                )


class EchoServer:
    """The bare websockets echo server of bench/load.py, with its connected clients."""

    def __init__(self, stats: load.ProcessStats, sockets: list[ClientConnection]) -> None:
        self.stats = stats
        self.sockets = sockets

    async def round_trip_cpu(self, args: argparse.Namespace) -> float:
        """One measurement: the echo server's CPU µs per round trip, its clients flat out."""
        drivers = [partial(load.echo, w) for w in self.sockets]
        tally, _, cpu = await load.measure(drivers, args.warmup, args.duration, self.stats)
        return cpu / max(1, tally.acks) * 1e6


@contextlib.asynccontextmanager
async def echo_server(args: argparse.Namespace) -> AsyncIterator[EchoServer]:
    """bench/load.py's echo server and ``--echo-clients`` clients of it."""
    port = load.free_port()
    command = [sys.executable, "-c", load.ECHO_SERVER, str(port)]
    with load.subprocess_running("paired-echo", command) as pid:
        await load.wait_for_port(port)
        sockets = [
            await connect(f"ws://127.0.0.1:{port}/", max_queue=None, ping_interval=None)
            for _ in range(args.echo_clients)
        ]
        try:
            yield EchoServer(load.ProcessStats(pid), sockets)
        finally:
            for websocket in sockets:
                await websocket.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--a", required=True, help="checkout of build A (the baseline)")
    parser.add_argument("--b", required=True, help="checkout of build B")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--duration", type=float, default=6.0, help="seconds measured a round")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds before each round")
    parser.add_argument("--players", type=int, default=256, help="players per build")
    parser.add_argument("--processes", type=int, default=2, help="server processes per build")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--rate", type=float, help="moves per second per player (default: as fast as acknowledged)"
    )
    parser.add_argument(
        "--echo", action="store_true", help="measure a bare echo server each round too"
    )
    parser.add_argument("--echo-clients", type=int, default=256, help="its clients (flat out)")
    parser.add_argument(
        "--setting-b",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an environment setting for B's server only, e.g. SOLITAIRE_COMMITS_IN_FLIGHT=2",
    )
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores; python {sys.version.split()[0]}")
    async with (
        load.postgres() as admin_url,
        temporary_database(admin_url, prefix="solitaire_paired_a") as url_a,
        temporary_database(admin_url, prefix="solitaire_paired_b") as url_b,
    ):
        await compare(args, {"A": url_a, "B": url_b})


if __name__ == "__main__":
    import uvloop

    uvloop.run(main())
