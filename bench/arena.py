"""The race server's arena without sockets: CPU per move of the rules, the races and the
group commit, in one process.

``bench/load.py`` measures the whole server, where websockets and the machine's other
processes move the figure by ±10% from one run to the next. This drives the server's
services (``build_services``) directly, as a connection would, with players who each play
random legal moves in a Klondike race of their own (given up after ``--game-moves``
moves, then a new race), against a throwaway database of the local PostgreSQL. It prints
moves per second and this process's CPU per move, measured in windows, and the process's
memory: a change to the arena, the engine or the commit shows here with less noise.

With ``--race-size 8 --rate 2`` the players start in races of eight (their progress
built and stored as in a live race, sent to no socket) and each moves twice a second,
as one server process's players do in bench/load.py's steady phase: what the services
cost at that pace, without the sockets (the pacing's own wake-ups included).

Usage: ``.venv/bin/python bench/arena.py --players 128 --seconds 8 --windows 3``
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import load  # bench/load.py: the benchmarks' PostgreSQL

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from server import protocol as p  # noqa: E402
from server.core.identity import Principal  # noqa: E402
from server.ops.config import ServerConfig  # noqa: E402
from server.ops.logs import configure_logging  # noqa: E402
from server.ops.metrics import Metrics  # noqa: E402
from server.services.wiring import Services, build_services  # noqa: E402
from server.store.commit import GroupCommitter  # noqa: E402
from server.store.database import temporary_database  # noqa: E402
from server.store.migrations import migrate  # noqa: E402
from server.store.pool import open_pool  # noqa: E402
from server.store.storage import Storage  # noqa: E402
from server.transport.app import tune_garbage_collector  # noqa: E402


class Player:
    """A player moving as fast as the arena answers, or ``rate`` times a second; in a
    race of ``--race-size`` first, then in races of one."""

    def __init__(
        self,
        arena: Services,
        who: Principal,
        rng: random.Random,
        game_moves: int,
        rate: float | None,
    ) -> None:
        self.arena, self.who, self.rng, self.game_moves = arena, who, rng, game_moves
        self.interval = None if rate is None else 1.0 / rate
        self.requests = 0
        self.moves = 0
        self.game: int | None = None  # its first race's game, when seated by another

    def next_id(self) -> int:
        self.requests += 1
        return self.requests

    async def new_race(self, others: Sequence[Player] = ()) -> int:
        """A started Klondike race with this player and ``others`` in it; this
        player's game (the others' are set on them)."""
        create = p.CreateRace(
            id=self.next_id(),
            variant="klondike",
            max_players=1 + len(others),
            countdown_s=0,
            require_winnable=False,
        )
        created = await self.arena.races.create(self.who, create, None)
        race = created.race.race
        for other in others:
            joined = await self.arena.races.join(
                other.who, p.JoinRace(id=other.next_id(), race=race), None
            )
            other.game = joined.race.your_game
        await self.arena.races.start(self.who, p.StartRace(id=self.next_id(), race=race))
        game = created.race.your_game
        assert game is not None
        return game

    async def play(self, stop: asyncio.Event) -> None:
        game = self.game if self.game is not None else await self.new_race()
        legal, played = ["d"], 0
        due = time.perf_counter() + self.rng.random() * (self.interval or 0.0)
        while not stop.is_set():
            if self.interval is not None:
                await asyncio.sleep(max(0.0, due - time.perf_counter()))
                due += self.interval
            text = self.rng.choice(legal)
            move = p.Move(id=self.next_id(), game=game, text=text, move_id=f"{self.requests}")
            view = (await self.arena.play.move(self.who, move, None)).view
            self.moves += 1
            played += 1
            legal = [m for moves in view["legal_moves"].values() for m in moves] or ["d"]
            if view["outcome"] is not None or played >= self.game_moves:
                if view["outcome"] != "won":
                    await self.arena.play.resign(self.who, p.Resign(id=self.next_id(), game=game))
                game, legal, played = await self.new_race(), ["d"], 0


def rss_mib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024
    return 0


async def run(args: argparse.Namespace, url: str) -> None:
    await migrate(url)
    async with open_pool(url, 8) as pool:
        metrics = Metrics()
        committer = GroupCommitter(pool, metrics)
        commits = asyncio.create_task(committer.run())
        arena = build_services(
            Storage(pool), committer, metrics, ServerConfig(daily_prepare_ahead=False)
        )
        tune_garbage_collector()  # as the server does
        rng = random.Random(args.seed)
        players = [
            Player(
                arena,
                await arena.storage.create_guest(f"p{i}", "en"),
                rng,
                args.game_moves,
                args.rate,
            )
            for i in range(args.players)
        ]
        # Races of eight need the clock that sends their waiting progress, as the
        # server runs it (server/transport/app.py); races of one are measured without.
        if args.race_size > 1:
            races = [asyncio.create_task(work) for work in arena.race_tasks().values()]
        else:
            races = []
        if races:
            for start in range(0, len(players), args.race_size):
                group = players[start : start + args.race_size]
                group[0].game = await group[0].new_race(group[1:])
        stop = asyncio.Event()
        tasks = [asyncio.create_task(player.play(stop)) for player in players]
        await asyncio.sleep(args.warmup)
        for window in range(1, args.windows + 1):
            moves = sum(player.moves for player in players)
            cpu, started = time.process_time(), time.perf_counter()
            await asyncio.sleep(args.seconds)
            moves = sum(player.moves for player in players) - moves
            cpu, elapsed = time.process_time() - cpu, time.perf_counter() - started
            print(
                f"window {window}: {moves / elapsed:,.0f} moves/s, "
                f"{cpu / max(1, moves) * 1e6:.1f} µs CPU per move, {rss_mib()} MiB, "
                f"{len(arena.hosting.rooms)} races in memory",
                flush=True,
            )
        stop.set()
        await asyncio.gather(*tasks)
        for task in races:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        committer.close()
        await commits
        await arena.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=128)
    parser.add_argument("--seconds", type=float, default=8.0, help="length of a window")
    parser.add_argument("--windows", type=int, default=3)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--game-moves", type=int, default=300, help="moves before giving up")
    parser.add_argument(
        "--race-size",
        type=int,
        default=1,
        help="players in each player's first race (its progress built, stored, sent to none)",
    )
    parser.add_argument(
        "--rate", type=float, default=None, help="moves a second per player (default: flat out)"
    )
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    configure_logging(level=logging.WARNING)  # no line for each race created
    print(f"machine: {os.cpu_count()} cores; python {sys.version.split()[0]}")
    async with (
        load.postgres() as admin_url,
        temporary_database(admin_url, prefix="solitaire_bench_arena") as url,
    ):
        await run(args, url)


if __name__ == "__main__":
    import uvloop

    uvloop.run(main())
