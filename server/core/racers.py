"""A racer and the ranking rule (issue #4), apart from the race that holds them.

Finished players by time, then moves; then unfinished ones (resigned or out of time)
by cards on the foundations, descending, then moves. The same rule gives the live
places while a race runs (``places``) and a ghost race's (server/core/ghost.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import msgspec

from server import protocol as p


@dataclass(slots=True)
class Racer:
    """One player's place in a race: their game and public progress."""

    player_id: int
    name: str
    user: str
    game_id: int
    foundation: int = 0
    moves: int = 0
    score: int = 0
    time_ms: int | None = None
    resigned: bool = False

    @property
    def finished(self) -> bool:
        """True once the player has won their game."""
        return self.time_ms is not None

    @property
    def done(self) -> bool:
        """True once the player has won or resigned."""
        return self.finished or self.resigned

    def standing(self) -> p.Standing:
        """Public progress: counts only, never cards."""
        return p.Standing(
            player=self.player_id,
            name=self.name,
            foundation=self.foundation,
            moves=self.moves,
            score=self.score,
            finished=self.finished,
            resigned=self.resigned,
            time_ms=self.time_ms,
        )


def _rank_key(racer: Racer) -> tuple[int, int, int, int]:
    """A racer's place in the order of the module docstring (smaller is better)."""
    if racer.time_ms is not None:
        return (0, racer.time_ms, racer.moves, racer.player_id)
    return (1, -racer.foundation, racer.moves, racer.player_id)


def rank(racers: list[Racer]) -> list[p.Ranked]:
    """The final ranking of ``racers`` (see the module docstring for the order)."""
    ordered = sorted(racers, key=_rank_key)
    return [
        p.Ranked(rank=place, **msgspec.structs.asdict(racer.standing()))
        for place, racer in enumerate(ordered, start=1)
    ]


def places(racers: Iterable[Racer]) -> list[int]:
    """The racers' player ids, first place first: the live places by ``rank``'s rule
    (sorted by its key alone: every progress event has them, and building the ranking's
    lines for them was most of what gathering a progress event cost, by py-spy)."""
    return [racer.player_id for racer in sorted(racers, key=_rank_key)]
