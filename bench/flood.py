"""Flood benchmark: what clients flooding from one address cost the honest players, and
how much of the flood the server serves.

A connection may send 20 messages a second (bursts of 40), and all connections of one
client address together 60 a second (bursts of 120); an address may open 2 connections
a second (bursts of 30) and make 2 guests a minute (bursts of 30) (docs/operations.md,
"Limits"). Past these, a message is refused with ``rate_limited``, 50 refused in a row
close the connection with 1008, a handshake is answered 429, a hello without a token
``too_many_guests``. This runs a real server subprocess (``python -m server``, its
default limits) on a throwaway PostgreSQL database, seats ``--players`` honest players
in races of 8, each from a loopback address of its own (127.0.1.x: Linux routes all of
127/8 to the loopback), who move ``--rate`` times a second (bench/load.py's players),
and measures their acknowledgement latency in phases of ``--duration`` seconds, one
after the other in the same run: quiet ones (no flood) alternating with ``--rounds``
flood phases. In a flood phase ``--flooders`` connections from one other address
(``--flood-address``, 127.0.0.2) flood: each sends ``get_view`` of its own practice game
as ``--flood-rate`` frames a second in all (default 5,000; 0 sends as fast as the
socket takes them), reads what comes back, and whenever it is closed connects again at
once, as a new guest (with an old guest's token once new guests are refused), retrying
a refused handshake every 50 ms. The flooders run in a process of their own at the
lowest CPU priority (``--nice 19``), standing in for an attacker's own machine.

It prints each phase's p50 and p99, the server's CPU, and for each flood phase what the
flooders sent, what was served (every answer that was not a refusal), refused, closed
and reconnected; then the flood's served messages a second against the per-address
rate (the target: at most 2x), and each flood phase's honest p99 against the mean of
the quiet phases before and after it (the machine drifts), and the median of those
ratios (the target: at most 2x).

Usage: ``.venv/bin/python bench/flood.py --players 200 --flooders 8 --duration 15``
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
from websockets.exceptions import ConnectionClosed, InvalidStatus

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

from server.ops.config import ServerConfig

FLOOD_CLOSE = 1008
# The server's default per-address rate (messages a second, server/ops/config.py), which
# this benchmark leaves as it is and holds the flood's served messages to.
ADDRESS_RATE = ServerConfig().address_rate_per_second


def honest_address(index: int) -> str:
    """The loopback address honest player ``index`` connects from (one each)."""
    return f"127.0.{1 + index // 250}.{1 + index % 250}"


class Counts(msgspec.Struct):
    """What the flooders did, reported by their process as one JSON line."""

    sent: int = 0
    refused: int = 0
    answered: int = 0
    closes: int = 0
    reconnects: int = 0
    handshakes_refused: int = 0
    guests: int = 0
    guests_refused: int = 0


async def open_flood(url: str, address: str, counts: Counts) -> ClientConnection:
    """A connection from ``address``, retrying every 50 ms while handshakes are refused."""
    while True:
        try:
            return await connect(url, max_queue=None, ping_interval=None, local_addr=(address, 0))
        except InvalidStatus:
            counts.handshakes_refused += 1
            await asyncio.sleep(0.05)


async def say_hello(websocket: ClientConnection, tokens: list[str], counts: Counts) -> None:
    """Hello as a new guest; once the address may make no more, as an old one."""
    await websocket.send(json.dumps({"type": "hello", "id": 0, "name": "flood"}))
    welcome = json.loads(await websocket.recv())
    if welcome.get("type") == "welcome":
        counts.guests += 1
        tokens.append(welcome["token"])
        return
    if welcome.get("code") == "too_many_guests":
        counts.guests_refused += 1
    if tokens:
        await websocket.send(json.dumps({"type": "hello", "id": 0, "token": tokens[0]}))
        await websocket.recv()


async def flooder(
    url: str, address: str, seconds: float, pace: float | None, counts: Counts, tokens: list[str]
) -> None:
    """One flooding client until ``seconds`` have passed; reconnects whenever closed."""
    deadline = time.perf_counter() + seconds
    game = 1  # another player's, when its own practice request was refused

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

    first = True
    while time.perf_counter() < deadline:
        websocket = await open_flood(url, address, counts)
        if not first:
            counts.reconnects += 1
        first = False
        try:
            await say_hello(websocket, tokens, counts)
            await websocket.send(json.dumps({"type": "practice", "id": 0, "variant": "klondike"}))
            reply = json.loads(await websocket.recv())
            game = reply.get("game", game)
        except ConnectionClosed:
            continue
        frame = json.dumps({"type": "get_view", "id": 1, "game": game})
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


async def flood(
    url: str, address: str, connections: int, seconds: float, rate: float | None
) -> None:
    """The flooders' process: run them all, then print their counts as one JSON line."""
    counts = Counts()
    tokens: list[str] = []
    pace = connections / rate if rate else None  # seconds between one flooder's frames
    await asyncio.gather(
        *(flooder(url, address, seconds, pace, counts, tokens) for _ in range(connections))
    )
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
        # Each honest player a client address of its own, none of them the flooders'.
        players = await seat_players(url, args.players, seed=3, local_address=honest_address)
        drivers: list[Driver] = [partial(paced, p, args.rate) for p in players]
        quiet: list[float] = []
        flooded: list[float] = []
        served_rates: list[float] = []
        phases = ["quiet"] + ["flood", "quiet"] * args.rounds
        for number, phase in enumerate(phases):
            flooders: subprocess.Popen[bytes] | None = None
            if phase == "flood":
                seconds = args.warmup + args.duration + 2
                flood_command = [
                    *(sys.executable, __file__, "--flood-url", url),
                    *("--flood-address", args.flood_address),
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
                seconds = args.warmup + args.duration + 2
                served = counts.answered / seconds
                served_rates.append(served)
                print(
                    f"   flooders: {args.flooders} connections from {args.flood_address} sent "
                    f"{counts.sent:,} frames ({counts.sent / seconds:,.0f}/s); served "
                    f"{counts.answered:,} ({served:,.1f}/s), refused {counts.refused:,}; "
                    f"{counts.closes:,} closed with 1008, {counts.reconnects:,} reconnects, "
                    f"{counts.handshakes_refused:,} handshakes refused (429); "
                    f"{counts.guests:,} guests made, {counts.guests_refused:,} refused",
                    flush=True,
                )
        for player in players:
            await player.websocket.close()
    # What the flood got served, against what one address may have.
    worst = max(served_rates)
    times = worst / ADDRESS_RATE
    print(
        f"flood served at most {worst:,.1f} messages/s in a phase = {times:.2f}x the "
        f"per-address rate ({ADDRESS_RATE:.0f}/s); target at most 2x: "
        f"{'met' if times <= 2 else 'NOT met'}"
    )
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
    parser.add_argument("--flooders", type=int, default=8, help="flooding connections")
    parser.add_argument(
        "--flood-address", default="127.0.0.2", help="the flooders' one client address"
    )
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
        await flood(
            args.flood_url, args.flood_address, args.flooders, args.flood_seconds, args.flood_rate
        )
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
