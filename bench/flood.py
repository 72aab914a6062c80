"""Flood benchmark: what clients flooding past the rate limit cost the honest players.

A connection may send 20 messages a second (bursts of 40); past that each message is
refused with ``rate_limited``, and 50 refused in a row close the connection with 1008
(docs/protocol.md, "Limits and close codes"). This runs a real server subprocess
(``python -m server``, its default limits) on a throwaway PostgreSQL database, seats
``--players`` honest players in races of 8 who move ``--rate`` times a second (well
within the limit; bench/load.py's players), and measures their acknowledgement
latency in phases of ``--duration`` seconds, one after the other in the same run:
quiet ones (no flood) alternating with ``--rounds`` flood phases, in which
``--flooders`` connections flood: each sends ``get_view`` of its own practice game as
``--flood-rate`` frames a second in all (default 5,000: 250 a second each, 12 times the
limit; 0 sends as fast as the socket takes them), reads what comes back, and once
closed for flooding connects again with its token and goes on. The flooders run in a
process of their own at the lowest CPU priority (``--nice 19``), standing in for an
attacker's own machine: their client work would otherwise take a whole core of the two
here, and the server would wait for a core (printed) more than for anything the flood
makes it do.

It prints each phase's p50 and p99, the server's CPU, the frames the flooders sent and
had refused and the 1008 closes, then each flood phase's p99 against the mean of the
quiet phases before and after it (the machine drifts), and the median of those ratios
(the target: at most 2x).

Usage: ``.venv/bin/python bench/flood.py --players 200 --flooders 20 --duration 15``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import msgspec
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

sys.path.insert(0, str(Path(__file__).resolve().parent))

from load import (
    Driver,
    ProcessStats,
    free_port,
    measure,
    paced,
    percentile,
    postgres,
    seat_players,
    subprocess_running,
    temporary_database,
    wait_for_port,
)

FLOOD_CLOSE = 1008


class Counts(msgspec.Struct):
    """What the flooders did, reported by their process as one JSON line."""

    sent: int = 0
    refused: int = 0
    answered: int = 0
    closes: int = 0
    reconnects: int = 0


async def flooder(url: str, seconds: float, pace: float | None, counts: Counts) -> None:
    """One flooding client until ``seconds`` have passed; reconnects when closed."""
    deadline = time.perf_counter() + seconds
    websocket = await connect(url, max_queue=None, ping_interval=None)
    await websocket.send(json.dumps({"type": "hello", "id": 0, "name": "flood"}))
    welcome = json.loads(await websocket.recv())
    token = welcome["token"]
    await websocket.send(json.dumps({"type": "practice", "id": 0, "variant": "klondike"}))
    game = json.loads(await websocket.recv())["game"]
    frame = json.dumps({"type": "get_view", "id": 1, "game": game})

    async def drain(websocket: ClientConnection) -> None:
        with_refusal = b'"code":"rate_limited"'
        try:
            async for message in websocket:
                data = message.encode() if isinstance(message, str) else message
                if with_refusal in data:
                    counts.refused += 1
                else:
                    counts.answered += 1
        except ConnectionClosed:
            pass

    while time.perf_counter() < deadline:
        reading = asyncio.create_task(drain(websocket))
        try:
            while time.perf_counter() < deadline:
                await websocket.send(frame)
                counts.sent += 1
                if pace is not None:
                    await asyncio.sleep(pace)
                elif counts.sent % 64 == 0:
                    await asyncio.sleep(0)  # let the reader run
        except ConnectionClosed as closed:
            if closed.rcvd is not None and closed.rcvd.code == FLOOD_CLOSE:
                counts.closes += 1
        else:
            await websocket.close()  # time is up
        await reading
        if time.perf_counter() >= deadline:
            break
        websocket = await connect(url, max_queue=None, ping_interval=None)
        await websocket.send(json.dumps({"type": "hello", "id": 0, "token": token}))
        await websocket.recv()
        counts.reconnects += 1
    await websocket.close()


async def flood(url: str, connections: int, seconds: float, rate: float | None) -> None:
    """The flooders' process: run them all, then print their counts as one JSON line."""
    counts = Counts()
    pace = connections / rate if rate else None  # seconds between one flooder's frames
    await asyncio.gather(*(flooder(url, seconds, pace, counts) for _ in range(connections)))
    print(msgspec.json.encode(counts).decode(), flush=True)


async def run(args: argparse.Namespace, database_url: str) -> None:
    port = free_port()
    env = {
        **os.environ,
        "SOLITAIRE_DATABASE_URL": database_url,
        "SOLITAIRE_LOG_JSON": "1",
        "SOLITAIRE_DAILY_PREPARE_AHEAD": "0",
    }
    command = [
        *(sys.executable, "-m", "server", "--port", str(port)),
        *("--processes", str(args.processes)),
    ]
    url = f"ws://127.0.0.1:{port}/"
    with subprocess_running("flood-server", command, env) as pid:
        await wait_for_port(port)
        stats = ProcessStats(pid)
        players = await seat_players(url, args.players, seed=3)
        drivers: list[Driver] = [partial(paced, p, args.rate) for p in players]
        quiet: list[float] = []
        flooded: list[float] = []
        phases = ["quiet"] + ["flood", "quiet"] * args.rounds
        for number, phase in enumerate(phases):
            flooders: subprocess.Popen[bytes] | None = None
            if phase == "flood":
                seconds = args.warmup + args.duration + 2
                flood_command = [
                    *(sys.executable, __file__, "--flood-url", url),
                    *("--flooders", str(args.flooders), "--flood-seconds", str(seconds)),
                    *(("--flood-rate", str(args.flood_rate)) if args.flood_rate > 0 else ()),
                ]
                # Niced: the flooders stand in for an attacker's own machine, so they
                # take only the CPU the server and the honest players leave.
                flooders = subprocess.Popen(
                    flood_command, stdout=subprocess.PIPE, preexec_fn=lambda: os.nice(args.nice)
                )
            tally, elapsed, cpu = await measure(drivers, args.warmup, args.duration, stats)
            p99 = percentile(tally.latencies, 0.99) * 1000
            (flooded if phase == "flood" else quiet).append(p99)
            print(
                f"{number + 1}. {phase:<5}: honest acks/s {tally.acks / elapsed:,.0f}, "
                f"p50 {percentile(tally.latencies, 0.5) * 1000:.1f} ms, p99 {p99:.1f} ms, "
                f"max {max(tally.latencies, default=0) * 1000:.1f} ms; "
                f"server CPU {cpu / elapsed * 100:.0f}% of one core, waiting for a core "
                f"{tally.server_waiting / elapsed * 100:.0f}% of the time; "
                f"load average {os.getloadavg()[0]:.1f}; errors {tally.errors or 'none'}",
                flush=True,
            )
            if flooders is not None:
                out, _ = await asyncio.to_thread(flooders.communicate, timeout=120)
                counts = msgspec.json.decode(out.splitlines()[-1], type=Counts)
                seconds = args.warmup + args.duration
                print(
                    f"   flooders: {args.flooders} connections sent {counts.sent:,} frames "
                    f"({counts.sent / seconds:,.0f}/s), {counts.refused:,} refused, "
                    f"{counts.answered:,} answered, {counts.closes:,} closed with 1008, "
                    f"{counts.reconnects:,} reconnects",
                    flush=True,
                )
        for player in players:
            await player.websocket.close()
    # Each flood phase against the quiet phases before and after it: the machine drifts.
    ratios = [flood / ((quiet[i] + quiet[i + 1]) / 2) for i, flood in enumerate(flooded)]
    ratio = statistics.median(ratios)
    each = ", ".join(f"{r:.2f}" for r in ratios)
    verdict = "met" if ratio <= 2 else "NOT met"
    print(
        f"honest p99 with the flood ÷ without (each flood phase against the quiet phases "
        f"around it): median {ratio:.2f}x of {len(ratios)} ({each}); target at most 2x: {verdict}"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200, help="honest players")
    parser.add_argument("--rate", type=float, default=2.0, help="honest moves/s per player")
    parser.add_argument("--flooders", type=int, default=20, help="flooding connections")
    parser.add_argument(
        "--flood-rate",
        type=float,
        default=5000.0,
        help="frames/s of all flooders together (12x the limit each by default; 0: flat out)",
    )
    parser.add_argument("--duration", type=float, default=15.0, help="seconds measured a phase")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds before measuring")
    parser.add_argument(
        "--nice", type=int, default=19, help="the flooders' CPU niceness (0: as the server's)"
    )
    parser.add_argument("--rounds", type=int, default=3, help="flood phases, between quiet ones")
    parser.add_argument("--processes", type=int, default=1, help="server processes")
    parser.add_argument("--database-url", help="PostgreSQL server (default: 127.0.0.1:5432)")
    parser.add_argument("--flood-url", help=argparse.SUPPRESS)  # the flooders' own process
    parser.add_argument("--flood-seconds", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.flood_url:
        await flood(args.flood_url, args.flooders, args.flood_seconds, args.flood_rate)
        return
    print(f"machine: {os.cpu_count()} cores; load average {os.getloadavg()}", flush=True)
    async with (
        postgres(args.database_url) as admin_url,
        temporary_database(admin_url, prefix="solitaire_flood") as database_url,
    ):
        await run(args, database_url)


if __name__ == "__main__":
    try:
        import uvloop
    except ImportError:
        asyncio.run(main())
    else:
        uvloop.run(main())
