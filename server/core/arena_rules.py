"""An arena's rules for pairing and scoring, as pure functions (docs/arena.md).

Scoring, after lichess's arena (lila ``modules/tournament/src/main/arena/ArenaSheet.scala``:
win 2, draw 1, loss 0, doubled "on fire" after two wins in a row), with places for
wins, since a race has up to eight players:

- A race is worth the places the player beat: a race of ``n`` players ranked ``r``
  scores ``n - r`` (first of eight: 7; last: 0). The rank is the race's own final
  ranking (server/core/race.py): finished players by time, then the rest by cards
  on the foundations.
- A player whose two races before this one were both won is on fire: the race scores
  double. First place in a race of two or more is a won race; any other place ends the
  streak (lichess: a non-win ends it).
- A player who made no move in a race scores nothing in it and loses their streak (and
  is paused: ``server.core.arena``), like lichess's quick draws that score 0; every
  player who moved counts as having beaten them, wherever the race's rule ranked them
  (it ranks fewer moves first among unfinished players: an idle player would outrank
  one who played and gave up).

Pairing: the waiting players sorted by arena score, then rating, are cut into
consecutive groups, as many as races of ``race_size`` need and as even as possible, so
each race holds players next to each other in that order. Lichess pairs by rank
proximity the same way (``PairingSystem.scala``); its races are duels, ours up to eight.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class RaceLine:
    """A player's line of a finished race's ranking, as the arena scores it."""

    player_id: int
    rank: int
    moves: int


@dataclass(slots=True)
class Seat:
    """A player's place in one pairing of an arena: the race, once placed; how it ended
    for them, once it did; the points, once scored."""

    pairing: int
    paired_at: int
    race_id: int | None = None
    done: bool = False  # won, gave up or out of time in the race
    rank: int | None = None  # set when the race ended
    racers: int | None = None
    moves: int | None = None
    points: int | None = None  # set when scored
    fire: bool = False


def absent_last(lines: list[RaceLine]) -> list[RaceLine]:
    """A race's ranking with the players who made no move moved after those who did,
    both in the race's order, ranked again from 1."""
    ordered = sorted(lines, key=lambda line: (line.moves == 0, line.rank))
    return [RaceLine(line.player_id, rank, line.moves) for rank, line in enumerate(ordered, 1)]


def score_seat(seat: Seat, streak: int) -> tuple[int, bool, bool]:
    """The points of a ranked seat for a player whose streak of won races before it is
    ``streak``: (points, on fire, won)."""
    assert seat.rank is not None and seat.racers is not None
    if not seat.moves:
        return 0, False, False
    beaten = seat.racers - seat.rank
    won = seat.rank == 1 and seat.racers >= 2
    fire = streak >= 2
    return beaten * (2 if fire else 1), fire, won


def group_sizes(waiting: int, race_size: int) -> list[int]:
    """The sizes of the races ``waiting`` players are cut into: none for fewer than two,
    else as few races as ``race_size`` allows, their sizes differing by at most one.

    Each size is from 2 to ``race_size``: with ``k`` races for ``w`` players,
    ``w > (k - 1) · race_size``, so ``w / k`` is at least 2 whenever ``race_size`` is 3
    or more. Races of two leave an odd player out: the last in the order waits.
    """
    if race_size == 2:
        waiting -= waiting % 2
    if waiting < 2:
        return []
    races = -(-waiting // race_size)
    base, extra = divmod(waiting, races)
    return [base + 1] * extra + [base] * (races - extra)


class Ranked(Protocol):
    """What the standings order a player by."""

    @property
    def score(self) -> int: ...
    @property
    def score_at(self) -> int: ...
    @property
    def joined_at(self) -> int: ...
    @property
    def player_id(self) -> int: ...


def standings_key(player: Ranked) -> tuple[int, int, int, int]:
    """A player's place in the standings (smaller is better): the higher score, then
    whoever reached it first, then whoever joined first."""
    return (-player.score, player.score_at, player.joined_at, player.player_id)


@dataclass(frozen=True, slots=True)
class Pacer:
    """At most one push per ``interval_ms``: standings go out at most once a second,
    however often they change (the first change after a quiet spell goes at once)."""

    interval_ms: int = 1000

    def due(self, last_sent: int | None, now: int) -> bool:
        """Whether a change may be pushed now, the last push having been at ``last_sent``."""
        return last_sent is None or now - last_sent >= self.interval_ms

    def next_at(self, last_sent: int | None, now: int) -> int:
        """When a change held back now may go."""
        return now if last_sent is None else max(now, last_sent + self.interval_ms)
