"""Ratings of players (and of deals) from rated games: pure arithmetic, no database.

The model is openskill's Plackett–Luce (the Weng–Lin approximation), chosen by
bench/ratings.py: on simulated races of 2–8 it predicts pairwise orders as well as
pairwise Elo and better than its Bradley–Terry and Thurstone–Mosteller siblings,
and, unlike Elo, it knows how sure it is (σ), which makes "provisional" and the
boards' conservative estimate possible (docs/ratings.md has the figures).

A skill is (µ, σ) in the model's units: every new player starts at µ 25, σ 25/3.
People see one number on a Glicko-like scale:

    rating    = 1500 + SCALE · (µ − 25)
    deviation = SCALE · σ
    SCALE     = (400 / ln 10) / (√2 · β) ≈ 29.48     (β = 25/6, the model's default)

400 / ln 10 is Glicko's scale; √2·β is the spread of the model's comparison of two
players whose skills are known exactly, so, as in Elo, 400 points between two such
players are odds of 10 to 1 in the model's likelihood. A new player is 1500 ± 246. A
player is provisional (shown "1500?") while σ ≥ ``PROVISIONAL_SIGMA``; boards rank the
others by the conservative estimate µ − 3σ (the TrueSkill and openskill ``ordinal``).

A race is rated from its finishing order (``places``): those who finished by time,
then those still playing when it ended by cards on the foundations, then everyone who
resigned or left, together in last place; equal results share a place. Only
signed-in players are rated (``signed_in``); the others are left out of the order.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

import engine
from server.core.identity import unranked_reason

MU = 25.0
SIGMA = 25.0 / 3.0
BETA = 25.0 / 6.0
SCALE = 400.0 / math.log(10.0) / (math.sqrt(2.0) * BETA)
# Provisional while σ is at least this: about 10 rated races of mixed sizes (8 of 2
# players, 15 of 8), where the bench's ratings already rank hidden skill with a
# rank correlation of about 0.9 (docs/ratings.md).
PROVISIONAL_SIGMA = 7.0
# The conservative estimate that orders the boards: µ − Z·σ.
Z = 3.0


@dataclass(frozen=True, slots=True)
class Skill:
    """A rating in the model's units."""

    mu: float = MU
    sigma: float = SIGMA

    @property
    def rating(self) -> int:
        """The number people see (module docstring)."""
        return display(self.mu)

    @property
    def deviation(self) -> int:
        """σ on the rating's scale."""
        return round(SCALE * self.sigma)

    @property
    def provisional(self) -> bool:
        """Not yet sure enough to rank on a board."""
        return self.sigma >= PROVISIONAL_SIGMA

    @property
    def conservative(self) -> float:
        """µ − 3σ: what the boards rank by."""
        return self.mu - Z * self.sigma


NEW = Skill()


def display(mu: float) -> int:
    """µ on the 1500-centred scale."""
    return round(1500.0 + SCALE * (mu - MU))


# The principals whose identity costs something (server/core/identity.py,
# ``unranked_reason``): Discord users, in the bot or signed in from the browser. The SQL
# that picks rated players filters by these prefixes.
SIGNED_IN_PREFIXES = ("discord:",)


def signed_in(user: str) -> bool:
    """Whether a principal may be rated: one whose identity costs something. Ratings
    need a real identity even where the operator lets guests rank on the boards."""
    return unranked_reason(user) is None


def pool_options(variant: str, options: Mapping[str, Any]) -> str:
    """The options of a rating pool: every option of the variant, defaults filled in,
    as canonical JSON, so ``{}`` and ``{"passes": 0}`` are one pool.

    Raises:
        ValueError: unknown variant or bad options (the engine's message).
    """
    rules = engine.rules_for(variant, options)
    return json.dumps(rules.options, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class Finish:
    """A racer's line of a race's stored result, as rating reads it."""

    player_id: int
    user: str
    finished: bool
    resigned: bool
    time_ms: int | None
    foundation: int


def _order_key(line: Finish) -> tuple[int, float]:
    if line.finished:
        return (0, float(line.time_ms or 0))
    if not line.resigned:
        return (1, float(-line.foundation))
    return (2, 0.0)


def places(lines: Iterable[Finish]) -> dict[int, int]:
    """Each rated player's place (1 first; equal results share a place, the next
    place skipping as in "1, 2, 2, 4"): signed-in players only (module docstring)."""
    rated = sorted((line for line in lines if signed_in(line.user)), key=_order_key)
    result: dict[int, int] = {}
    previous: tuple[int, float] | None = None
    place = 0
    for index, line in enumerate(rated, start=1):
        key = _order_key(line)
        if key != previous:
            place, previous = index, key
        result[line.player_id] = place
    return result


def _model() -> PlackettLuce:
    return PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA)


def rate(skills: Sequence[Skill], ranks: Sequence[int]) -> list[Skill]:
    """New skills after one game of ``len(skills)`` sides finishing at ``ranks``.

    Raises:
        ValueError: fewer than two sides, or not one rank per side.
    """
    if len(skills) < 2 or len(skills) != len(ranks):
        raise ValueError("a rated game needs two sides or more, each with a place")
    model = _model()
    teams = [[model.rating(mu=s.mu, sigma=s.sigma)] for s in skills]
    rated = model.rate(teams, ranks=[float(r) for r in ranks])
    return [Skill(float(team[0].mu), float(team[0].sigma)) for team in rated]


def rate_race(before: Mapping[int, Skill], placed: Mapping[int, int]) -> dict[int, Skill]:
    """Every placed player's skill after the race (``before`` lacks new players).

    Raises:
        ValueError: fewer than two placed players.
    """
    players = sorted(placed)
    after = rate([before.get(p, NEW) for p in players], [placed[p] for p in players])
    return dict(zip(players, after, strict=True))


def rate_solo(player: Skill, deal: Skill, won: bool) -> tuple[Skill, Skill]:
    """A solo ranked game is a game of the player against the deal: the winner ahead."""
    after = rate([player, deal], [1, 2] if won else [2, 1])
    return after[0], after[1]


def rate_finishes(lines: Sequence[Finish], before: Mapping[int, Skill]) -> dict[int, Placed]:
    """A race's rating: each rated player's place and skill after it, from the stored
    result lines and the skills before it (new players absent). Empty when fewer than
    two players may be rated (the race changes nobody's rating)."""
    placed = places(lines)
    if len(placed) < 2:
        return {}
    after = rate_race(before, placed)
    return {player: Placed(placed[player], after[player]) for player in placed}


@dataclass(frozen=True, slots=True)
class Placed:
    """A rated player's place in a game and their skill after it."""

    place: int
    skill: Skill
