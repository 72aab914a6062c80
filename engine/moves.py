"""Moves: small immutable values with one canonical text form.

A move names a source, a target and how many cards travel. Columns are numbered
from 0 inside the engine and from 1 in text. The canonical form (docs/notation.md)
is what the server stores; ``Move.from_notation`` reads exactly that form back.

Canonical forms::

    d        draw from the stock, turn the waste over, or deal a Spider row
    7>3      top card of column 7 onto column 3
    7:3>2    the top three cards of column 7 onto column 2
    7>f      top card of column 7 to its foundation
    w>3      waste top onto column 3
    w>f      waste top to its foundation
    f2>5     top card of foundation 2 back onto column 5
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

WASTE: Final = -1
FOUNDATION: Final = -2  # as a target: the foundation the card belongs on
STOCK: Final = -3
FOUNDATION_BASE: Final = -10  # as a source: foundation k is FOUNDATION_BASE - k


def foundation_source(index: int) -> int:
    """The source code of foundation ``index`` (0-based)."""
    return FOUNDATION_BASE - index


def foundation_index(source: int) -> int:
    """The 0-based foundation index of a foundation source code."""
    return FOUNDATION_BASE - source


def is_foundation_source(source: int) -> bool:
    """True when ``source`` names a foundation."""
    return source <= FOUNDATION_BASE


def source_key(source: int) -> str:
    """The text name of a source: ``7``, ``w``, ``d`` or ``f2``."""
    if source >= 0:
        return str(source + 1)
    if source == WASTE:
        return "w"
    if source == STOCK:
        return "d"
    return f"f{foundation_index(source) + 1}"


class Move(NamedTuple):
    """A move: ``source`` and ``target`` are column indexes or the codes above;
    ``size`` is the number of cards that travel (1 for all but column moves)."""

    source: int
    target: int
    size: int = 1

    def notation(self) -> str:
        """The canonical text form (looked up: views list every legal move)."""
        found = NOTATIONS.get(self)
        return found[1] if found is not None else self._format()

    def _format(self) -> str:
        if self.source == STOCK:
            return "d"
        target = "f" if self.target == FOUNDATION else str(self.target + 1)
        source = source_key(self.source)
        if self.size != 1:
            source = f"{source}:{self.size}"
        return f"{source}>{target}"

    def __str__(self) -> str:
        return self.notation()

    def __repr__(self) -> str:
        return f"Move.from_notation('{self.notation()}')"

    @staticmethod
    def from_notation(text: str) -> Move:
        """Read a move in canonical form.

        Raises:
            ValueError: ``text`` is not in canonical form.
        """
        known = _BY_TEXT.get(text)
        if known is not None:
            return known
        match = _CANONICAL.fullmatch(text)
        if match is None:
            raise ValueError(f"{text!r} is not a move in canonical notation")
        src, count, dst = match.group("src", "count", "dst")
        if src == "w":
            source = WASTE
        elif src.startswith("f"):
            source = foundation_source(int(src[1:]) - 1)
        else:
            source = int(src) - 1
        target = FOUNDATION if dst == "f" else int(dst) - 1
        n = int(count) if count else 1
        if (count and n == 1) or n < 1 or (n != 1 and source < 0):
            raise ValueError(f"{text!r} is not a move in canonical notation")
        return Move(source, target, n)


_CANONICAL: Final = re.compile(
    r"(?P<src>w|f[1-8]|[1-9]|10)(?::(?P<count>[1-9][0-9]?))?>(?P<dst>f|[1-9]|10)"
)

DRAW: Final = Move(STOCK, STOCK, 1)


# Every move between columns, built once: move generation looks a move up here
# (``COLUMN_MOVES[source][target][size]``) instead of building a new tuple each time,
# which is most of what generating a position's legal moves costs.
COLUMN_MOVES: Final = tuple(
    tuple(tuple(Move(source, target, size) for size in range(105)) for target in range(10))
    for source in range(10)
)
TO_FOUNDATION: Final = tuple(Move(source, FOUNDATION, 1) for source in range(10))
WASTE_MOVES: Final = tuple(Move(WASTE, target, 1) for target in range(10))
WASTE_HOME: Final = Move(WASTE, FOUNDATION, 1)
# FROM_FOUNDATION[pile][target]: a foundation's top card back onto a column.
FROM_FOUNDATION: Final = tuple(
    tuple(Move(foundation_source(pile), target, 1) for target in range(10)) for pile in range(8)
)


def _all_notations() -> dict[Move, tuple[str, str]]:
    """The source's name and the canonical text of every move a variant can make."""
    columns = range(10)
    sources = [*columns, WASTE, *(foundation_source(k) for k in range(8))]
    targets = [*columns, FOUNDATION]
    moves = [DRAW]
    for source in sources:
        sizes = range(1, 105) if source >= 0 else range(1, 2)
        moves.extend(Move(source, target, size) for target in targets for size in sizes)
    return {move: (source_key(move.source), move._format()) for move in moves}


# Plain dicts, read only by convention: a lookup in one runs for every legal move
# of every view, and a MappingProxyType's costs twice a dict's.
NOTATIONS: Final[dict[Move, tuple[str, str]]] = _all_notations()
# Canonical text back to its move: clients mostly send moves in canonical form.
_BY_TEXT: Final[dict[str, Move]] = {
    text: move
    for move, (_, text) in NOTATIONS.items()
    if move == DRAW or _CANONICAL.fullmatch(text)
}


def named(move: Move) -> tuple[str, str]:
    """The name of the move's source and the move's canonical text (views list both
    for every legal move, so they are looked up rather than formatted)."""
    found = NOTATIONS.get(move)
    return found if found is not None else (source_key(move.source), move._format())
