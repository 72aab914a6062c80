"""Yukon, and Russian Solitaire and Alaska on its layout (rules.md "Yukon"; seed 004).

All 52 cards in seven columns of 1, 6, 7, 8, 9, 10, 11, with 0..6 face down under
five face-up cards (column 1 is a single face-up card). Any face-up card moves with
everything on it, ordered or not; only the taken card must fit. Only a stack led by
a King opens an empty column. Foundations belong to no suit until an Ace takes one.
Russian builds in the same suit; Alaska in the same suit, up or down.
"""

from __future__ import annotations

from typing import ClassVar

from engine.cards import KING, RANK, RED, SUIT
from engine.deal import shuffled
from engine.klondike import alternating_reason
from engine.moves import Move, is_foundation_source
from engine.position import Pile, Position
from engine.rules import HOME_FIRST_FREE, UNIT_FACE_UP, Rules, alternating_tables
from engine.text import card_label

_ALT_KEY, _ALT_WANTS = alternating_tables()
_SAME_SUIT_KEY = tuple(range(52))
_DOWN_IN_SUIT = tuple((t - 1,) if RANK[t] > 1 else () for t in range(52))
_UP_OR_DOWN_IN_SUIT = tuple(
    tuple(x for x, ok in ((t - 1, RANK[t] > 1), (t + 1, RANK[t] < KING)) if ok) for t in range(52)
)

COLUMN_SIZES = (1, 6, 7, 8, 9, 10, 11)
FACE_DOWN = (0, 1, 2, 3, 4, 5, 6)


class Yukon(Rules):
    """Classic Yukon: alternating colours, descending."""

    name: ClassVar[str] = "yukon"
    columns: ClassVar[int] = 7
    KEY: ClassVar[tuple[int, ...]] = _ALT_KEY
    WANTS: ClassVar[tuple[tuple[int, ...], ...]] = _ALT_WANTS
    UNIT: ClassVar[int] = UNIT_FACE_UP
    HOME: ClassVar[int] = HOME_FIRST_FREE

    def deal(self, seed: int) -> Position:
        """Columns take 1, 6, 7, 8, 9, 10, 11 cards from the shuffled deck, column by
        column from the bottom up; the bottom 0..6 of each lie face down."""
        deck = shuffled(range(52), seed)
        columns = []
        start = 0
        for size in COLUMN_SIZES:
            columns.append(tuple(deck[start : start + size]))
            start += size
        return Position(tuple(columns), FACE_DOWN, (), (), 0, ((),) * 4, 0, 0, self.START_SCORE)

    def unit_length(self, column: tuple[int, ...], down: int) -> int:
        """Every face-up card may be taken with all the cards on it."""
        return len(column) - down

    def foundation_slot(self, foundations: tuple[Pile, ...], card: int) -> int | None:
        """An Ace takes the first free foundation; every other card goes on the
        foundation whose top is the same suit one rank lower."""
        if RANK[card] == 1:
            for s, pile in enumerate(foundations):
                if not pile:
                    return s
            return None
        below = card - 1
        for s, pile in enumerate(foundations):
            if pile and pile[-1] == below:
                return s
        return None

    def build_reason(self, card: int) -> tuple[str, str]:
        return alternating_reason(card)

    def in_order(self, lower: int, upper: int) -> bool:
        """Whether ``upper`` lies on ``lower`` as building allows, descending."""
        return RANK[lower] == RANK[upper] + 1 and RED[lower] != RED[upper]

    def can_finish(self, pos: Position) -> bool:
        """Nothing face down and every column ordered as it is built, descending
        (the seed's "Alles ablegen")."""
        if any(pos.down) or self.is_won(pos):
            return False
        for col in pos.tableau:
            for k in range(1, len(col)):
                if not self.in_order(col[k - 1], col[k]):
                    return False
        return True

    def is_stuck(self, pos: Position, legal: list[Move]) -> bool:
        """No move left but moves back from the foundations. A surer verdict needs
        the solver, which sees the face-down cards."""
        if self.is_won(pos):
            return False
        return all(is_foundation_source(move.source) for move in legal)


class Russian(Yukon):
    """Russian Solitaire: the Yukon layout, building down in the same suit."""

    name: ClassVar[str] = "russian"
    KEY: ClassVar[tuple[int, ...]] = _SAME_SUIT_KEY
    WANTS: ClassVar[tuple[tuple[int, ...], ...]] = _DOWN_IN_SUIT

    def build_reason(self, card: int) -> tuple[str, str]:
        if RANK[card] == KING:
            return alternating_reason(card)
        above = card_label(card + 1, "en"), card_label(card + 1, "de")
        return (
            f"{card_label(card, 'en')} only fits on {above[0]}.",
            f"{card_label(card, 'de')} passt nur auf {above[1]}.",
        )

    def in_order(self, lower: int, upper: int) -> bool:
        return lower == upper + 1 and SUIT[lower] == SUIT[upper]


class Alaska(Yukon):
    """Alaska: the Yukon layout, building in the same suit, up or down."""

    name: ClassVar[str] = "alaska"
    KEY: ClassVar[tuple[int, ...]] = _SAME_SUIT_KEY
    WANTS: ClassVar[tuple[tuple[int, ...], ...]] = _UP_OR_DOWN_IN_SUIT

    def build_reason(self, card: int) -> tuple[str, str]:
        neighbours = _UP_OR_DOWN_IN_SUIT[card]
        en = " or ".join(card_label(c, "en") for c in neighbours)
        de = " oder ".join(card_label(c, "de") for c in neighbours)
        return (
            f"{card_label(card, 'en')} only fits on {en}.",
            f"{card_label(card, 'de')} passt nur auf {de}.",
        )

    def in_order(self, lower: int, upper: int) -> bool:
        return lower == upper + 1 and SUIT[lower] == SUIT[upper]
