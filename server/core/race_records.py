"""A race as stored and what is stored back: plain records, no behaviour.

``server/store`` reads a race into a ``RaceRecord`` (its racers as ``EntryLine``s, their
games' ``Counters``), and the race (server/core/race.py) hands back a ``StoredState``
to write compare-and-set.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from server.core.race import RaceSettings, RaceState


@dataclass(frozen=True, slots=True)
class EntryLine:
    """A racer as stored: their game (entry), its status and, once won, when."""

    game_id: int
    player_id: int
    name: str
    user: str
    status: str  # playing, won or resigned (entries that left the lobby are not read)
    finished_at: int | None  # server ms, once won


@dataclass(frozen=True, slots=True)
class RaceRecord:
    """A race as stored (server/store/races.py reads it in one snapshot)."""

    race_id: int
    creator_id: int
    settings: RaceSettings
    seed: int
    salt: str
    state: RaceState
    starts_at: int | None
    ends_at: int | None
    end_reason: str | None
    entries: list[EntryLine]
    last_seq: int
    version: int = 0


@dataclass(frozen=True, slots=True)
class Counters:
    """A racer's public progress, read from their game."""

    foundation: int
    moves: int
    score: int


@dataclass(frozen=True, slots=True)
class StoredState:
    """A race's state to store, compare-and-set: only over the stored ``version``."""

    race_id: int
    state: RaceState
    starts_at: int | None
    ends_at: int | None
    end_reason: str | None
    version: int
