"""How well the solver's work on a deal predicts how often players win it.

For ``--deals`` deals of a variant (seeds ``--first`` onward, Klondike by default), the
solver searches each deal once, as the server does for a daily deal, and the estimate of
server/core/deals.py is computed from its work. Then ``--players`` simulated players of
varying skill play every deal: each move is the engine's hint (a safe foundation move,
a move that turns a card up, a card from the waste, a draw, …) with the player's skill
as its probability, else a random legal move; a game ends won, with no hint left, after
``--max-moves``, or when nothing has changed on the foundations and face-down cards for
a full turn of the stock and more. Skills spread evenly from ``--weakest`` to
``--strongest``.

It prints, over the deals the solver decided (and, apart, the proven-unwinnable ones):

- the Spearman rank correlation of the estimate, and of each of the solver's figures
  on their own (positions searched, solution length), with the share of players who
  lose the deal (a better estimate correlates more);
- the simulated win share per band of the estimate's first rating (easy, medium, hard).

    .venv/bin/python bench/deal_difficulty.py                     # 600 deals, ~2 minutes
    .venv/bin/python bench/deal_difficulty.py --deals 1000 --players 40 --jobs 2
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

# Run as a script, this file's folder comes first on the path and its name would
# shadow the engine package; the repository root goes there instead.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import engine  # noqa: E402
from bench.ratings import spearman  # noqa: E402
from engine.notation import hint_move  # noqa: E402
from engine.solver import Verdict, solve  # noqa: E402
from server.core import deals  # noqa: E402


@dataclass(frozen=True)
class Deal:
    """One deal: the solver's work and the simulated players' results."""

    seed: int
    verdict: str
    nodes: int
    solution_length: int
    wins: int
    games: int

    @property
    def estimate(self) -> float:
        return deals.estimate(self.verdict, self.nodes)

    @property
    def loss_share(self) -> float:
        return 1 - self.wins / self.games


def play(variant: str, seed: int, skill: float, rng: random.Random, max_moves: int) -> bool:
    """One simulated player's game: the hint with probability ``skill``, else any move."""
    game = engine.new_game(variant, seed=seed)
    rules, position = game.rules, game.position
    quiet = 0
    for _ in range(max_moves):
        if rules.is_won(position):
            return True
        legal = rules.legal_moves(position)
        if not legal:
            return False
        move = hint_move(rules, position) if rng.random() < skill else rng.choice(legal)
        if move is None:
            return False
        before = (rules.foundation_cards(position), sum(position.down))
        position = rules.apply(position, move)
        changed = (rules.foundation_cards(position), sum(position.down)) != before
        quiet = 0 if changed else quiet + 1
        if quiet > 2 * (len(position.stock) + len(position.waste)) + 30:
            return False
    return rules.is_won(position)


def measure(variant: str, seed: int, skills: list[float], budget: float, max_moves: int) -> Deal:
    """The solver's work on one deal, then every simulated player's game of it."""
    rules = engine.rules_for(variant)
    result = solve(rules, rules.deal(seed), max_seconds=budget)
    verdict = {Verdict.WON: "winnable", Verdict.UNWINNABLE: "lost"}.get(result.verdict, "unknown")
    rng = random.Random(seed)
    wins = sum(play(variant, seed, skill, rng, max_moves) for skill in skills)
    return Deal(seed, verdict, result.nodes, len(result.moves), wins, len(skills))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="klondike")
    parser.add_argument("--deals", type=int, default=600)
    parser.add_argument("--first", type=int, default=1001, help="first seed (the fit used 1..600)")
    parser.add_argument("--players", type=int, default=24)
    parser.add_argument("--weakest", type=float, default=0.6)
    parser.add_argument("--strongest", type=float, default=1.0)
    parser.add_argument("--budget", type=float, default=1.0, help="solver seconds per deal")
    parser.add_argument("--max-moves", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()

    step = (args.strongest - args.weakest) / max(1, args.players - 1)
    skills = [args.weakest + i * step for i in range(args.players)]
    seeds = range(args.first, args.first + args.deals)
    with ProcessPoolExecutor(args.jobs) as pool:
        measured = list(
            pool.map(
                measure,
                [args.variant] * len(seeds),
                seeds,
                [skills] * len(seeds),
                [args.budget] * len(seeds),
                [args.max_moves] * len(seeds),
            )
        )
    won = [d for d in measured if d.verdict == "winnable"]
    lost = [d for d in measured if d.verdict == "lost"]
    print(
        f"{args.variant}: {len(measured)} deals (seeds {seeds.start}..{seeds.stop - 1}), "
        f"{args.players} players of skill {args.weakest}..{args.strongest}, solver "
        f"{args.budget} s: {len(won)} winnable, {len(lost)} lost, "
        f"{len(measured) - len(won) - len(lost)} unknown"
    )
    overall = sum(d.wins for d in measured) / sum(d.games for d in measured)
    print(f"simulated win share over all deals: {overall:.1%}")
    if lost:
        share = sum(d.wins for d in lost) / sum(d.games for d in lost)
        print(f"  on proven-lost deals: {share:.1%} (must be 0)")
    decided = won + lost
    print("Spearman with the share of players who lose the deal:")
    for label, chosen in ((f"{len(decided)} decided", decided), (f"{len(won)} winnable", won)):
        losses = [d.loss_share for d in chosen]
        figures = {
            "estimate (server/core/deals.py)": [d.estimate for d in chosen],
            "log positions searched": [math.log1p(d.nodes) for d in chosen],
            "solution length": [float(d.solution_length) for d in chosen],
        }
        for name, values in figures.items():
            print(f"  {label:<14} {name:<33} {spearman(values, losses):+.3f}")
    print("simulated win share by first rating's band (winnable deals):")
    for band in ("easy", "medium", "hard"):
        chosen = [d for d in won if deals.band(deals.prior(d.estimate)) == band]
        if chosen:
            share = statistics.fmean(1 - d.loss_share for d in chosen)
            print(f"  {band:<7} {len(chosen):>5} deals, win share {share:.1%}")


if __name__ == "__main__":
    main()
