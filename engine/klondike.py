"""Klondike, draw 1 or draw 3 (rules.md "Klondike"; seeds 000 and 001).

Seven columns of 1..7 cards, the last of each face up; 24 cards in the stock. Build
down in alternating colours; any face-up card moves with the run on it; only a King
opens an empty column; one foundation per suit from the Ace; a foundation's top card
may come back. The stock turns ``draw`` cards a tap; an empty stock takes the waste
back in its order, as often as the ``passes`` option allows (0: no limit, the
decision in rules.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from engine import _legal
from engine.cards import KING, RANK, RED, SUIT
from engine.deal import shuffled
from engine.moves import FOUNDATION, WASTE, Move, is_foundation_source
from engine.position import Pile, Position
from engine.rules import HOME_BY_SUIT, UNIT_ALTERNATING, OptionValue, Rules, alternating_tables
from engine.text import card_label, colour_word, rank_label

_KEY, _WANTS = alternating_tables()


class Klondike(Rules):
    """Klondike; the variant names ``klondike`` and ``klondike-3`` fix ``draw``."""

    name: ClassVar[str] = "klondike"
    columns: ClassVar[int] = 7
    has_stock: ClassVar[bool] = True
    has_waste: ClassVar[bool] = True
    suited_foundations: ClassVar[bool] = True
    KEY: ClassVar[tuple[int, ...]] = _KEY
    WANTS: ClassVar[tuple[tuple[int, ...], ...]] = _WANTS
    UNIT: ClassVar[int] = UNIT_ALTERNATING
    HOME: ClassVar[int] = HOME_BY_SUIT
    option_defaults: ClassVar[dict[str, OptionValue]] = {"passes": 0}
    draw: ClassVar[int] = 1

    def check_options(self) -> None:
        passes = self.options["passes"]
        assert isinstance(passes, int)
        if passes < 0:
            raise ValueError("option passes must be 0 (no limit) or a positive number")
        self.passes = passes

    def deal(self, seed: int) -> Position:
        """Columns 1..7 take 1..7 cards from the shuffled deck, column by column from
        the bottom up; the other 24 form the stock, the next card dealt on top."""
        deck = shuffled(range(52), seed)
        columns = []
        start = 0
        for size in range(1, 8):
            columns.append(tuple(deck[start : start + size]))
            start += size
        stock = tuple(reversed(deck[start:]))
        return Position(
            tuple(columns), tuple(range(7)), stock, (), 0, ((),) * 4, 0, 0, self.START_SCORE
        )

    def unit_length(self, column: tuple[int, ...], down: int) -> int:
        """The run on top: each card one rank below the one beneath, other colour."""
        n = len(column)
        k = n - 1
        while k > down:
            lower, upper = column[k - 1], column[k]
            if RANK[lower] != RANK[upper] + 1 or RED[lower] == RED[upper]:
                break
            k -= 1
        return n - k

    def foundation_slot(self, foundations: tuple[Pile, ...], card: int) -> int | None:
        """Each foundation belongs to one suit: ♣ ♦ ♥ ♠ are foundations 1 to 4."""
        suit = SUIT[card]
        return suit if len(foundations[suit]) == RANK[card] - 1 else None

    def build_reason(self, card: int) -> tuple[str, str]:
        return alternating_reason(card)

    # -- the stock -----------------------------------------------------------------

    def can_use_stock(self, pos: Position) -> bool:
        return bool(pos.stock) or (bool(pos.waste) and self._redeal_left(pos))

    def _redeal_left(self, pos: Position) -> bool:
        return self.passes == 0 or pos.redeals < self.passes - 1

    def use_stock(self, pos: Position) -> Position:
        """Turn up to ``draw`` cards onto the waste, or turn the waste over as the new
        stock with its order kept, never shuffled (rules.md "Redeal")."""
        if pos.stock:
            n = min(self.draw, len(pos.stock))
            drawn = pos.stock[-n:][::-1]
            return pos._replace(
                stock=pos.stock[:-n], waste=pos.waste + drawn, fan=n, moves=pos.moves + 1
            )
        return pos._replace(
            stock=pos.waste[::-1], waste=(), fan=0, redeals=pos.redeals + 1, moves=pos.moves + 1
        )

    def stock_reasons(self, pos: Position) -> Iterator[tuple[str, str]]:
        if not pos.waste:
            yield ("The stock and the waste are empty.", "Talon und Ablage sind leer.")
        else:
            yield (
                f"The stock is empty and all {self.passes} passes are used.",
                f"Der Talon ist leer und alle {self.passes} Durchgänge sind verbraucht.",
            )

    # -- the end ---------------------------------------------------------------------

    def can_finish(self, pos: Position) -> bool:
        """All cards face up, stock and waste empty (rules.md "Finishing")."""
        return (
            not pos.stock
            and not pos.waste
            and not any(pos.down)
            and not self.is_won(pos)
            and all(self.unit_length(col, 0) == len(col) for col in pos.tableau if col)
        )

    def is_stuck(self, pos: Position, legal: list[Move]) -> bool:
        """The seed's "no more moves" (000): no helpful move in the tableau or from
        the waste, no pass through the stock brings a new card within reach, and no
        card taken back from a foundation opens play.

        Helpful: any move to a foundation; a column move that takes the whole face-up
        run and so turns up a card or empties a column (unless a King-led run would
        just go from one empty column to another); a part-run move that frees a card
        for its foundation; and any waste or stock card that reaches a column or a
        foundation. A card back from a foundation is not helpful in itself, but the
        seed says to check "mögliche Fundamentzüge" before giving up: when the card it
        puts on a column takes a waste or stock card or a helpful column move, the
        game goes on (``_opens_play``).
        """
        if self.is_won(pos) or self._helpful(pos, legal):
            return False
        return not any(
            self._opens_play(pos, move) for move in legal if is_foundation_source(move.source)
        )

    def _helpful(self, pos: Position, legal: list[Move]) -> bool:
        """Whether one of ``legal`` helps, or the stock brings a card that fits now."""
        for move in legal:
            if move.target == FOUNDATION or move.source == WASTE:
                return True
            if move.source >= 0 and self._helpful_column_move(pos, move):
                return True
        return _legal.stock_playable(self._moves_spec, pos, self.draw, self.passes)

    def _opens_play(self, pos: Position, back: Move) -> bool:
        """Whether the card ``back`` takes from a foundation onto a column lets play
        go on, in a position where nothing else helps. Only that card is new (a
        foundation lower by one takes nothing it did not take before), so what helps
        after it is a card going onto it: from the waste, the stock or a column. The
        card going home again, or another foundation card coming down, does not count."""
        after = self.apply(pos, back)
        onward = [
            move
            for move in self.legal_moves(after)
            if move.target != FOUNDATION and not is_foundation_source(move.source)
        ]
        return self._helpful(after, onward)

    def interpreted_stock_playable(self, pos: Position) -> bool:
        """Whether a card the stock brings within reach fits somewhere now: the last
        step of ``is_stuck``, in Python. The compiled ``_legal.stock_playable`` does the
        same for every view; this is its readable reference, and a test holds the two
        to the same answer along random play."""
        return any(self._playable_anywhere(pos, c) for c in self._reachable_stock(pos))

    def _helpful_column_move(self, pos: Position, move: Move) -> bool:
        col = pos.tableau[move.source]
        rest = len(col) - move.size
        if rest == pos.down[move.source]:
            return rest > 0 or RANK[col[0]] != KING
        exposed = col[rest - 1]
        return self.foundation_slot(pos.foundations, exposed) is not None

    def _reachable_stock(self, pos: Position) -> Iterator[int]:
        """The cards that become the waste top while the stock is cycled untouched,
        as far as the pass limit allows (plain lists: this runs on every view)."""
        stock = list(pos.stock)
        waste = list(pos.waste)
        redeals = pos.redeals
        for _ in range(2 * (len(stock) + len(waste)) + 2):
            if stock:
                for _ in range(min(self.draw, len(stock))):
                    waste.append(stock.pop())
                yield waste[-1]
            elif waste and (self.passes == 0 or redeals < self.passes - 1):
                stock = waste[::-1]
                waste = []
                redeals += 1
            else:
                return

    def _playable_anywhere(self, pos: Position, card: int) -> bool:
        if self.foundation_slot(pos.foundations, card) is not None:
            return True
        for col in pos.tableau:
            if col and self.KEY[card] in self.WANTS[col[-1]]:
                return True
            if not col and self.OPENS_EMPTY[card]:
                return True
        return False


class KlondikeDraw3(Klondike):
    """Klondike turning three cards a tap; only the last one turned is playable."""

    name: ClassVar[str] = "klondike-3"
    draw: ClassVar[int] = 3


def alternating_reason(card: int) -> tuple[str, str]:
    """The Yukon seed's model reason: "♠9 passt nur auf 10 in Rot"."""
    if RANK[card] == KING:
        return (
            f"{card_label(card, 'en')} can only go to an empty column.",
            f"{card_label(card, 'de')} darf nur auf eine leere Spalte.",
        )
    other = not RED[card]
    return (
        f"{card_label(card, 'en')} only fits on a {colour_word(other, 'en')} "
        f"{rank_label(RANK[card] + 1, 'en')}.",
        f"{card_label(card, 'de')} passt nur auf {rank_label(RANK[card] + 1, 'de')} "
        f"in {colour_word(other, 'de')}.",
    )
