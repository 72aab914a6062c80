"""Solver figures: decided share, times, speed and the winnable share per variant.

For each variant, solves the deals of seeds ``--first`` .. ``--first + --seeds - 1``
one after another in one process (one core), each with a budget of ``--budget``
seconds and ``--nodes`` positions, replays every win through the engine (a win that
does not replay stops the run), and prints:

- won / unwinnable / unknown counts; decided = won + unwinnable, within the budget;
- median and 95th-percentile time per deal, and positions searched per second;
- the winnable share with its Wilson 95% interval, taken over the decided deals,
  and the bounds it must lie within when every unknown deal is counted either way.

Klondike's default rules are the ones Solvitaire assumes (no pass limit, cards may
come back from the foundations), so its published shares stand next to ours:
81.9% for draw 3 and about 90.5% for draw 1.

    .venv/bin/python bench/solver.py --seeds 200 --budget 10 klondike klondike-3
    .venv/bin/python bench/solver.py --seeds 1000 --budget 2 --jobs 2 klondike
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

# Run as a script, this file's folder comes first on the path and its name would
# shadow the engine package; the repository root goes there instead.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

from engine import VARIANTS, rules_for  # noqa: E402
from engine.solver import Verdict, solve  # noqa: E402

PUBLISHED = {
    "klondike": "Solvitaire: ~90.5% winnable; 93% decided in 10 s, median 4 ms",
    "klondike-3": "Solvitaire: 81.9% winnable; 94% decided in 10 s, median 4 ms",
    "spider-4": "Solvitaire: 31% of 4-suit deals decided in 10 s",
    "yukon": "KPat: 90% of Yukon deals decided within 55 s",
}


def solve_seed(variant: str, seed: int, budget: float, nodes: int) -> tuple[str, float, int]:
    """Solve one deal; a win is replayed through the engine before it counts."""
    rules = rules_for(variant)
    start = rules.deal(seed)
    result = solve(rules, start, max_nodes=nodes, max_seconds=budget)
    if result.verdict is Verdict.WON:
        pos = start
        for move in result.moves:
            if move not in rules.legal_moves(pos):
                raise SystemExit(f"{variant} seed {seed}: {move} is illegal in the solution")
            pos = rules.apply(pos, move)
        if not rules.is_won(pos):
            raise SystemExit(f"{variant} seed {seed}: the solution does not win")
    return result.verdict.value, result.seconds, result.nodes


def wilson(successes: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a share (95% for z = 1.96)."""
    if total == 0:
        return 0.0, 1.0
    p = successes / total
    denominator = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denominator
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def run(variant: str, seeds: range, budget: float, nodes: int, jobs: int) -> None:
    began = time.perf_counter()
    args = [(variant, seed, budget, nodes) for seed in seeds]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            results = list(pool.map(solve_seed, *zip(*args, strict=True), chunksize=4))
    else:
        results = [solve_seed(*a) for a in args]
    wall = time.perf_counter() - began
    counts = {v.value: 0 for v in Verdict}
    for verdict, _, _ in results:
        counts[verdict] += 1
    total = len(results)
    times = sorted(seconds for _, seconds, _ in results)
    searched = sum(n for _, _, n in results)
    decided = counts["won"] + counts["unwinnable"]
    low, high = wilson(counts["won"], decided)
    p95 = times[min(total - 1, math.ceil(0.95 * total) - 1)]
    print(
        f"{variant}: seeds {seeds.start}..{seeds.stop - 1}, budget {budget:g} s / {nodes:,} nodes"
    )
    print(
        f"  won {counts['won']}, unwinnable {counts['unwinnable']}, unknown {counts['unknown']}; "
        f"decided {decided}/{total} = {decided / total:.1%}"
    )
    print(
        f"  time per deal: median {statistics.median(times) * 1000:.0f} ms, "
        f"p95 {p95 * 1000:.0f} ms; {searched / sum(times):,.0f} positions/s; wall {wall:.0f} s"
    )
    print(
        f"  winnable among decided: {counts['won'] / max(decided, 1):.1%} "
        f"(Wilson 95%: {low:.1%}..{high:.1%}); all deals: between "
        f"{counts['won'] / total:.1%} and {(counts['won'] + counts['unknown']) / total:.1%}"
    )
    if variant in PUBLISHED:
        print(f"  reference: {PUBLISHED[variant]}")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=200, help="deals per variant")
    parser.add_argument("--first", type=int, default=0, help="first seed")
    parser.add_argument("--budget", type=float, default=10.0, help="seconds per deal")
    parser.add_argument("--nodes", type=int, default=10**9, help="positions per deal")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("variants", nargs="*", default=list(VARIANTS))
    args = parser.parse_args()
    for variant in args.variants:
        run(variant, range(args.first, args.first + args.seeds), args.budget, args.nodes, args.jobs)


if __name__ == "__main__":
    main()
