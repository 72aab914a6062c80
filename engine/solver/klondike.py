"""Klondike for the search: the stock as macro moves, safe moves home, exact keys.

The stock and the waste together are one fixed sequence, the talon: the waste
bottom to top, then the stock top to bottom. Drawing only moves the boundary
between them and turning the waste over sets it back to zero, so a talon is that
sequence and a pointer (how many cards lie on the waste). From any pointer the
cards that cycling can bring to the waste top are found by stepping the pointer;
each one, played to a column or a foundation, is one macro move: the draws it
takes, spelled out, then the move.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator

from engine.cards import KING, RANK, RED
from engine.klondike import Klondike
from engine.moves import DRAW, FOUNDATION, WASTE, Move
from engine.position import Position
from engine.solver.search import Edge
from engine.solver.tableau import (
    FROM_WASTE,
    HOME,
    Candidate,
    SafeHome,
    column_moves,
    give_back_moves,
    home_moves,
    safe_alternating,
    settle_columns,
    suited_heights,
    targets,
)

Reach = tuple[int, int, int, int]  # pointer, draws, redeals, fan


def _in_order(lower: int, upper: int) -> bool:
    return RANK[lower] == RANK[upper] + 1 and RED[lower] != RED[upper]


class KlondikeDomain:
    """The search's view of one Klondike rule set (draw 1 or 3, any pass limit)."""

    def __init__(self, rules: Klondike) -> None:
        self.rules = rules
        self.complete = True
        self.safe: SafeHome = safe_alternating
        self.draw = rules.draw
        self.passes = rules.passes
        # Draw 1 with no pass limit reaches every talon card from any pointer.
        self.free_talon = self.draw == 1 and self.passes == 0

    # -- keys ---------------------------------------------------------------------

    def key(self, pos: Position) -> Hashable:
        """Columns as a sorted set (their order never matters), the talon and a
        canonical pointer. Foundations are left out: they hold exactly the cards
        found nowhere else, in the only order they can."""
        columns = tuple(sorted(zip(pos.tableau, pos.down, strict=True)))
        talon = pos.waste + pos.stock[::-1]
        pointer = len(pos.waste)
        if self.passes:
            return columns, talon, pointer, pos.redeals
        if self.free_talon or pointer % self.draw == 0 or pointer == len(talon):
            # On the cycle that redealing returns to: every such pointer reaches
            # every other by drawing, so they share one future.
            pointer = -1
        return columns, talon, pointer

    # -- automatic moves ----------------------------------------------------------

    def settle(self, pos: Position) -> tuple[tuple[Move, ...], Position]:
        """Safe cards home: column tops, and the waste top in draw 1 without a pass
        limit (there, leaving the talon takes no card out of reach)."""
        moves: list[Move] = []
        rules = self.rules
        while True:
            more, pos = settle_columns(rules, pos, suited_heights, self.safe)
            moves.extend(more)
            if not self.free_talon or not pos.waste:
                return tuple(moves), pos
            top = pos.waste[-1]
            fnd = pos.foundations
            if rules.foundation_slot(fnd, top) is None or not self.safe(suited_heights(fnd), top):
                return tuple(moves), pos
            move = Move(WASTE, FOUNDATION, 1)
            moves.append(move)
            pos = rules.apply(pos, move)

    def finish(self, pos: Position) -> tuple[Move, ...] | None:
        if any(pos.down) or pos.stock or pos.waste:
            return None
        if self.rules.is_won(pos):
            return ()
        if self.rules.can_finish(pos):
            return tuple(self.rules.finishing_moves(pos))
        return None

    # -- moves ----------------------------------------------------------------------

    def edges(self, pos: Position, banned: Move | None) -> Iterator[Edge]:
        """Candidates are ranked first and played only when the search gets to
        them: most of them never are once a win turns up."""
        rules = self.rules
        by_key, empty = targets(rules, pos)
        heights = suited_heights(pos.foundations)
        candidates: list[Candidate] = []
        home_moves(rules, pos, heights, self.safe, candidates)
        column_moves(rules, pos, by_key, empty, _in_order, candidates)
        give_back_moves(rules, pos, heights, self.safe, by_key, empty, candidates)
        ranked: list[tuple[float, Move, Reach | None]] = [
            (priority, move, None) for priority, move in candidates if move != banned
        ]
        self._talon_candidates(pos, by_key, empty, ranked)
        ranked.sort(key=lambda item: -item[0])
        talon = pos.waste + pos.stock[::-1]
        for _, move, reach in ranked:
            if reach is None:
                auto, settled = self.settle(rules.apply(pos, move))
                # No banned reverse: it leads back to the position it came from,
                # which the table holds.
                yield Edge((move, *auto), settled)
                continue
            pointer, draws, redeals, fan = reach
            drawn = pos
            if draws:
                drawn = pos._replace(
                    stock=talon[pointer:][::-1],
                    waste=talon[:pointer],
                    fan=fan,
                    redeals=redeals,
                    moves=pos.moves + draws,
                )
            auto, settled = self.settle(rules.apply(drawn, move))
            yield Edge(((DRAW,) * draws) + (move, *auto), settled)

    def _talon_candidates(
        self,
        pos: Position,
        by_key: dict[int, list[int]],
        empty: int,
        ranked: list[tuple[float, Move, Reach | None]],
    ) -> None:
        """One macro move for each talon card cycling can bring up and each place
        it can go."""
        rules = self.rules
        talon = pos.waste + pos.stock[::-1]
        fnd = pos.foundations
        key = rules.KEY
        for reach in self.reachable(pos, len(talon)):
            pointer, draws = reach[0], reach[1]
            card = talon[pointer - 1]
            places: list[int] = []
            if rules.foundation_slot(fnd, card) is not None:
                places.append(FOUNDATION)
            places.extend(by_key.get(key[card], ()))
            if empty >= 0 and RANK[card] == KING:
                places.append(empty)
            for place in places:
                priority = FROM_WASTE + (HOME - FROM_WASTE) * (place == FOUNDATION) - draws / 100
                ranked.append((priority, Move(WASTE, place, 1), reach))

    def reachable(self, pos: Position, size: int) -> list[Reach]:
        """Each pointer the stock can bring the talon to, first time only, with the
        draws it takes, the redeals used and the fan left on the waste."""
        pointer = len(pos.waste)
        redeals = pos.redeals
        fan = pos.fan
        out: list[Reach] = [(pointer, 0, redeals, fan)] if pointer else []
        seen = {pointer}
        draws = 0
        while True:
            if pointer < size:
                fan = min(self.draw, size - pointer)
                pointer += fan
            elif pointer and (self.passes == 0 or redeals < self.passes - 1):
                pointer, fan = 0, 0
                redeals += 1
            else:
                return out
            draws += 1
            if pointer in seen:
                # The same pointer again, with no fewer redeals used: nothing new.
                return out
            seen.add(pointer)
            if pointer:
                out.append((pointer, draws, redeals, fan))
