"""Which rating model to use for races: each one rates the same simulated population.

A population of ``--players`` players, each with a hidden skill drawn from a normal
distribution, plays ``--races`` rounds; in each round every player is put in one race
of 2 to 8 players (sizes drawn uniformly, players shuffled). A race's finishing order
is each player's skill plus Gaussian noise (``--noise``, in units of the skill's
spread), sorted: the better player usually, not always, finishes ahead. Every model
sees exactly the same races, in the same order:

- openskill's PlackettLuce, ThurstoneMostellerFull and BradleyTerryFull, with their
  defaults (µ 25, σ 25/3, β 25/6, τ 25/300), rating each race at once;
- pairwise Elo: a race of k players is k(k−1)/2 games, each player's K (32 on the
  400-point scale) shared over their k−1 games, applied together after the race.

After 10, 30 and 100 races per player (the checkpoints that fit ``--races``) it prints,
per model:

- **pairs**: the share of pairwise orders in ``--held-out`` new races (never rated)
  that the ratings predict (the better-rated player ahead; an equal rating counts half),
  next to what the hidden skills themselves predict (the best any model can do);
- **spearman**: the rank correlation of the ratings with the hidden skills;
- **σ median**: for the openskill models, the median σ; **prov.**: for the chosen
  model (Plackett–Luce), the share of players still provisional (σ at or above the
  threshold of server/core/ratings.py).

Last, the microseconds per rating update of one race of 8 (the median of
``--timing-rounds`` rounds of 200 updates each).

    .venv/bin/python bench/ratings.py              # 10,000 players, noise 1 and 2: ~2 minutes
    .venv/bin/python bench/ratings.py --players 2000 --races 30
    .venv/bin/python bench/ratings.py --players 20000 --races 100 --noise 1.5 --seed 7
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

# Run as a script, this file's folder comes first on the path and its name would
# shadow the server package; the repository root goes there instead.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

from openskill.models import (  # noqa: E402
    BradleyTerryFull,
    PlackettLuce,
    ThurstoneMostellerFull,
)

from server.core.ratings import PROVISIONAL_SIGMA  # noqa: E402

CHECKPOINTS = (10, 30, 100)


class Model(Protocol):
    """A rating model over players 0..n-1."""

    name: str

    def rate(self, race: Sequence[int], places: Sequence[int]) -> None: ...

    def score(self, player: int) -> float: ...

    def sigma(self, player: int) -> float | None: ...


class OpenSkill:
    """One of openskill's models, with its defaults."""

    def __init__(self, name: str, model: Any, players: int) -> None:
        self.name = name
        self.model = model
        self.ratings = [model.rating() for _ in range(players)]

    def rate(self, race: Sequence[int], places: Sequence[int]) -> None:
        teams = [[self.ratings[player]] for player in race]
        rated = self.model.rate(teams, ranks=list(places))
        for player, team in zip(race, rated, strict=True):
            self.ratings[player] = team[0]

    def score(self, player: int) -> float:
        return float(self.ratings[player].mu)

    def sigma(self, player: int) -> float | None:
        return float(self.ratings[player].sigma)


class PairwiseElo:
    """Elo over every pair of a race, each player's K shared over their k−1 games."""

    name = "Elo (pairwise)"

    def __init__(self, players: int, k: float = 32.0) -> None:
        self.k = k
        self.ratings = [1500.0] * players

    def rate(self, race: Sequence[int], places: Sequence[int]) -> None:
        share = self.k / (len(race) - 1)
        deltas = [0.0] * len(race)
        for i, a in enumerate(race):
            for j in range(i + 1, len(race)):
                b = race[j]
                expected = 1.0 / (1.0 + 10.0 ** ((self.ratings[b] - self.ratings[a]) / 400.0))
                actual = 1.0 if places[i] < places[j] else 0.5 if places[i] == places[j] else 0.0
                deltas[i] += share * (actual - expected)
                deltas[j] -= share * (actual - expected)
        for player, delta in zip(race, deltas, strict=True):
            self.ratings[player] += delta

    def score(self, player: int) -> float:
        return self.ratings[player]

    def sigma(self, player: int) -> float | None:
        return None


@dataclass(frozen=True)
class Population:
    """Hidden skills and the races they produce, from one seeded generator."""

    skills: list[float]
    noise: float

    def places(self, race: Sequence[int], rng: random.Random) -> list[int]:
        """Finishing places (1 = first) of a race: skill plus noise, sorted."""
        performance = [self.skills[p] + rng.gauss(0.0, self.noise) for p in race]
        order = sorted(range(len(race)), key=lambda i: -performance[i])
        places = [0] * len(race)
        for place, index in enumerate(order, start=1):
            places[index] = place
        return places


def round_of_races(players: int, rng: random.Random) -> list[list[int]]:
    """Every player in one race of 2..8 players (the last race takes what is left)."""
    everyone = list(range(players))
    rng.shuffle(everyone)
    races = []
    start = 0
    while start < players:
        size = rng.randint(2, 8)
        if players - start - size == 1:
            size += 1  # nobody races alone
        races.append(everyone[start : start + size])
        start += size
    return races


def ranks(values: Sequence[float]) -> list[float]:
    """Ranks 1..n of ``values``, equal values sharing their average rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    result = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            result[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return result


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman's rank correlation: Pearson's over the ranks."""
    ra, rb = ranks(a), ranks(b)
    ma, mb = statistics.fmean(ra), statistics.fmean(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb, strict=True))
    var = math.sqrt(sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb))
    return cov / var if var else 0.0


def pairs_right(
    held_out: list[tuple[list[int], list[int]]], score: Callable[[int], float]
) -> float:
    """The share of pairwise orders of the held-out races that ``score`` predicts."""
    right = total = 0.0
    for race, places in held_out:
        for i in range(len(race)):
            for j in range(i + 1, len(race)):
                if places[i] == places[j]:
                    continue
                total += 1
                a, b = score(race[i]), score(race[j])
                if a == b:
                    right += 0.5
                elif (a > b) == (places[i] < places[j]):
                    right += 1
    return right / total


def models(players: int) -> list[Model]:
    return [
        OpenSkill("PlackettLuce", PlackettLuce(), players),
        OpenSkill("ThurstoneMostellerFull", ThurstoneMostellerFull(), players),
        OpenSkill("BradleyTerryFull", BradleyTerryFull(), players),
        PairwiseElo(players),
    ]


def microseconds_per_race_of_8(rounds: int) -> dict[str, float]:
    """Median µs per update of one race of 8 (fresh players rated over and over)."""
    rng = random.Random(1)
    result: dict[str, float] = {}
    for model in models(8):
        samples = []
        for _ in range(rounds):
            places = list(range(1, 9))
            start = time.perf_counter()
            for _ in range(200):
                rng.shuffle(places)
                model.rate(range(8), places)
            samples.append((time.perf_counter() - start) / 200 * 1e6)
        result[model.name] = statistics.median(samples)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--races", type=int, default=100, help="races per player")
    parser.add_argument(
        "--noise",
        type=float,
        nargs="+",
        default=[1.0, 2.0],
        help="performance noise in units of the skill's spread; one run per value",
    )
    parser.add_argument("--held-out", type=int, default=2000, help="held-out races per check")
    parser.add_argument("--timing-rounds", type=int, default=15)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()

    for noise in args.noise:
        simulate(args, noise)
    print("µs per update of a race of 8:")
    for name, micros in microseconds_per_race_of_8(args.timing_rounds).items():
        print(f"  {name:<24} {micros:>8.1f}")


def simulate(args: argparse.Namespace, noise: float) -> None:
    """One population rated by every model, with its figures at each checkpoint."""
    rng = random.Random(args.seed)
    population = Population([rng.gauss(0.0, 1.0) for _ in range(args.players)], noise)
    checks = [c for c in CHECKPOINTS if c <= args.races] or [args.races]
    rated = models(args.players)
    print(
        f"{args.players:,} players, {args.races} races each (2-8 a race), noise {noise}, "
        f"seed {args.seed}; provisional at σ ≥ {PROVISIONAL_SIGMA}"
    )
    print(f"{'races':>5} {'model':<24} {'pairs':>7} {'spearman':>9} {'σ median':>9} {'prov.':>6}")
    for done in range(1, args.races + 1):
        for race in round_of_races(args.players, rng):
            places = population.places(race, rng)
            for model in rated:
                model.rate(race, places)
        if done not in checks:
            continue
        held_rng = random.Random(args.seed * 1000 + done)
        held_out = []
        while len(held_out) < args.held_out:
            for race in round_of_races(args.players, held_rng):
                held_out.append((race, population.places(race, held_rng)))
        held_out = held_out[: args.held_out]
        best = pairs_right(held_out, lambda p: population.skills[p])
        print(f"{done:>5} {'(hidden skill)':<24} {best:>7.3f} {1.0:>9.3f}")
        for model in rated:
            scores = [model.score(p) for p in range(args.players)]
            rho = spearman(scores, population.skills)
            share = pairs_right(held_out, model.score)
            sigmas = [model.sigma(p) for p in range(args.players)]
            if sigmas[0] is None:
                print(f"{'':>5} {model.name:<24} {share:>7.3f} {rho:>9.3f}")
                continue
            known = [s for s in sigmas if s is not None]
            median = statistics.median(known)
            # The threshold is the chosen model's (server/core/ratings.py).
            provisional = (
                f"{sum(s >= PROVISIONAL_SIGMA for s in known) / len(known):>6.1%}"
                if model.name == "PlackettLuce"
                else f"{'':>6}"
            )
            print(
                f"{'':>5} {model.name:<24} {share:>7.3f} {rho:>9.3f} {median:>9.2f} {provisional}"
            )
        sys.stdout.flush()


if __name__ == "__main__":
    main()
