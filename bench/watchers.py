"""What watchers cost the server: its CPU per race event with 0 and with 100 watchers.

One server process (``python -m server``, one progress event per move:
``progress_interval_ms=0``) on a throwaway database. In each phase a new ranked race of
two is created and one player draws from the stock ``--moves`` times, one move after the
other: each move is one ``progress`` event. The phases differ only in who watches:

- **0 watchers**: nobody but the racers.
- **N watchers** (``--watchers``, 100): N clients ``watch_race`` it: each event goes into
  the race's delay buffer (``--delay-ms``, 1000 here instead of 15 s, so a run is short)
  and, once due, the same bytes to all N.
- **N watchers of a board**: the same, each also watching the drawing racer's board:
  the board is rebuilt once per change and sent to all N.

Printed per phase: the server process's CPU (user + system, from /proc, with its solver
worker) per event, and for the watched phases what each watcher adds per event. The
clients share the machine's cores with the server; its CPU is its own.

Usage: ``.venv/bin/python bench/watchers.py --moves 300 --watchers 100``
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "server"))
sys.path.insert(0, str(ROOT / "bench"))

from arena_client import Client  # noqa: E402
from load import ProcessStats  # noqa: E402
from server_process import free_port, open_client, server_process, wait_healthy  # noqa: E402

from server.store.database import (  # noqa: E402
    LOCAL_SERVER_URL,
    locate_postgres,
    temporary_database,
)


async def until_seq(client: Client, race: int, seq: int) -> None:
    """Read until the client has the race's event ``seq`` (keeping none of them)."""
    while True:
        message = await client.receive(timeout=60)
        client.received.clear()
        client.events.clear()
        if message["type"] == "event" and message["race"] == race and message["seq"] >= seq:
            return


async def phase(
    port: int, stats: ProcessStats, watchers: list[Client], board: bool, moves: int
) -> float:
    """CPU seconds of the server per event of one race drawn ``moves`` times."""
    ann = await open_client(port, name="Ann")
    bob = await open_client(port, name="Bob")
    created = (await ann.ok("create_race", variant="klondike", countdown_s=0))["race"]
    race, game = created["race"], created["your_game"]
    await bob.ok("join_race", race=race)
    await ann.ok("start_race", race=race)
    player = ann.welcome["player"]["id"]
    for watcher in watchers:
        await watcher.ok("watch_race", race=race, **({"player": player} if board else {}))
    first = (await ann.ok("get_race", race=race))["race"]["seq"]
    await asyncio.sleep(1.5)  # the start's events reach the watchers before the count
    for watcher in watchers:
        watcher.received.clear()
        watcher.events.clear()
    before = stats.cpu_seconds()
    for _ in range(moves):
        await ann.ok("move", game=game, text="d")
    last = first + moves
    await asyncio.gather(*(until_seq(w, race, last) for w in watchers))
    if board:
        await asyncio.sleep(0.5)  # the last board follows its event
    spent = stats.cpu_seconds() - before
    for watcher in watchers:
        await watcher.ok("unwatch_race", race=race)
    await ann.close()
    await bob.close()
    return spent / moves


async def run(args: argparse.Namespace) -> None:
    url = os.environ.get("SOLITAIRE_DATABASE_URL") or None
    with tempfile.TemporaryDirectory(prefix="solitaire-watchers-") as folder:
        location = await locate_postgres(url, LOCAL_SERVER_URL, Path(folder) / "pg")
        try:
            async with temporary_database(location.admin_url, "solitaire_watchers") as database:
                port = free_port()
                settings = {
                    "progress_interval_ms": "0",
                    "watch_delay_ms": str(args.delay_ms),
                    "rate_per_second": "100000",
                }
                with server_process(
                    database, port, Path(folder) / "server.log", **settings
                ) as proc:
                    await wait_healthy(port)
                    stats = ProcessStats(proc.pid)
                    crowd = [await open_client(port, name=f"W{n}") for n in range(args.watchers)]
                    alone = await phase(port, stats, [], False, args.moves)
                    watched = await phase(port, stats, crowd, False, args.moves)
                    boards = await phase(port, stats, crowd, True, args.moves)
                    n = args.watchers
                    print(
                        f"events per phase: {args.moves} (one per move), delay {args.delay_ms} ms"
                    )
                    print(f"0 watchers: {alone * 1e6:.0f} µs server CPU per event")
                    print(
                        f"{n} watchers: {watched * 1e6:.0f} µs per event, "
                        f"{(watched - alone) / n * 1e6:.1f} µs per watcher and event"
                    )
                    print(
                        f"{n} watchers of a board: {boards * 1e6:.0f} µs per event, "
                        f"{(boards - alone) / n * 1e6:.1f} µs per watcher and event"
                    )
                    for client in crowd:
                        await client.close()
        finally:
            if location.embedded is not None:
                location.embedded.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=300)
    parser.add_argument("--watchers", type=int, default=100)
    parser.add_argument("--delay-ms", type=int, default=1000)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
