"""Spider (1, 2 or 4 suits) for the search.

The engine lifts a finished King-to-Ace run by itself, so the search has no moves
home to make. Deals put the stock's cards on the piles by their number, so piles
are interchangeable only once the stock is empty: until then the key keeps their
order, afterwards it sorts them and only the first empty pile is a target.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator

from engine.cards import KING, RANK, SUIT
from engine.moves import DRAW, Move
from engine.position import Position
from engine.solver.search import Edge
from engine.solver.tableau import BUILD, EMPTY_COLUMN, SWAP, TURN_UP, Candidate
from engine.spider import Spider

IN_SUIT = 1.5  # bonus for a move that extends a run of one suit
TO_EMPTY = -1.0  # a unit laid in an empty pile uses up the most precious space
DEAL = -2.0


class SpiderDomain:
    """The search's view of one Spider rule set."""

    def __init__(self, rules: Spider, greedy: bool = False) -> None:
        self.rules = rules
        self.greedy = greedy
        self.one_suit = rules.suits == 1
        # A greedy view leaves moves out without a proof, so running out of
        # moves under it proves nothing.
        self.complete = not greedy

    def key(self, pos: Position) -> Hashable:
        if pos.stock:
            return pos.tableau, pos.down, len(pos.stock)
        return tuple(sorted(zip(pos.tableau, pos.down, strict=True)))

    def settle(self, pos: Position) -> tuple[tuple[Move, ...], Position]:
        return (), pos

    def finish(self, pos: Position) -> tuple[Move, ...] | None:
        return () if self.rules.is_won(pos) else None

    def edges(self, pos: Position, banned: Move | None) -> Iterator[Edge]:
        """Candidates are ranked first and played only when the search gets to them."""
        rules = self.rules
        candidates = self._column_moves(pos)
        if rules.can_use_stock(pos):
            candidates.append((DEAL, DRAW))
        candidates.sort(key=lambda item: -item[0])
        for _, move in candidates:
            if move == banned:
                continue
            after = rules.apply(pos, move)
            if move == DRAW:
                yield Edge((DRAW,), after)
                continue
            source, target, count = move
            rest = len(pos.tableau[source]) - count
            turned = rest and rest == pos.down[source]
            lifted = len(after.foundations) != len(pos.foundations)
            back = None if turned or lifted else Move(target, source, count)
            yield Edge((move,), after, back)

    def _column_moves(self, pos: Position) -> list[Candidate]:
        """Every unit onto a pile one rank higher or an empty pile, with priority.

        Never generated once the stock is empty: a move to any empty pile but the
        first, and a whole pile into an empty one (both rename piles only). The
        greedy view keeps only moves that make progress: turn a card up or empty
        a pile, move a unit lying on a card it does not follow, or join a unit to
        its suit where it lay off-suit."""
        rules = self.rules
        key = rules.KEY
        by_key: dict[int, list[int]] = {}
        empties: list[int] = []
        for j, col in enumerate(pos.tableau):
            if col:
                for want in rules.WANTS[col[-1]]:
                    by_key.setdefault(want, []).append(j)
            else:
                empties.append(j)
        if empties and not pos.stock:
            empties = empties[:1]
        out: list[Candidate] = []
        tableau = pos.tableau
        for i, col in enumerate(tableau):
            if not col:
                continue
            d = pos.down[i]
            n = len(col)
            for count in range(1, rules.unit_length(col, d) + 1):
                card = col[-count]
                rest = n - count
                if rest == d:
                    priority = TURN_UP + d / 10 if d else EMPTY_COLUMN
                elif col[rest - 1] == card + 1:
                    priority = SWAP  # splits a run of one suit
                else:
                    priority = BUILD
                progress = rest == d
                linked = not progress and col[rest - 1] == card + 1 and RANK[card] < KING
                # With one suit every build is in suit; a unit lying on a card it
                # does not follow may then go anywhere it fits.
                loose = self.one_suit and not progress and RANK[col[rest - 1]] != RANK[card] + 1
                for j in by_key.get(key[card], ()):
                    in_suit = SUIT[tableau[j][-1]] == SUIT[card]
                    if self.greedy and not (
                        progress or (in_suit and not linked) or (loose and self.rules.suits == 1)
                    ):
                        continue
                    out.append((priority + IN_SUIT * in_suit, Move(i, j, count)))
                if (rest or pos.stock) and not (self.greedy and not (progress and d)):
                    for j in empties:
                        out.append((priority + TO_EMPTY, Move(i, j, count)))
        return out
