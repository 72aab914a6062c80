"""Engine speed: random legal games per variant, one core.

Prints, per variant, legal-move generations per second and applied moves per second
(each applied move includes generating the legal moves it was chosen from). Random
play restarts a new deal when a game has no legal move or reaches 1,000 moves.

    .venv/bin/python bench/engine.py [--seconds 3]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

# Run as a script, this file's folder comes first on the path and its name would
# shadow the engine package; the repository root goes there instead.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

from engine import VARIANTS, rules_for  # noqa: E402


def run(variant: str, seconds: float) -> tuple[float, float]:
    """Moves applied per second and move generations per second for ``variant``."""
    rules = rules_for(variant)
    rng = random.Random(7)
    applied = generations = 0
    seed = 0
    pos = rules.deal(seed)
    game_moves = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(200):
            moves = rules.legal_moves(pos)
            generations += 1
            if not moves or game_moves >= 1000:
                seed += 1
                pos = rules.deal(seed)
                game_moves = 0
                continue
            pos = rules.apply(pos, moves[rng.randrange(len(moves))])
            applied += 1
            game_moves += 1
        if time.perf_counter() > deadline:
            break
    elapsed = time.perf_counter() - start
    return applied / elapsed, generations / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("variants", nargs="*", default=list(VARIANTS))
    args = parser.parse_args()
    print(f"{'variant':<12} {'moves/s':>10} {'generations/s':>14}")
    for variant in args.variants:
        moves, gens = run(variant, args.seconds)
        print(f"{variant:<12} {moves:>10,.0f} {gens:>14,.0f}")


if __name__ == "__main__":
    main()
