"""Yukon, Russian Solitaire and Alaska for the search.

No stock: every move is between columns and foundations. Any face-up card moves
with everything on it, so the branching is wide; what keeps the search small is
the transposition table (columns as a sorted set) and the safe moves home, whose
rule depends on how the variant builds (docs/solver.md).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator

from engine.moves import Move
from engine.position import Position
from engine.solver.search import Edge
from engine.solver.tableau import (
    Candidate,
    SafeHome,
    column_moves,
    give_back_moves,
    home_moves,
    reverse,
    safe_alternating,
    safe_king,
    safe_same_suit,
    settle_columns,
    targets,
    unsuited_heights,
)
from engine.yukon import Alaska, Russian, Yukon


def safe_rule(rules: Yukon) -> SafeHome:
    """The safe-home rule that fits how ``rules`` builds."""
    if isinstance(rules, Alaska):
        return safe_king
    if isinstance(rules, Russian):
        return safe_same_suit
    return safe_alternating


class YukonDomain:
    """The search's view of Yukon and the variants on its layout."""

    def __init__(self, rules: Yukon) -> None:
        self.rules = rules
        self.complete = True
        self.safe: SafeHome = safe_rule(rules)

    def key(self, pos: Position) -> Hashable:
        """Columns as a sorted set; foundations are implied by what is left."""
        return tuple(sorted(zip(pos.tableau, pos.down, strict=True)))

    def settle(self, pos: Position) -> tuple[tuple[Move, ...], Position]:
        moves, pos = settle_columns(self.rules, pos, unsuited_heights, self.safe)
        return tuple(moves), pos

    def finish(self, pos: Position) -> tuple[Move, ...] | None:
        if any(pos.down):
            return None
        if self.rules.is_won(pos):
            return ()
        if self.rules.can_finish(pos):
            return tuple(self.rules.finishing_moves(pos))
        return None

    def edges(self, pos: Position, banned: Move | None) -> Iterator[Edge]:
        """Candidates are ranked first and played only when the search gets to them."""
        rules = self.rules
        by_key, empty = targets(rules, pos)
        heights = unsuited_heights(pos.foundations)
        candidates: list[Candidate] = []
        home_moves(rules, pos, heights, self.safe, candidates)
        column_moves(rules, pos, by_key, empty, rules.in_order, candidates)
        give_back_moves(rules, pos, heights, self.safe, by_key, empty, candidates)
        candidates.sort(key=lambda item: -item[0])
        for _, move in candidates:
            if move == banned:
                continue
            auto, settled = self.settle(rules.apply(pos, move))
            back = None if auto else reverse(move, pos, rules)
            yield Edge((move, *auto), settled, back)
