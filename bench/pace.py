"""What the pace alone does to the price of the same Python work on this machine.

A race server's process meets a move about every millisecond, each on its own: the
process wakes, does one move's work and sleeps again. bench/load.py finds a move in
that steady phase costing about twice what it costs at saturation, where the process
never sleeps. This takes the server out of the question: it does one fixed piece of
work (a random legal Klondike move, the player's view and its JSON, all in memory; no
sockets, no database, no server code) for each of 500 games

1. back to back, as fast as it goes (the median of five passes), and
2. paced: 500 asyncio tasks, each doing it ``--rate`` times a second at its own
   phase (1,000 a second with the defaults, one server process's steady pace), less
   the same tasks waking without doing it,

and prints the process's CPU per piece of work both ways. Their ratio is the price of
the pace on this machine, which no change to the server's code removes.

Usage: ``.venv/bin/python bench/pace.py [--seconds 8] [--rounds 2]``
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)

import msgspec  # noqa: E402

from engine.game import Game, new_game  # noqa: E402

GAMES = 500
BACK_TO_BACK_PASSES = 5  # each a tenth of a second or so: their median
WARMUP = 1.0  # seconds of paced work before measuring
GAME_MOVES = 300  # a game is dealt again after this many moves, as bench/load.py's players do


class Work:
    """One move in one of ``GAMES`` Klondike games, its view encoded as JSON."""

    def __init__(self, seed: int) -> None:
        """The same ``seed``, the same deals and the same moves."""
        self.rng = random.Random(seed)
        self.games = [new_game("klondike", seed + i) for i in range(GAMES)]
        self.encoder = msgspec.json.Encoder()

    def __call__(self, index: int) -> bytes:
        game = self.games[index]
        legal = game.legal_list()
        if not legal or len(game.moves) >= GAME_MOVES:
            game = self.games[index] = self.deal()
            legal = game.legal_list()
        game.play(self.rng.choice(legal))
        return self.encoder.encode(game.view())

    def deal(self) -> Game:
        return new_game("klondike", self.rng.randrange(2**31))


def back_to_back(work: Work, warmup: int, rounds: int) -> float:
    """CPU µs per piece of work, done for every game in turn ``rounds`` times in a row
    after ``warmup`` times unmeasured: the games go as deep as the paced ones."""
    for n in range(warmup * GAMES):
        work(n % GAMES)
    started = time.process_time()
    for n in range(rounds * GAMES):
        work(n % GAMES)
    return (time.process_time() - started) / (rounds * GAMES) * 1e6


async def paced(work: Work | None, rate: float, seconds: float, rng: random.Random) -> float:
    """CPU µs per wake-up of ``GAMES`` tasks waking ``rate`` times a second each, doing
    ``work`` each time (or nothing), measured for ``seconds`` after ``WARMUP`` seconds."""
    interval = 1.0 / rate
    done = 0
    stop = asyncio.Event()

    async def task(index: int) -> None:
        nonlocal done
        due = time.perf_counter() + rng.random() * interval
        while not stop.is_set():
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            due += interval
            if work is not None:
                work(index)
            done += 1

    tasks = [asyncio.create_task(task(i)) for i in range(GAMES)]
    await asyncio.sleep(WARMUP)
    cpu, before = time.process_time(), done
    await asyncio.sleep(seconds)
    cpu, woken = time.process_time() - cpu, done - before
    stop.set()
    await asyncio.gather(*tasks)
    return cpu / max(1, woken) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=float, default=2.0, help="times a second per game")
    parser.add_argument("--seconds", type=float, default=8.0, help="seconds measured, paced")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    import uvloop  # the server's event loop

    rng = random.Random(args.seed)
    print(f"{GAMES} Klondike games; paced: {GAMES * args.rate:,.0f} pieces of work a second")
    for round_number in range(1, args.rounds + 1):
        # Each from the same deals, the games as deep at the end.
        warmup, measured = round(WARMUP * args.rate), round(args.seconds * args.rate)
        flat = statistics.median(
            back_to_back(Work(args.seed), warmup, measured) for _ in range(BACK_TO_BACK_PASSES)
        )
        empty = uvloop.run(paced(None, args.rate, args.seconds, rng))
        full = uvloop.run(paced(Work(args.seed), args.rate, args.seconds, rng))
        print(
            f"  round {round_number}: back to back {flat:.1f} µs CPU a move; paced "
            f"{full - empty:.1f} µs ({full:.1f} with the wake-up, {empty:.1f} without the "
            f"work): {(full - empty) / flat:.1f}× the price"
        )


if __name__ == "__main__":
    main()
