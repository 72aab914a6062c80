"""The compiled move generation (engine/native/legal.c)."""

from collections.abc import Sequence

from engine.moves import Move
from engine.position import Position

def spec(
    *,
    key: Sequence[int],
    wants: Sequence[Sequence[int]],
    opens_empty: Sequence[bool],
    rank: Sequence[int],
    suit: Sequence[int],
    red: Sequence[bool],
    unit: int,
    home: int,
    give_back: bool,
    column_moves: Sequence[Sequence[Sequence[Move]]],
    to_foundation: Sequence[Move],
    waste_moves: Sequence[Move],
    waste_home: Move,
    from_foundation: Sequence[Sequence[Move]],
) -> object:
    """A variant's tables for ``moves`` (unit and home: engine.rules UNIT_*, HOME_*)."""

def moves(spec: object, position: Position) -> list[Move]:
    """The legal moves of ``position`` but the stock's, in ``Rules.legal_moves`` order."""

def stock_playable(spec: object, position: Position, draw: int, passes: int) -> bool:
    """Whether cycling the stock brings a card to the waste top that fits now (Klondike)."""
