"""The compiled piles of the player's view (engine/native/view.c)."""

from collections.abc import Callable

from engine.moves import Move
from engine.position import Position
from engine.view import Board

def board(
    position: Position,
    legal: list[Move],
    notations: dict[Move, tuple[str, str]],
    named: Callable[[Move], tuple[str, str]],
    codes: tuple[str, ...],
    suit_codes: tuple[str, ...],
    fixed: tuple[str, ...] | None,
    /,
) -> Board: ...
