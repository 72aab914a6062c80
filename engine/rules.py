"""What every variant shares: columns, units that move, foundations, reasons.

A variant is a ``Rules`` subclass configured by class attributes and by the options
a game was created with. The base class generates and plays every move that goes
between columns and foundations; Klondike adds its stock and waste, Spider its
deals and lifted runs. Building is described by two lookup tables per variant,
filled once at class creation, so that move generation stays a handful of list and
dict lookups per candidate card:

- ``KEY[c]``: what card ``c`` needs from the card it is put on;
- ``WANTS[t]``: the keys a column whose top card is ``t`` accepts.

Klondike and Yukon key by (rank, colour), Russian and Alaska by the card itself,
Spider by rank alone.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import ClassVar, Final

from engine import _legal
from engine.cards import KING, RANK, RED, SUIT
from engine.errors import IllegalMoveError
from engine.moves import (
    COLUMN_MOVES,
    DRAW,
    FOUNDATION,
    FROM_FOUNDATION,
    STOCK,
    TO_FOUNDATION,
    WASTE,
    WASTE_HOME,
    WASTE_MOVES,
    Move,
    foundation_index,
    is_foundation_source,
)
from engine.position import Pile, Position
from engine.text import card_label, column_label

OptionValue = int | str | bool
# Columns by the key their top card accepts, and the empty columns.
Targets = tuple[dict[int, list[int]], list[int]]

# What ``unit_length`` and ``foundation_slot`` do, named for the compiled move
# generation (engine/native/legal.c), which cannot call them: a run that alternates
# colours downwards, a gapless run of one suit, or every face-up card; no card goes
# home by a move, each suit has its own foundation, or an Ace takes the first free one.
UNIT_ALTERNATING: Final = 0
UNIT_SUITED_RUN: Final = 1
UNIT_FACE_UP: Final = 2
HOME_NONE: Final = 0
HOME_BY_SUIT: Final = 1
HOME_FIRST_FREE: Final = 2
_SPECS: dict[type[Rules], object] = {}


def _spec(rules: Rules) -> object:
    """The compiled generation's tables for a variant, made once."""
    spec = _SPECS.get(type(rules))
    if spec is None:
        spec = _SPECS[type(rules)] = _legal.spec(
            key=rules.KEY,
            wants=rules.WANTS,
            opens_empty=rules.OPENS_EMPTY,
            rank=RANK,
            suit=SUIT,
            red=RED,
            unit=rules.UNIT,
            home=rules.HOME,
            give_back=rules.foundations_give_back(),
            column_moves=COLUMN_MOVES,
            to_foundation=TO_FOUNDATION,
            waste_moves=WASTE_MOVES,
            waste_home=WASTE_HOME,
            from_foundation=FROM_FOUNDATION,
        )
    return spec


class Rules:
    """The rules of one variant with its options.

    Subclasses set ``name``, ``columns``, ``total_cards``, ``KEY``, ``WANTS`` and
    override the hooks below. Instances are immutable and cheap; a ``Game`` holds one.
    """

    name: ClassVar[str] = ""
    columns: ClassVar[int] = 7
    foundations: ClassVar[int] = 4
    total_cards: ClassVar[int] = 52
    has_stock: ClassVar[bool] = False
    has_waste: ClassVar[bool] = False
    suited_foundations: ClassVar[bool] = False  # Klondike: foundation k holds suit k
    KEY: ClassVar[tuple[int, ...]] = ()
    WANTS: ClassVar[tuple[tuple[int, ...], ...]] = ()
    option_defaults: ClassVar[Mapping[str, OptionValue]] = {}
    # Which cards may lead a unit into an empty column. Klondike and Yukon: only a
    # King (rules.md); Spider: any card.
    OPENS_EMPTY: ClassVar[tuple[bool, ...]] = tuple(RANK[c] == KING for c in range(52))
    # What unit_length and foundation_slot do (UNIT_* and HOME_* above).
    UNIT: ClassVar[int] = UNIT_ALTERNATING
    HOME: ClassVar[int] = HOME_NONE

    def __init__(self, options: Mapping[str, object] | None = None) -> None:
        given = dict(options or {})
        unknown = sorted(set(given) - set(self.option_defaults))
        if unknown:
            known = ", ".join(sorted(self.option_defaults)) or "none"
            raise ValueError(f"{self.name} has no option {', '.join(unknown)} (options: {known})")
        values: dict[str, OptionValue] = dict(self.option_defaults)
        for key, value in given.items():
            default = self.option_defaults[key]
            if type(value) is not type(default):
                raise ValueError(
                    f"option {key} of {self.name} must be {type(default).__name__}, got {value!r}"
                )
            values[key] = value
        self.options: dict[str, OptionValue] = values
        self.check_options()
        self._moves_spec = _spec(self)

    def check_options(self) -> None:
        """Reject option values out of range (subclasses)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.options!r})"

    # -- the deal -------------------------------------------------------------

    def deal(self, seed: int) -> Position:
        """The opening position of ``seed``."""
        raise NotImplementedError

    # -- building rules (hooks) -------------------------------------------------

    def unit_length(self, column: tuple[int, ...], down: int) -> int:
        """How many cards from the top of ``column`` can travel together at most."""
        raise NotImplementedError

    def foundation_slot(self, foundations: tuple[Pile, ...], card: int) -> int | None:
        """The foundation ``card`` goes on now, or ``None``."""
        raise NotImplementedError

    def build_reason(self, card: int) -> tuple[str, str]:
        """Why ``card`` cannot go where it was put (English, German)."""
        raise NotImplementedError

    # -- move generation --------------------------------------------------------

    def legal_moves(self, pos: Position) -> list[Move]:
        """Every legal move, in a fixed order: to the foundations, from the waste,
        between columns, from the foundations, then the stock.

        The moves but the stock's come from the compiled generation
        (engine/native/legal.c), which does what ``interpreted_moves`` does.
        """
        moves: list[Move] = _legal.moves(self._moves_spec, pos)
        if self.can_use_stock(pos):
            moves.append(DRAW)
        return moves

    def interpreted_moves(self, pos: Position) -> list[Move]:
        """``legal_moves`` in Python, the same list in the same order: the reference
        the compiled generation is tested against, and the rules' own words."""
        moves: list[Move] = []
        targets = self._targets(pos)
        self._foundation_moves(pos, moves)
        if pos.waste:
            self._waste_moves(pos, targets, moves)
        self._column_moves(pos, targets, moves)
        self._moves_from_foundations(pos, targets, moves)
        if self.can_use_stock(pos):
            moves.append(DRAW)
        return moves

    def _targets(self, pos: Position) -> Targets:
        """Columns indexed by the key they accept, and the empty columns."""
        wants = self.WANTS
        by_key: dict[int, list[int]] = {}
        empties: list[int] = []
        for j, col in enumerate(pos.tableau):
            if col:
                for key in wants[col[-1]]:
                    if key in by_key:
                        by_key[key].append(j)
                    else:
                        by_key[key] = [j]
            else:
                empties.append(j)
        return by_key, empties

    def _foundation_moves(self, pos: Position, moves: list[Move]) -> None:
        fnd = pos.foundations
        for i, col in enumerate(pos.tableau):
            if col and self.foundation_slot(fnd, col[-1]) is not None:
                moves.append(TO_FOUNDATION[i])
        if pos.waste and self.foundation_slot(fnd, pos.waste[-1]) is not None:
            moves.append(WASTE_HOME)

    def _waste_moves(self, pos: Position, targets: Targets, moves: list[Move]) -> None:
        card = pos.waste[-1]
        by_key, empties = targets
        for j in by_key.get(self.KEY[card], ()):
            moves.append(WASTE_MOVES[j])
        if empties and self.OPENS_EMPTY[card]:
            moves.extend(WASTE_MOVES[j] for j in empties)

    def _column_moves(self, pos: Position, targets: Targets, moves: list[Move]) -> None:
        key = self.KEY
        opens_empty = self.OPENS_EMPTY
        by_key, empties = targets
        find = by_key.get
        append = moves.append
        down = pos.down
        for i, col in enumerate(pos.tableau):
            if not col:
                continue
            from_here = COLUMN_MOVES[i]
            for count in range(1, self.unit_length(col, down[i]) + 1):
                card = col[-count]
                found = find(key[card])
                if found:
                    for j in found:
                        if j != i:
                            append(from_here[j][count])
                if empties and opens_empty[card]:
                    for j in empties:
                        append(from_here[j][count])

    def _moves_from_foundations(self, pos: Position, targets: Targets, moves: list[Move]) -> None:
        if not self.foundations_give_back():
            return
        by_key, empties = targets
        for s, pile in enumerate(pos.foundations):
            if pile:
                card = pile[-1]
                for j in by_key.get(self.KEY[card], ()):
                    moves.append(FROM_FOUNDATION[s][j])
                if empties and self.OPENS_EMPTY[card]:
                    moves.extend(FROM_FOUNDATION[s][j] for j in empties)

    def foundations_give_back(self) -> bool:
        """Whether a foundation's top card may come back onto a column (rules.md:
        Klondike and Yukon allow it)."""
        return True

    def can_use_stock(self, pos: Position) -> bool:
        """Whether the stock move (draw, redeal, deal) is legal now."""
        return False

    # -- playing ----------------------------------------------------------------

    def apply(self, pos: Position, move: Move) -> Position:
        """The position after the legal ``move`` (not checked here)."""
        if move.source == STOCK:
            return self.use_stock(pos)
        return self.move_cards(pos, move)

    def use_stock(self, pos: Position) -> Position:
        """Draw, redeal or deal (variants with a stock)."""
        raise NotImplementedError

    def move_cards(self, pos: Position, move: Move) -> Position:
        """Play a move between columns, waste and foundations, turning up the card
        a column leaves face down at once (rules.md: not optional, part of the move)."""
        source, target, count = move
        tableau = list(pos.tableau)
        down = pos.down
        foundations = pos.foundations
        waste = pos.waste
        fan = pos.fan
        score = pos.score
        if source >= 0:
            col = tableau[source]
            cards = col[-count:]
            rest = col[:-count]
            tableau[source] = rest
            if rest and len(rest) == down[source]:
                down = down[:source] + (down[source] - 1,) + down[source + 1 :]
                score += self.SCORE_TURN_UP
        elif source == WASTE:
            cards = waste[-1:]
            waste = waste[:-1]
            fan = max(fan - 1, 0)
        else:
            s = foundation_index(source)
            cards = foundations[s][-1:]
            foundations = _replace(foundations, s, foundations[s][:-1])
            score += self.SCORE_FROM_FOUNDATION
        if target >= 0:
            tableau[target] = tableau[target] + cards
            if source == WASTE:
                score += self.SCORE_WASTE_TO_COLUMN
        else:
            slot = self.foundation_slot(foundations, cards[0])
            assert slot is not None
            foundations = _replace(foundations, slot, foundations[slot] + cards)
            score += self.SCORE_TO_FOUNDATION
        return Position(
            tuple(tableau),
            down,
            pos.stock,
            waste,
            fan,
            foundations,
            pos.redeals,
            pos.moves + 1,
            max(score, 0),
        )

    # The Klondike seed's score (001): it rewards progress, never drops below 0.
    SCORE_TO_FOUNDATION: ClassVar[int] = 10
    SCORE_WASTE_TO_COLUMN: ClassVar[int] = 5
    SCORE_TURN_UP: ClassVar[int] = 5
    SCORE_FROM_FOUNDATION: ClassVar[int] = -15
    START_SCORE: ClassVar[int] = 0

    # -- the end of a game --------------------------------------------------------

    def foundation_cards(self, pos: Position) -> int:
        """Cards on the foundations (Spider: in the runs lifted off)."""
        return sum(map(len, pos.foundations))

    def is_won(self, pos: Position) -> bool:
        """All cards on the foundations."""
        return self.foundation_cards(pos) == self.total_cards

    def is_stuck(self, pos: Position, legal: list[Move]) -> bool:
        """No helpful move is left (each variant says what helps); ``legal`` are the
        position's legal moves, which the game keeps per position."""
        raise NotImplementedError

    def can_finish(self, pos: Position) -> bool:
        """Whether the rest can go to the foundations by itself."""
        return False

    def finishing_moves(self, pos: Position) -> list[Move]:
        """Moves that carry every card home one at a time, lowest rank first.

        Valid when ``can_finish``: every column is then ordered downwards, so the
        lowest card left always lies on top of its column (and its predecessor is home).
        """
        moves: list[Move] = []
        while not self.is_won(pos):
            best: Move | None = None
            best_rank = KING + 1
            for i, col in enumerate(pos.tableau):
                home = col and self.foundation_slot(pos.foundations, col[-1]) is not None
                if home and RANK[col[-1]] < best_rank:
                    best, best_rank = Move(i, FOUNDATION, 1), RANK[col[-1]]
            if best is None:
                break
            moves.append(best)
            pos = self.apply(pos, best)
        return moves

    # -- reasons --------------------------------------------------------------

    def explain(self, pos: Position, move: Move) -> IllegalMoveError:
        """Why ``move`` is illegal in ``pos``, in words a player understands."""
        for reason in self._reasons(pos, move):
            return IllegalMoveError(*reason)
        return IllegalMoveError(
            f"{move.notation()} is not allowed here.", f"{move.notation()} ist hier nicht erlaubt."
        )

    def _reasons(self, pos: Position, move: Move) -> Iterator[tuple[str, str]]:
        source, target, count = move
        if source == STOCK:
            yield from self.stock_reasons(pos)
            return
        card: int | None = None
        if source >= 0:
            if source >= self.columns:
                yield _no_column(source)
                return
            col = pos.tableau[source]
            if not col:
                yield (
                    f"{column_label(source, 'en')} is empty.",
                    f"{column_label(source, 'de')} ist leer.",
                )
                return
            up = len(col) - pos.down[source]
            if count > up:
                yield (
                    f"{column_label(source, 'en')} has only {up} face-up card(s); "
                    "face-down cards never move.",
                    f"{column_label(source, 'de')} hat nur {up} offene Karte(n); "
                    "verdeckte Karten bewegen sich nie.",
                )
                return
            if count > self.unit_length(col, pos.down[source]):
                yield self.unit_reason(col[-count])
                return
            card = col[-count]
        elif source == WASTE:
            if not self.has_waste or not pos.waste:
                yield ("The waste is empty.", "Die Ablage ist leer.")
                return
            card = pos.waste[-1]
        elif is_foundation_source(source):
            s = foundation_index(source)
            if s >= len(pos.foundations) or not pos.foundations[s]:
                yield (f"Foundation {s + 1} is empty.", f"Fundament {s + 1} ist leer.")
                return
            if not self.foundations_give_back():
                yield (
                    "Cards never come back from the foundations here.",
                    "Hier kommen keine Karten vom Fundament zurück.",
                )
                return
            card = pos.foundations[s][-1]
        if card is None:
            yield _NOT_A_MOVE
            return
        if target == FOUNDATION:
            if count != 1:
                yield (
                    "Only one card at a time goes to a foundation.",
                    "Aufs Fundament kommt immer nur eine Karte.",
                )
                return
            yield self.foundation_reason(pos, card)
            return
        if target < 0:
            yield _NOT_A_MOVE
            return
        if target >= self.columns:
            yield _no_column(target)
            return
        if target == source:
            yield (
                "The cards are already in that column.",
                "Die Karten liegen schon in dieser Spalte.",
            )
            return
        if not pos.tableau[target]:
            if not self.OPENS_EMPTY[card]:
                yield (
                    f"Only a King may go to an empty column, not {card_label(card, 'en')}.",
                    f"Auf eine leere Spalte darf nur ein König, nicht {card_label(card, 'de')}.",
                )
            return
        if self.KEY[card] not in self.WANTS[pos.tableau[target][-1]]:
            yield self.build_reason(card)

    def unit_reason(self, card: int) -> tuple[str, str]:
        """Why the cards on ``card`` cannot travel together."""
        return (
            f"The cards on {card_label(card, 'en')} are not an ordered run.",
            f"Die Karten auf {card_label(card, 'de')} bilden keine geordnete Folge.",
        )

    def foundation_reason(self, pos: Position, card: int) -> tuple[str, str]:
        """Why ``card`` cannot go to a foundation now."""
        if RANK[card] == 1:
            return ("No foundation is free.", "Kein Fundament ist frei.")
        below = card - 1
        return (
            f"{card_label(card, 'en')} cannot go to a foundation before "
            f"{card_label(below, 'en')}; a foundation starts with an Ace.",
            f"{card_label(card, 'de')} kann erst nach {card_label(below, 'de')} aufs "
            "Fundament; ein Fundament beginnt mit einem Ass.",
        )

    def stock_reasons(self, pos: Position) -> Iterator[tuple[str, str]]:
        """Why the stock cannot be used now."""
        yield ("This game has no stock.", "Dieses Spiel hat keinen Talon.")


_NOT_A_MOVE = ("That is not a move.", "Das ist kein Zug.")


def _no_column(index: int) -> tuple[str, str]:
    return (f"There is no column {index + 1}.", f"Es gibt keine Spalte {index + 1}.")


def _replace(piles: tuple[Pile, ...], index: int, pile: Pile) -> tuple[Pile, ...]:
    return piles[:index] + (pile,) + piles[index + 1 :]


def alternating_tables() -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """KEY and WANTS for building down in alternating colours (Klondike, Yukon):
    a card's key is rank * 2 + red; a top card wants one rank lower, other colour."""
    key = tuple(RANK[c] * 2 + RED[c] for c in range(52))
    wants = tuple(((RANK[t] - 1) * 2 + (not RED[t]),) if RANK[t] > 1 else () for t in range(52))
    return key, wants
