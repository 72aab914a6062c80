"""Spider with 1, 2 or 4 suits (rules.md "Spider"; seed 003).

104 cards. The seed's layout (default): ten piles of five, four face down under one
face up, and 54 cards in the stock, dealt as five rows of ten and a last row of four
onto the first four piles. The common digital layout (option ``layout="digital"``):
piles of 6,6,6,6,5,5,5,5,5,5 and five rows of ten in the stock.

A unit is the top card with the face-up cards under it that form a gapless run in one
suit; it may be split anywhere. A unit goes onto an empty pile or onto a card one
rank above the unit's bottom card, whatever its suit. A deal needs every pile filled.
A complete run King to Ace of one suit leaves the game at once.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from engine.cards import HEARTS, KING, RANK, SPADES, number
from engine.deal import shuffled
from engine.moves import Move
from engine.position import Pile, Position
from engine.rules import HOME_NONE, UNIT_SUITED_RUN, OptionValue, Rules
from engine.text import a_rank, card_label, rank_label

_SUITS_IN_PLAY = {1: (SPADES,), 2: (HEARTS, SPADES), 4: (0, 1, 2, 3)}
LAYOUTS: dict[str, tuple[int, ...]] = {
    "seed": (5,) * 10,
    "digital": (6, 6, 6, 6, 5, 5, 5, 5, 5, 5),
}
RUN = 13
START_SCORE = 500


class Spider(Rules):
    """Spider; the variant names ``spider-1``, ``spider-2``, ``spider-4`` fix ``suits``."""

    name: ClassVar[str] = "spider-4"
    columns: ClassVar[int] = 10
    foundations: ClassVar[int] = 8
    total_cards: ClassVar[int] = 104
    has_stock: ClassVar[bool] = True
    KEY: ClassVar[tuple[int, ...]] = tuple(RANK[c] for c in range(52))
    WANTS: ClassVar[tuple[tuple[int, ...], ...]] = tuple(
        (RANK[t] - 1,) if RANK[t] > 1 else () for t in range(52)
    )
    UNIT: ClassVar[int] = UNIT_SUITED_RUN
    HOME: ClassVar[int] = HOME_NONE
    OPENS_EMPTY: ClassVar[tuple[bool, ...]] = (True,) * 52  # any unit (seed 003)
    option_defaults: ClassVar[dict[str, OptionValue]] = {"layout": "seed"}
    suits: ClassVar[int] = 4
    START_SCORE: ClassVar[int] = START_SCORE

    def check_options(self) -> None:
        layout = self.options["layout"]
        if layout not in LAYOUTS:
            raise ValueError(f"option layout must be one of {', '.join(LAYOUTS)}, got {layout!r}")
        self.layout = LAYOUTS[str(layout)]

    def deck(self) -> list[int]:
        """The 104 cards before the shuffle: for each copy of the suits in play, Ace to
        King of each suit in ♣ ♦ ♥ ♠ order (docs/deals.md)."""
        suits = _SUITS_IN_PLAY[self.suits]
        copies = 8 // len(suits)
        return [number(rank, s) for _ in range(copies) for s in suits for rank in range(1, 14)]

    def deal(self, seed: int) -> Position:
        """Piles take their cards column by column from the bottom up, all but the
        top one face down; the rest is the stock, the next card to deal on top."""
        deck = shuffled(self.deck(), seed)
        piles = []
        start = 0
        for size in self.layout:
            piles.append(tuple(deck[start : start + size]))
            start += size
        stock = tuple(reversed(deck[start:]))
        down = tuple(size - 1 for size in self.layout)
        return Position(tuple(piles), down, stock, (), 0, (), 0, 0, START_SCORE)

    def unit_length(self, column: tuple[int, ...], down: int) -> int:
        """The gapless same-suit run on top; card ids of one suit are consecutive."""
        n = len(column)
        k = n - 1
        while k > down and column[k - 1] == column[k] + 1 and RANK[column[k - 1]] > 1:
            k -= 1
        return n - k

    def foundation_slot(self, foundations: tuple[Pile, ...], card: int) -> int | None:
        """No card goes to a foundation by a move; runs leave by themselves."""
        return None

    def foundations_give_back(self) -> bool:
        return False

    def build_reason(self, card: int) -> tuple[str, str]:
        if RANK[card] == KING:
            return (
                f"{card_label(card, 'en')} can only go to an empty pile.",
                f"{card_label(card, 'de')} darf nur auf einen freien Platz.",
            )
        above_de = rank_label(RANK[card] + 1, "de")
        return (
            f"{card_label(card, 'en')} only fits on {a_rank(RANK[card] + 1)} (any suit) or an "
            "empty pile.",
            f"{card_label(card, 'de')} passt nur auf eine {above_de} (jede Farbe) oder "
            "einen freien Platz.",
        )

    def unit_reason(self, card: int) -> tuple[str, str]:
        return (
            f"The cards on {card_label(card, 'en')} are not a gapless run in one suit.",
            f"Die Karten auf {card_label(card, 'de')} bilden keine lückenlose Folge "
            "in einer Farbe.",
        )

    def foundation_reason(self, pos: Position, card: int) -> tuple[str, str]:
        return (
            "In Spider a complete run King to Ace leaves by itself; nothing else goes "
            "to the foundations.",
            "Bei Spider wird eine vollständige Folge König bis Ass von selbst abgelegt; "
            "sonst kommt nichts aufs Fundament.",
        )

    # -- playing -----------------------------------------------------------------

    def can_use_stock(self, pos: Position) -> bool:
        return bool(pos.stock) and all(pos.tableau)

    def use_stock(self, pos: Position) -> Position:
        """Deal one face-up card onto each pile from the first, as far as the stock
        goes, then lift any run it completes."""
        n = min(self.columns, len(pos.stock))
        tableau = list(pos.tableau)
        for i in range(n):
            tableau[i] = tableau[i] + (pos.stock[-1 - i],)
        dealt = pos._replace(tableau=tuple(tableau), stock=pos.stock[:-n])
        for i in range(n):
            dealt = self._lift_run(dealt, i)
        return self._scored(dealt, pos.moves + 1)

    def move_cards(self, pos: Position, move: Move) -> Position:
        source, target, count = move
        col = pos.tableau[source]
        rest = col[:-count]
        tableau = list(pos.tableau)
        tableau[source] = rest
        tableau[target] = tableau[target] + col[-count:]
        down = pos.down
        if rest and len(rest) == down[source]:
            down = down[:source] + (down[source] - 1,) + down[source + 1 :]
        moved = pos._replace(tableau=tuple(tableau), down=down)
        return self._scored(self._lift_run(moved, target), pos.moves + 1)

    def _lift_run(self, pos: Position, i: int) -> Position:
        """Lift a complete King-to-Ace run of one suit off the top of pile ``i``."""
        col = pos.tableau[i]
        if len(col) - pos.down[i] < RUN or RANK[col[-1]] != 1:
            return pos
        if self.unit_length(col, pos.down[i]) < RUN:
            return pos
        rest = col[:-RUN]
        down = pos.down
        if rest and len(rest) == down[i]:
            down = down[:i] + (down[i] - 1,) + down[i + 1 :]
        tableau = pos.tableau[:i] + (rest,) + pos.tableau[i + 1 :]
        run = col[-RUN:][::-1]
        return pos._replace(tableau=tableau, down=down, foundations=(*pos.foundations, run))

    def _scored(self, pos: Position, moves: int) -> Position:
        """The common digital score: 500, −1 a move, +100 a run, never below 0."""
        score = max(0, START_SCORE - moves + 100 * len(pos.foundations))
        return pos._replace(moves=moves, score=score)

    def stock_reasons(self, pos: Position) -> Iterator[tuple[str, str]]:
        if not pos.stock:
            yield ("No deal is left.", "Es ist kein Austeilen mehr übrig.")
        else:
            yield (
                "Fill every empty pile before dealing.",
                "Vor dem Austeilen müssen alle freien Plätze gefüllt sein.",
            )

    # -- the end -----------------------------------------------------------------

    def is_stuck(self, pos: Position, legal: list[Move]) -> bool:
        """Lost: no move and no deal left (seed 003)."""
        return not self.is_won(pos) and not legal


class Spider1(Spider):
    """Spider with one suit (spades): eight copies of each rank."""

    name: ClassVar[str] = "spider-1"
    suits: ClassVar[int] = 1


class Spider2(Spider):
    """Spider with two suits (hearts and spades)."""

    name: ClassVar[str] = "spider-2"
    suits: ClassVar[int] = 2


class Spider4(Spider):
    """Spider with all four suits: two full decks."""

    name: ClassVar[str] = "spider-4"
    suits: ClassVar[int] = 4
