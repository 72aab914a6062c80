"""The search every variant shares: depth-first, a transposition table, a budget.

A solitaire deal is a one-player reachability question: is a won position
reachable from this one? Depth-first search over positions, remembering every
position it has seen under a canonical key, answers it exactly once the search
runs out of unseen positions, so "unwinnable" is only ever said after that
exhaustive search (docs/solver.md). A variant supplies a ``Domain``: how to key a
position, which moves to try from it (with its safe automatic moves already
played) and when the rest is a formality.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from engine.moves import Move
from engine.position import Position

DEFAULT_MAX_NODES = 2_000_000
DEFAULT_MAX_SECONDS = 10.0
_CLOCK_EVERY = 64  # nodes between two looks at the clock


class Verdict(enum.Enum):
    """The three answers the solver gives."""

    WON = "won"
    UNWINNABLE = "unwinnable"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class SolveResult:
    """What a search found.

    Attributes:
        verdict: won (``moves`` replay to a win), unwinnable (exhaustive search), or
            unknown (the node or time budget ran out first).
        moves: for a win, the engine moves from the given position to the win,
            draws spelled out one by one; empty otherwise.
        nodes: positions searched.
        seconds: time spent.
    """

    verdict: Verdict
    moves: tuple[Move, ...]
    nodes: int
    seconds: float

    @property
    def decided(self) -> bool:
        """Won or proven unwinnable (not a budget that ran out)."""
        return self.verdict is not Verdict.UNKNOWN

    def notation(self) -> str:
        """The solution in canonical notation, moves separated by spaces."""
        return " ".join(move.notation() for move in self.moves)


class Edge(NamedTuple):
    """One step of the search: the engine moves it stands for (a stock macro and
    the automatic moves after it included), the position it leads to, and a move not
    worth trying next because it would only take this one back."""

    moves: tuple[Move, ...]
    child: Position
    banned: Move | None = None


class Domain(Protocol):
    """What a variant tells the search. ``complete`` is False for a view that
    leaves moves out without a proof: running out of moves then proves nothing."""

    complete: bool

    def settle(self, pos: Position) -> tuple[tuple[Move, ...], Position]:
        """Play the safe automatic moves; the moves played and the result."""

    def key(self, pos: Position) -> Hashable:
        """A key equal for positions with the same future (exact, not a hash)."""

    def edges(self, pos: Position, banned: Move | None) -> Iterator[Edge]:
        """The moves worth trying from a settled position, most promising first."""

    def finish(self, pos: Position) -> tuple[Move, ...] | None:
        """The moves that surely win from ``pos`` without search, or ``None``."""


def search(
    domain: Domain,
    start: Position,
    max_nodes: int = DEFAULT_MAX_NODES,
    max_seconds: float = DEFAULT_MAX_SECONDS,
    clock: Callable[[], float] = time.perf_counter,
) -> SolveResult:
    """Search from ``start`` until a win, exhaustion, or the budget's end."""
    began = clock()
    opening, pos = domain.settle(start)
    nodes = 1
    done = domain.finish(pos)
    if done is not None:
        return SolveResult(Verdict.WON, opening + done, nodes, clock() - began)
    seen: set[Hashable] = {domain.key(pos)}
    stack: list[Iterator[Edge]] = [domain.edges(pos, None)]
    path: list[tuple[Move, ...]] = []
    while stack:
        for moves, child, banned in stack[-1]:
            key = domain.key(child)
            if key in seen:
                continue
            seen.add(key)
            nodes += 1
            done = domain.finish(child)
            if done is not None:
                solution = opening + tuple(m for step in path for m in step) + moves + done
                return SolveResult(Verdict.WON, solution, nodes, clock() - began)
            if nodes >= max_nodes or (nodes % _CLOCK_EVERY == 0 and clock() - began > max_seconds):
                return SolveResult(Verdict.UNKNOWN, (), nodes, clock() - began)
            path.append(moves)
            stack.append(domain.edges(child, banned))
            break
        else:
            stack.pop()
            if path:
                path.pop()
    verdict = Verdict.UNWINNABLE if domain.complete else Verdict.UNKNOWN
    return SolveResult(verdict, (), nodes, clock() - began)
