"""Soak benchmark: the race server held at half its saturation for a long time.

A leak shows only over time: memory that grows a little with every game, an asyncio
task or a file descriptor left behind by every closed connection, a connection the
server never lets go. This runs a real server subprocess (``python -m server``) on a
throwaway PostgreSQL database and:

1. measures saturation first, in the same run and on the same machine: players in
   races of 8 moving as fast as they are acknowledged (bench/load.py's saturation);
2. seats ``--players`` players in races of 8, each moving at the pace that makes the
   whole ``--load`` (default half) of that saturation, for ``--minutes`` (default 30).
   Players whose game ends start a new race (as in bench/load.py), and about
   ``--churn`` of them a minute leave and come back on a new connection, so closing
   connections is soaked too;
3. every ``--sample-seconds`` samples the server's memory (RSS of all its processes),
   its asyncio tasks and open connections (``/metrics``), its open file descriptors
   (``/proc/<pid>/fd``) and the moves acknowledged since the last sample;
4. prints every sample, then whether each figure stayed flat: the median of the last
   third of the samples against the median of the first third (a median, since a
   sample can land on a moment of many short-lived tasks). The games held and the
   races held in memory are printed too, to tell what the memory holds.

Usage: ``.venv/bin/python bench/soak.py --minutes 30`` (``--minutes 3`` for a quick run).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import lean_client
from load import (
    ADDRESS_LIMITS,
    Driver,
    Player,
    ProcessStats,
    Tally,
    flat_out,
    free_port,
    measure,
    metric_totals,
    metrics_urls,
    percentile,
    postgres,
    seat_players,
    stolen_seconds,
    subprocess_running,
    temporary_database,
    wait_for_port,
)

# How much a figure may grow from the first third of the run to the last and still
# read as flat: memory settles as caches fill (games, prepared statements), counts
# wobble with the players' churn at the moment of the sample.
MEMORY_GROWTH = 0.10
COUNT_GROWTH = 0.05
COUNT_SLACK = 3


@dataclass
class Sample:
    """The server at one moment, and the moves acknowledged since the last sample."""

    at: float
    rss_mib: float
    tasks: int
    connections: int
    fds: int
    games: int
    races: int
    moves_per_second: float
    p99_ms: float
    load_average: float


def server_pids(pid: int) -> list[int]:
    """The server process and its children now (workers, solver, resource tracker)."""
    return ProcessStats(pid).pids


def open_fds(pids: list[int]) -> int:
    """File descriptors the server's processes hold open."""
    total = 0
    for pid in pids:
        try:
            total += len(os.listdir(f"/proc/{pid}/fd"))
        except OSError:  # a child that just ended
            continue
    return total


def gauges(port: int, processes: int) -> dict[str, float]:
    """The server's tasks and connections, summed over its processes (``/metrics``)."""
    return metric_totals(
        metrics_urls(port, processes),
        (
            "solitaire_asyncio_tasks",
            "solitaire_connections",
            "solitaire_games_cached",
            "solitaire_races_held",
        ),
    )


async def soaking(
    player: Player, rate: float, churn: float, url: str, tally: Tally, stop: asyncio.Event
) -> None:
    """Move ``rate`` times a second; after a move, leave and come back with chance ``churn``."""
    interval = 1.0 / rate
    due = time.perf_counter() + player.rng.random() * interval
    while not stop.is_set():
        delay = due - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        due = max(due + interval, time.perf_counter() - interval)  # no burst after a stall
        await player.move(tally)
        if player.rng.random() < churn:
            await player.websocket.close()
            player.websocket = await lean_client.connect(url)
            await player.request("hello", name="again")
            await player.race_alone()


async def saturation(url: str, players: int, seconds: float, stats: ProcessStats) -> float:
    """Acknowledged moves a second with ``players`` moving as fast as acknowledged."""
    seated = await seat_players(url, players, seed=7)
    drivers: list[Driver] = [partial(flat_out, p) for p in seated]
    tally, elapsed, cpu = await measure(drivers, 5.0, seconds, stats)
    for player in seated:
        await player.websocket.close()
    rate = tally.acks / elapsed
    print(
        f"saturation: {rate:,.0f} moves/s ({players} players flat out, {elapsed:.0f} s; "
        f"server CPU {cpu / elapsed * 100:.0f}% of one core; "
        f"p99 {percentile(tally.latencies, 0.99) * 1000:.1f} ms)",
        flush=True,
    )
    return rate


def flat(name: str, values: list[float], growth: float, slack: float) -> bool:
    """Print whether the last third of ``values`` stayed within ``growth`` of the first."""
    third = max(1, len(values) // 3)
    first, last = statistics.median(values[:third]), statistics.median(values[-third:])
    bound = first * (1 + growth) + slack
    verdict = "flat" if last <= bound else "GREW"
    change = (last / first - 1) * 100 if first else float("nan")
    print(
        f"  {name:<22}: first third {first:,.1f}, last third {last:,.1f} "
        f"({change:+.1f}%; flat up to {bound:,.1f}): {verdict}"
    )
    return last <= bound


async def run(args: argparse.Namespace, database_url: str) -> bool:
    port = free_port()
    env = {
        **os.environ,
        "SOLITAIRE_DATABASE_URL": database_url,
        "SOLITAIRE_RATE_PER_SECOND": "10000",
        "SOLITAIRE_RATE_BURST": "10000",
        # Every player of a benchmark is on one loopback address: the limits per
        # address (docs/operations.md) are lifted, as the per-connection rate is.
        **{f"SOLITAIRE_ADDRESS_{name}": "1000000" for name in ADDRESS_LIMITS},
        "SOLITAIRE_LOG_JSON": "1",
        "SOLITAIRE_DAILY_PREPARE_AHEAD": "0",
    }
    command = [
        *(sys.executable, "-m", "server", "--port", str(port)),
        *("--processes", str(args.processes)),
    ]
    url = f"ws://127.0.0.1:{port}/"
    with subprocess_running("soak-server", command, env) as pid:
        await wait_for_port(port)
        stats = ProcessStats(pid)
        saturated = args.saturation or await saturation(
            url, args.saturation_players, args.saturation_seconds, stats
        )
        target = saturated * args.load
        rate = target / args.players
        print(
            f"soak: {args.players} players at {rate:.2f} moves/s each = {target:,.0f} moves/s "
            f"({args.load:.0%} of saturation) for {args.minutes:g} min, "
            f"churn {args.churn:.0%} of the players a minute",
            flush=True,
        )
        players = await seat_players(url, args.players, seed=11)
        churn = args.churn / 60 / rate  # chance per move
        tally = Tally(recording=True)
        stop = asyncio.Event()
        gc.collect()
        gc.freeze()
        gc.set_threshold(50_000, 20, 10)  # no long collections in the generator
        tasks = [asyncio.create_task(soaking(p, rate, churn, url, tally, stop)) for p in players]
        await asyncio.sleep(args.warmup)
        samples: list[Sample] = []
        started = last = time.perf_counter()
        tally.acks, tally.latencies = 0, []
        stolen_before = stolen_seconds()
        print(
            "   min   RSS MiB  tasks  conns   fds  games  races  moves/s  p99 ms  load",
            flush=True,
        )
        while (now := time.perf_counter()) - started < args.minutes * 60:
            await asyncio.sleep(min(args.sample_seconds, started + args.minutes * 60 - now))
            now = time.perf_counter()
            acks, latencies = tally.acks, tally.latencies
            tally.acks, tally.latencies = 0, []
            pids = server_pids(pid)
            figures = await asyncio.to_thread(gauges, port, args.processes)
            sample = Sample(
                at=(now - started) / 60,
                rss_mib=ProcessStats(pid).rss_bytes() / 2**20,
                tasks=int(figures["solitaire_asyncio_tasks"]),
                connections=int(figures["solitaire_connections"]),
                fds=open_fds(pids),
                games=int(figures["solitaire_games_cached"]),
                races=int(figures["solitaire_races_held"]),
                moves_per_second=acks / (now - last),
                p99_ms=percentile(latencies, 0.99) * 1000,
                load_average=os.getloadavg()[0],
            )
            last = now
            samples.append(sample)
            print(
                f"{sample.at:6.1f} {sample.rss_mib:9.1f} {sample.tasks:6d} "
                f"{sample.connections:6d} {sample.fds:5d} {sample.games:6d} {sample.races:6d} "
                f"{sample.moves_per_second:8,.0f} "
                f"{sample.p99_ms:7.1f} {sample.load_average:5.1f}",
                flush=True,
            )
        elapsed = time.perf_counter() - started
        stolen = (stolen_seconds() - stolen_before) / elapsed / (os.cpu_count() or 1)
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        for player in players:
            await player.websocket.close()
    print(
        f"held {statistics.fmean(s.moves_per_second for s in samples):,.0f} moves/s "
        f"for {elapsed / 60:.1f} min; errors {tally.errors or 'none'}; "
        f"load average {statistics.fmean(s.load_average for s in samples):.1f} "
        f"(1 min, mean of the samples; {os.cpu_count()} cores); "
        f"stolen by the host {stolen * 100:.0f}% of the cores' time"
    )
    print("flat (median of the last third of the samples against the first third):")
    verdicts = [
        flat("server RSS (MiB)", [s.rss_mib for s in samples], MEMORY_GROWTH, 0),
        flat("asyncio tasks", [s.tasks for s in samples], COUNT_GROWTH, COUNT_SLACK),
        flat("connections", [s.connections for s in samples], COUNT_GROWTH, COUNT_SLACK),
        flat("file descriptors", [s.fds for s in samples], COUNT_GROWTH, COUNT_SLACK),
        # What the memory holds: games and races no player uses must leave it.
        flat("games cached", [s.games for s in samples], COUNT_GROWTH, COUNT_SLACK),
        flat("races held", [s.races for s in samples], COUNT_GROWTH, COUNT_SLACK),
    ]
    return all(verdicts)


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=30.0, help="how long to hold the load")
    parser.add_argument("--players", type=int, default=400)
    parser.add_argument(
        "--load", type=float, default=0.5, help="share of the saturation to hold (default half)"
    )
    parser.add_argument(
        "--saturation", type=float, help="moves/s at saturation, if known (else measured first)"
    )
    parser.add_argument("--saturation-players", type=int, default=128)
    parser.add_argument("--saturation-seconds", type=float, default=20.0)
    parser.add_argument("--sample-seconds", type=float, default=30.0)
    parser.add_argument("--warmup", type=float, default=20.0, help="seconds before sampling")
    parser.add_argument("--churn", type=float, default=0.05, help="players reconnecting a minute")
    parser.add_argument("--processes", type=int, default=1, help="server processes")
    parser.add_argument("--database-url", help="PostgreSQL server (default: 127.0.0.1:5432)")
    args = parser.parse_args()
    if args.minutes * 60 < 3 * args.sample_seconds:
        args.sample_seconds = args.minutes * 60 / 6  # at least six samples
    random.seed(1)
    print(f"machine: {os.cpu_count()} cores; load average {os.getloadavg()}", flush=True)
    async with (
        postgres(args.database_url) as admin_url,
        temporary_database(admin_url, prefix="solitaire_soak") as database_url,
    ):
        held = await run(args, database_url)
    print(f"machine load average at the end: {os.getloadavg()}")
    return 0 if held else 1


if __name__ == "__main__":
    try:
        import uvloop
    except ImportError:
        sys.exit(asyncio.run(main()))
    else:
        sys.exit(uvloop.run(main()))
