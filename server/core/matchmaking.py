"""Quick match: which waiting players race together. Pure: seekers and the clock in,
groups out.

Players wait in a queue per *pool*: the variant, its options, rated or not, and the
difficulty asked for (any when none). Within a pool, two players may race together when
their ratings are within both their windows; a window starts at ``Policy.window``
rating points and widens by ``Policy.widen`` a second of waiting, so a player with no
close opponent finds one the longer they wait (unrated pools ignore ratings). Groups
form around the longest-waiting player (the *anchor*): the compatible players nearest
their rating join, each compatible with everyone already in, up to ``max_players``. A
group starts at once when it is full (8), or once its anchor has waited ``gather_ms``
with at least ``min_players`` (2); otherwise everyone waits for the next look. The
queue is looked at every second or so by each server process, which takes the rows it
looks at with ``FOR UPDATE SKIP LOCKED`` (server/store/matchmaking.py).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from server.core.deals import Band


@dataclass(frozen=True, slots=True)
class PoolKey:
    """What a player asked to race: players of different pools never race together."""

    variant: str
    options: str  # canonical JSON (server/core/ratings.py, pool_options)
    rated: bool
    difficulty: Band | None


@dataclass(frozen=True, slots=True)
class Seeker:
    """A player waiting: their rating in the pool (points) and since when (server ms)."""

    player_id: int
    pool: PoolKey
    rating: int
    joined_at: int


@dataclass(frozen=True, slots=True)
class Policy:
    """How groups form (docs/ratings.md, "Quick match")."""

    min_players: int = 2
    max_players: int = 8
    gather_ms: int = 20_000
    window: float = 150.0
    widen: float = 10.0  # rating points a second of waiting

    def window_of(self, seeker: Seeker, now: int) -> float:
        """How far from their rating a player accepts opponents after waiting until now."""
        if not seeker.pool.rated:
            return math.inf
        waited = max(0, now - seeker.joined_at) / 1000
        return self.window + self.widen * waited


def compatible(a: Seeker, b: Seeker, now: int, policy: Policy) -> bool:
    """Whether ``a`` and ``b`` may race together now: one pool, ratings within both
    windows."""
    if a.pool != b.pool:
        return False
    gap = abs(a.rating - b.rating)
    return gap <= min(policy.window_of(a, now), policy.window_of(b, now))


def gather(seekers: Iterable[Seeker], now: int, policy: Policy) -> list[list[Seeker]]:
    """The groups to start now, each anchor first (see the module docstring); nobody is
    in two groups."""
    waiting = sorted(seekers, key=lambda s: (s.joined_at, s.player_id))
    taken: set[int] = set()
    groups: list[list[Seeker]] = []
    for anchor in waiting:
        if anchor.player_id in taken:
            continue
        nearest = sorted(
            (
                s
                for s in waiting
                if s.player_id not in taken
                and s.player_id != anchor.player_id
                and compatible(anchor, s, now, policy)
            ),
            key=lambda s: (abs(s.rating - anchor.rating), s.joined_at, s.player_id),
        )
        group = [anchor]
        for candidate in nearest:
            if len(group) == policy.max_players:
                break
            if all(compatible(candidate, member, now, policy) for member in group):
                group.append(candidate)
        full = len(group) == policy.max_players
        waited = now - anchor.joined_at >= policy.gather_ms
        if full or (waited and len(group) >= policy.min_players):
            groups.append(group)
            taken.update(s.player_id for s in group)
    return groups
