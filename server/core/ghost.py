"""A ghost: a stored game replayed as a racer, its moves at the times they were played.

A ghost race (docs/arena.md) puts a player on the deal of a stored game (the daily's best,
or their own best on a deal) and shows the stored game's progress beside theirs "as if
live": at each moment of the race, the ghost's counts are those the stored game had
reached after the same time from its own start. This module turns the stored game (its
actions and the time of each, server/store/storage.py's move log) into that timeline,
gives the ghost's standing at any moment as a ``Racer`` the race core ranks like any
other (``server.core.racers.places``), and says whether the player beat it.

    stored game ──replay──▶ timeline of steps (at_ms, foundation, moves, score)
    race clock (elapsed ms) ──racer_at──▶ the ghost's standing now ──places──▶ live order
    player done ──beat(player, final)──▶ the result

No clock of its own: every time is passed in, as ms since the race's start.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

import engine
from server.core.racers import Racer, places

# The ghost's line in a race's standings: no stored player has this id.
GHOST_ID = 0


@dataclass(frozen=True, slots=True)
class GhostStep:
    """The stored game's counts after one of its actions, played ``at_ms`` after its start."""

    at_ms: int
    foundation: int
    moves: int
    score: int


@dataclass(frozen=True, slots=True)
class Ghost:
    """A stored game as a timeline: each action's counts and when it was played.

    ``time_ms`` is the stored game's finish (a won game), None for a game not won.
    """

    name: str
    game_id: int
    steps: tuple[GhostStep, ...]
    time_ms: int | None

    @classmethod
    def from_game(
        cls,
        *,
        name: str,
        game_id: int,
        variant: str,
        options: dict[str, object],
        seed: int,
        actions: Sequence[str],
        offsets: Sequence[int],
        finish_ms: int | None = None,
    ) -> Ghost:
        """Replay the stored game, timing each action by ``offsets`` (ms after the game's
        start, one per action). Times are made non-decreasing (a log written by several
        processes may have clocks a few ms apart); a won game finishes at its stored
        ``finish_ms`` when given, else at its last action.

        Raises:
            ValueError: the actions and offsets differ in number, or an action is not
                legal where it stands (a damaged record).
        """
        if len(actions) != len(offsets):
            raise ValueError(f"{len(actions)} actions but {len(offsets)} times")
        game = engine.new_game(variant, seed, options)
        steps: list[GhostStep] = []
        at = 0
        for action, offset in zip(actions, offsets, strict=True):
            game.play_action(action)
            at = max(at, offset)
            counters = game.counters
            steps.append(GhostStep(at, game.foundation_cards, counters["moves"], counters["score"]))
        won = game.outcome is not None and game.outcome.termination is engine.Termination.WON
        time_ms = None
        if won:
            time_ms = max(at, finish_ms) if finish_ms is not None else at
        return cls(name=name, game_id=game_id, steps=tuple(steps), time_ms=time_ms)

    def racer_at(self, elapsed_ms: int) -> Racer:
        """The ghost's standing ``elapsed_ms`` after the start: its counts after the
        last action played by then, finished once its finish time has come."""
        index = bisect_right(self.steps, elapsed_ms, key=lambda step: step.at_ms)
        racer = Racer(player_id=GHOST_ID, name=self.name, user="", game_id=self.game_id)
        if index:
            step = self.steps[index - 1]
            racer.foundation, racer.moves, racer.score = step.foundation, step.moves, step.score
        if self.time_ms is not None and elapsed_ms >= self.time_ms:
            racer.time_ms = self.time_ms
        return racer

    def next_change(self, elapsed_ms: int) -> int | None:
        """When (ms after the start) the ghost's standing next changes, or None."""
        later = [step.at_ms for step in self.steps if step.at_ms > elapsed_ms]
        if self.time_ms is not None and self.time_ms > elapsed_ms:
            later.append(self.time_ms)
        return min(later, default=None)

    def final(self, limit_ms: int | None) -> Racer:
        """Where the ghost ends: its whole game, or as far as it got within the race's
        time limit."""
        end = max((step.at_ms for step in self.steps), default=0)
        if self.time_ms is not None:
            end = max(end, self.time_ms)
        return self.racer_at(end if limit_ms is None else min(end, limit_ms))


def order(player: Racer, ghost: Racer) -> list[int]:
    """The live places of a player and their ghost, by the race's one ranking rule."""
    return places([player, ghost])


def beat(player: Racer, ghost: Racer) -> bool:
    """Whether the player ranks before the ghost by the race's rule: finished sooner (or
    as soon, in fewer moves), or finished where the ghost did not, or both unfinished
    with more cards on the foundations (or as many, in fewer moves). A tie is the
    ghost's: the rule's last resort is the lower player id, and the ghost's is 0."""
    return order(player, ghost)[0] == player.player_id
