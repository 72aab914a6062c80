"""Paired comparison of two builds of the race server at saturation.

The machine's speed drifts by tens of percent within minutes, more than most changes
are worth, so two single runs of ``bench/load.py`` cannot tell a 5% gain from the
drift. This runs both builds at once, each a server subprocess (``--processes``
workers) on a throwaway database of its own with its own seated players, and
measures them in turn, round after round (A B, B A, A B, ...): each round's B/A
ratio compares two measurements seconds apart. It prints every round and the
medians of the ratios of moves per second and of CPU per move (server, PostgreSQL
and load generator together).

Each build is a checkout with its C extensions built in place (``make test`` or
``python setup.py build_ext --inplace`` there); the server runs from that folder. The
same build twice with ``--setting-b`` compares two settings.

Usage: ``.venv/bin/python bench/paired.py --a /tmp/before --b . --rounds 10``
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import load  # bench/load.py: the players, the measuring and the server's process stats

from server.store.database import temporary_database


@dataclass
class Round:
    """One build's measurement: moves a second and the CPU per move of each part."""

    rate: float
    server_us: float
    postgres_us: float
    generator_us: float

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
        "SOLITAIRE_LOG_JSON": "1",
        "SOLITAIRE_DAILY_PREPARE_AHEAD": "0",
    }
    command = [sys.executable, "-m", "server", "--port", str(port), "--processes", str(processes)]
    with log.open("wb") as sink:
        return subprocess.Popen(command, cwd=root, env=env, stdout=sink, stderr=sink)


async def compare(args: argparse.Namespace, urls: dict[str, str]) -> None:
    roots = {"A": Path(args.a).resolve(), "B": Path(args.b).resolve()}
    with contextlib.ExitStack() as stack:
        ports, stats, players = {}, {}, {}
        for name, root in roots.items():
            ports[name] = load.free_port()
            log = Path(tempfile.gettempdir()) / f"solitaire-paired-{name}-{os.getpid()}.log"
            settings = dict(item.split("=", 1) for item in args.setting_b) if name == "B" else {}
            process = start(root, ports[name], urls[name], args.processes, log, settings)
            stack.callback(process.wait, 30)
            stack.callback(process.terminate)
            await load.wait_for_port(ports[name])
            stats[name] = load.ProcessStats(process.pid)
            url = f"ws://127.0.0.1:{ports[name]}/"
            players[name] = await load.seat_players(url, args.players, args.seed)
        rounds: dict[str, list[Round]] = {"A": [], "B": []}
        for number in range(args.rounds):
            for name in ("A", "B") if number % 2 == 0 else ("B", "A"):
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
                )
                rounds[name].append(measured)
                print(
                    f"round {number + 1} {name}: {measured.rate:,.0f} moves/s, CPU per move: "
                    f"server {measured.server_us:.0f} µs, PostgreSQL {measured.postgres_us:.0f}, "
                    f"generator {measured.generator_us:.0f}",
                    flush=True,
                )
        pairs = list(zip(rounds["A"], rounds["B"], strict=True))
        rates = [b.rate / a.rate for a, b in pairs]
        machine = [b.machine_us / a.machine_us for a, b in pairs]
        print(
            f"B/A moves/s: median {statistics.median(rates):.3f} "
            f"({', '.join(f'{r:.2f}' for r in rates)})"
        )
        print(f"B/A CPU per move, all parts: median {statistics.median(machine):.3f}")


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
