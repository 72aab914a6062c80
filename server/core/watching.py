"""Watching a race, without sockets or clocks: what a watcher may see, and when.

A watcher sees a race's events and any racer's board (docs/arena.md, "Watching"). Three
rules keep that fair:

- **Nothing hidden**: a racer's board is built from the engine's player view, which has
  no face-down card, and keeps only its piles and counts (``racer_board``): never the
  seed or deal code (either gives the whole deal away), never the legal moves.
- **A delay on ranked races**: a ranked race's events reach watchers ``delay_ms`` after
  they happened (15 s by default), and a board is shown as it stood that long ago, so a
  watcher cannot coach a racer. A ``DelayBuffer`` holds what happened until its time
  comes; one buffer per race serves every watcher, so each event is framed once.
- **Not on your own deal**: a racer sees no board of their own race until they are done
  in it: the others' face-up cards are cards of their own deal.

    event at t ──push──▶ DelayBuffer ──release(now ≥ t + delay)──▶ every watcher

A watcher who comes in late gets the race as its events up to the delay left it
(``RaceSoFar``, folded from the stored events), then the events after, as they come due.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import engine
from server import protocol as p
from server.protocol.view import Column, Foundation, Waste
from server.protocol.watching import RacerBoard

# How long a ranked race's events and boards are held back from watchers.
RANKED_DELAY_MS = 15_000

T = TypeVar("T")


class DelayBuffer(Generic[T]):
    """What happened, each item released ``delay_ms`` after its time, in order."""

    def __init__(self, delay_ms: int) -> None:
        self.delay_ms = delay_ms
        self._held: deque[tuple[int, T]] = deque()
        self._last = 0

    def push(self, item: T, at: int) -> None:
        """Hold ``item``, which happened at ``at`` (server ms). Times are kept in order:
        an item stamped before the last one held is released with it, never before."""
        self._last = max(self._last, at)
        self._held.append((self._last, item))

    def release(self, now: int) -> list[T]:
        """Everything whose time has come by ``now``, oldest first, handed out once."""
        out: list[T] = []
        while self._held and self._held[0][0] + self.delay_ms <= now:
            out.append(self._held.popleft()[1])
        return out

    def next_release(self) -> int | None:
        """When the next item is due (server ms), or None when nothing is held."""
        return self._held[0][0] + self.delay_ms if self._held else None

    def __len__(self) -> int:
        return len(self._held)


def delay_for(ranked: bool, ranked_delay_ms: int = RANKED_DELAY_MS) -> int:
    """A race's delay for watchers: ranked races are held back, others are live."""
    return ranked_delay_ms if ranked else 0


def played_by(actions: Sequence[str], times: Sequence[int], cutoff: int) -> list[str]:
    """The actions of a move log played by ``cutoff`` (server ms), in order."""
    return [action for action, at in zip(actions, times, strict=True) if at <= cutoff]


def racer_board(view: dict[str, Any]) -> RacerBoard:
    """A watcher's board from the engine's player view: only its piles and counts."""
    waste = view.get("waste")
    return RacerBoard(
        tableau=[Column(down=c["down"], up=list(c["up"])) for c in view["tableau"]],
        stock=view["stock"],
        waste=None
        if waste is None
        else Waste(count=waste["count"], visible=list(waste["visible"])),
        foundations=[
            Foundation(suit=f["suit"], cards=f["cards"], top=f["top"]) for f in view["foundations"]
        ],
        counters=dict(view["counters"]),
        outcome=view["outcome"],
    )


def board_after(
    variant: str, options: dict[str, Any], seed: int, actions: Iterable[str]
) -> tuple[engine.Game, RacerBoard]:
    """A racer's game rebuilt from the actions a watcher may see, and its board.

    Raises:
        ValueError: an action is not legal where it stands (a damaged log).
    """
    game = engine.replay(variant, seed, options, list(actions))
    return game, racer_board(game.view())


@dataclass
class RaceSoFar:
    """A race as its events up to some point left it: its state, start, end and every
    racer's standing (counts only), folded from the events in order."""

    state: str = "lobby"
    starts_at: int | None = None
    ends_at: int | None = None
    standings: dict[int, p.Standing] = field(default_factory=dict)
    seq: int = 0

    def apply(self, message: p.Event) -> None:
        """Take one more event of the race into account."""
        self.seq = max(self.seq, message.seq)
        event = message.event
        if isinstance(event, p.LobbyEvent):
            self.standings = {
                player.id: self.standings.get(
                    player.id, p.Standing(player=player.id, name=player.name)
                )
                for player in event.players
            }
        elif isinstance(event, p.CountdownEvent):
            self.state, self.starts_at = "countdown", event.starts_at
        elif isinstance(event, p.StartEvent):
            self.state, self.starts_at, self.ends_at = "running", event.at, event.ends_at
        elif isinstance(event, p.ProgressEvent):
            for standing in event.standings:
                self.standings[standing.player] = standing
        elif isinstance(event, p.FinishEvent):
            known = self.standings.get(event.player)
            if known is not None:
                known.finished, known.time_ms, known.moves = True, event.time_ms, event.moves
        elif isinstance(event, p.EndEvent):
            self.state, self.ends_at = "finished", message.time
            for line in event.ranking:
                self.standings[line.player] = p.Standing(
                    player=line.player,
                    name=line.name,
                    foundation=line.foundation,
                    moves=line.moves,
                    score=line.score,
                    finished=line.finished,
                    resigned=line.resigned,
                    time_ms=line.time_ms,
                )

    @classmethod
    def of(cls, events: Iterable[p.Event]) -> RaceSoFar:
        """The race after these events, in order."""
        so_far = cls()
        for event in events:
            so_far.apply(event)
        return so_far
