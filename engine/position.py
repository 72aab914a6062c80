"""Positions: immutable snapshots of a whole table.

One ``Position`` shape serves every variant; fields a variant does not use stay
empty. Positions are tuples, so keeping one per move for undo costs little: a move
rebuilds only the columns it touches and shares the rest (python-chess keeps a
stack of board states for the same reason).
"""

from __future__ import annotations

from typing import NamedTuple

Column = tuple[int, ...]
Pile = tuple[int, ...]


class Position(NamedTuple):
    """Everything on the table, plus the counters that undo must restore.

    Attributes:
        tableau: the columns, each listed bottom card first.
        down: how many cards at the bottom of each column are face down.
        stock: the stock, top card last (Klondike, Spider).
        waste: the waste, top card last (Klondike).
        fan: how many cards of the last draw are still on the waste; in draw 3 the
            player sees that many waste cards (at least the top one).
        foundations: each foundation's cards, Ace first. Spider keeps the runs it
            lifted off here, one run a pile.
        redeals: how often the waste was turned over into the stock.
        moves: moves played (undo takes them back with the position).
        score: the variant's score.
    """

    tableau: tuple[Column, ...]
    down: tuple[int, ...]
    stock: Pile
    waste: Pile
    fan: int
    foundations: tuple[Pile, ...]
    redeals: int
    moves: int
    score: int

    def cards(self) -> list[int]:
        """Every card in the position, in no particular order (for conservation)."""
        out: list[int] = [*self.stock, *self.waste]
        for column in self.tableau:
            out.extend(column)
        for pile in self.foundations:
            out.extend(pile)
        return out
