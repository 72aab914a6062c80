"""A deal's difficulty: its first rating from the solver's work, and its band.

A solo ranked game (a daily attempt) is a game between the player and the deal
(server/core/ratings.py, ``rate_solo``), so every dealt deal has a rating on the players'
scale: a deal rated 1700 beats a 1500 player about three times in four. Its first value
comes from the solver, before anyone has played it:

- **The estimate** is log10 of the positions the solver searched to find a win (clamped
  to 1.25–3): the solver tries the moves a sensible player would try first, so a deal it
  wins at once is one a player's first ideas win too. A deal the solver proves lost, or
  cannot decide, gets ``UNDECIDED`` (the hardest).
- **Its expected win share**, fitted on simulated players of varying skill
  (bench/deal_difficulty.py: a noisy greedy player on 600 Klondike deals):
  ``0.18 + 0.72·exp(−3·(estimate − 1.25))``, and 2% for an undecided deal.
- **The first rating** is the deal whose chance against a player of µ 25 (a 1500
  player whose skill is known) is that share, in Plackett–Luce's two-sided form:
  µ = 25 + √2·β·ln((1 − w)/w); σ starts at 25/6, half a new player's, since the
  estimate predicts only roughly (bench/deal_difficulty.py prints how well).

The band a player sees: **easy** when a 1500 player wins it more than 38% of the time,
**hard** when less than 28%, **medium** between (about a third of winnable Klondike deals
each, by their first ratings). Measured on Klondike; the other variants use the same
mapping until their results move their deals' ratings.
"""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import engine
from engine.solver import Verdict, solve
from server.core.ratings import BETA, MU, Skill

Band = Literal["easy", "medium", "hard"]
BANDS: tuple[Band, ...] = ("easy", "medium", "hard")

UNDECIDED = 4.0
LOW, HIGH = 1.25, 3.0
EASY_ABOVE = 0.38
HARD_BELOW = 0.28
PRIOR_SIGMA = 25.0 / 6.0
# The spread of a comparison of two players whose skills are known (σ 0).
_SPREAD = math.sqrt(2.0) * BETA


def estimate(verdict: str, nodes: int) -> float:
    """The solver's difficulty estimate of a deal from its verdict (``winnable``,
    ``lost`` or ``unknown``) and the positions it searched."""
    if verdict != "winnable":
        return UNDECIDED
    return min(HIGH, max(LOW, math.log10(max(1, nodes))))


def expected_win_share(estimate: float) -> float:
    """The share of games the simulated players win on deals of this estimate."""
    if estimate >= UNDECIDED:
        return 0.02
    return 0.18 + 0.72 * math.exp(-3.0 * (estimate - LOW))


def prior(estimate: float) -> Skill:
    """A deal's first rating, from the solver's estimate."""
    share = expected_win_share(estimate)
    return Skill(MU + _SPREAD * math.log((1.0 - share) / share), PRIOR_SIGMA)


def win_chance(deal: Skill) -> float:
    """The chance that a 1500 player whose skill is known wins the deal."""
    return 1.0 / (1.0 + math.exp((deal.mu - MU) / _SPREAD))


def band(deal: Skill) -> Band:
    """Easy, medium or hard (module docstring)."""
    chance = win_chance(deal)
    if chance > EASY_ABOVE:
        return "easy"
    if chance < HARD_BELOW:
        return "hard"
    return "medium"


def mu_range(wanted: Band) -> tuple[float, float]:
    """The deal µ of a band, lower bound inclusive: for choosing a deal of it."""
    easy_mu = MU + _SPREAD * math.log((1.0 - EASY_ABOVE) / EASY_ABOVE)
    hard_mu = MU + _SPREAD * math.log((1.0 - HARD_BELOW) / HARD_BELOW)
    return {
        "easy": (-math.inf, easy_mu),
        "medium": (easy_mu, hard_mu),
        "hard": (hard_mu, math.inf),
    }[wanted]


@dataclass(frozen=True, slots=True)
class Drawn:
    """A freshly drawn deal with the solver's work on it."""

    seed: int
    verdict: str
    nodes: int

    @property
    def skill(self) -> Skill:
        return prior(estimate(self.verdict, self.nodes))


def draw_deals(
    variant: str, options: Mapping[str, Any], wanted: Band, max_seconds: float, budget: float
) -> list[Drawn]:
    """Draw seeds (``secrets``: nobody can know them beforehand) and search each with the
    solver for up to ``budget`` seconds, until one is winnable and of the ``wanted`` band
    or ``max_seconds`` have passed; every deal drawn, the last the wanted one if found.
    CPU-bound: runs in the solver's worker processes (server/services/solving.py)."""
    rules = engine.rules_for(variant, options)
    deadline = time.monotonic() + max_seconds
    drawn: list[Drawn] = []
    while not drawn or time.monotonic() < deadline:
        seed = fresh_seed()
        left = max(0.05, min(budget, deadline - time.monotonic()))
        result = solve(rules, rules.deal(seed), max_seconds=left)
        verdict = {Verdict.WON: "winnable", Verdict.UNWINNABLE: "lost"}.get(
            result.verdict, "unknown"
        )
        drawn.append(Drawn(seed, verdict, result.nodes))
        if verdict == "winnable" and band(drawn[-1].skill) == wanted:
            break
    return drawn


def fresh_seed() -> int:
    """A seed nobody can know beforehand."""
    return secrets.randbelow(2**64)


def closest(drawn: list[Drawn], wanted: Band) -> Drawn:
    """The winnable deal nearest the wanted band (any deal when none is winnable)."""
    low, high = mu_range(wanted)
    winnable = [d for d in drawn if d.verdict == "winnable"] or drawn
    return min(winnable, key=lambda d: max(low - d.skill.mu, d.skill.mu - high, 0.0))
