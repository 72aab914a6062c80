"""An arena's values: its settings, its players, and what the arena core decides.

The arena core (``server.core.arena``) changes these; the store writes them
(server/store/arena.py) and the service acts on the decisions (server/services/arena.py).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from server.core.arena_rules import Seat
from server.protocol.arenas import ArenaLine


class ArenaState(enum.StrEnum):
    """Where an arena is in its life."""

    UPCOMING = "upcoming"
    RUNNING = "running"
    ENDING = "ending"
    FINISHED = "finished"


class Status(enum.StrEnum):
    """Where a player of a running arena is."""

    WAITING = "waiting"
    PAIRED = "paired"  # in a pairing whose race is being created
    RACING = "racing"
    PAUSED = "paused"


@dataclass(frozen=True, slots=True)
class ArenaSettings:
    """What the creator (or the operator's schedule) chose; fixed for the arena's life."""

    variant: str
    options: dict[str, Any]
    duration_ms: int
    race_time_ms: int = 600_000
    countdown_ms: int = 5_000
    race_size: int = 8
    rated: bool = False
    title: str | None = None


@dataclass(slots=True)
class ArenaPlayer:
    """One player of an arena: their status, score, streak, and their races not yet scored.

    ``seats`` holds only the races not scored yet, in the order they were paired; a
    scored race never changes again, so the store keeps it and the core forgets it.
    """

    player_id: int
    name: str
    rating: float
    joined_at: int
    status: Status = Status.WAITING
    score: int = 0
    streak: int = 0
    best_streak: int = 0
    races: int = 0
    wins: int = 0
    score_at: int = 0  # when the score last changed (the tie-break: reached first)
    pause_after: bool = False  # paused once the current race is done
    withdraw: bool = False  # resign the race being created, once it is placed
    seats: list[Seat] = field(default_factory=list)

    def line(self, rank: int) -> ArenaLine:
        """This player's line of the standings at ``rank``."""
        return ArenaLine(
            rank=rank,
            player=self.player_id,
            name=self.name,
            score=self.score,
            streak=self.streak,
            fire=self.streak >= 2,
            races=self.races,
            wins=self.wins,
            status=self.status.value,
        )

    def seat(self, pairing: int) -> Seat | None:
        """The unscored seat of this pairing, if any."""
        return next((seat for seat in self.seats if seat.pairing == pairing), None)


# ---------------------------------------------------------------- what the core decides


@dataclass(frozen=True, slots=True)
class StateChanged:
    """The arena entered ``state`` at ``at``; a finished arena carries its podium."""

    state: ArenaState
    at: int
    podium: tuple[ArenaLine, ...] = ()


@dataclass(frozen=True, slots=True)
class Paired:
    """Create a race for these players (closest in score first), of at most this time."""

    pairing: int
    players: tuple[int, ...]
    time_limit_ms: int


@dataclass(frozen=True, slots=True)
class Withdrawn:
    """The player left the arena during this race: resign their game in it."""

    player_id: int
    race_id: int


@dataclass(frozen=True, slots=True)
class Scored:
    """A race of a player counted: its rank among ``racers``, points, and fire."""

    player_id: int
    race_id: int
    rank: int
    racers: int
    points: int
    fire: bool


@dataclass(frozen=True, slots=True)
class Paused:
    """The player will not be paired: they asked (``asked``) or did not move (``absent``)."""

    player_id: int
    reason: str


Decision = StateChanged | Paired | Withdrawn | Scored | Paused
