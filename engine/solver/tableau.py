"""Moves between columns and foundations, shared by Klondike and the Yukon family.

Both families build on a column's top card by the tables ``KEY``/``WANTS`` of the
engine's rules, take the run (Klondike) or the stack (Yukon) above any face-up card
and let only a King open an empty column, so one generator serves both. It asks the
engine's own rules for every test of legality (``unit_length``, ``empty_accepts``,
``foundation_slot``); the tests check that each move it yields is in the engine's
``legal_moves``.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.cards import RANK, SUIT
from engine.moves import (
    FOUNDATION,
    Move,
    foundation_source,
)
from engine.position import Pile, Position
from engine.rules import Rules

# Priorities for move ordering: higher is tried first. Ordering never prunes.
HOME = 6.0
TURN_UP = 4.0
FROM_WASTE = 3.0
EMPTY_COLUMN = 2.0
BUILD = 1.0
SWAP = 0.5
GIVE_BACK = 0.0

Candidate = tuple[float, Move]
SafeHome = Callable[[tuple[int, ...], int], bool]

# Suits by colour: clubs and spades black, diamonds and hearts red (engine.cards).
PARTNER = (3, 2, 1, 0)
OPPOSITE = ((1, 2), (0, 3), (0, 3), (1, 2))


def safe_alternating(heights: tuple[int, ...], card: int) -> bool:
    """Whether ``card``, next on its foundation, may go home without losing a win
    when building alternates colours: both foundations of the other colour hold at
    least rank − 1 cards and the other one of its colour rank − 2 (docs/solver.md)."""
    need = RANK[card] - 1
    a, b = OPPOSITE[SUIT[card]]
    return heights[a] >= need and heights[b] >= need and heights[PARTNER[SUIT[card]]] >= need - 1


def safe_same_suit(heights: tuple[int, ...], card: int) -> bool:
    """Building down in suit (Russian): only the lower cards of the same suit, all
    home already, could ever lie on ``card``, so home is always safe."""
    return True


def safe_king(heights: tuple[int, ...], card: int) -> bool:
    """Building up or down in suit (Alaska): only a King has no card of its suit
    above it that could want to lie on it."""
    return RANK[card] == 13


def suited_heights(foundations: tuple[Pile, ...]) -> tuple[int, ...]:
    """Cards home per suit when foundation k holds suit k (Klondike)."""
    return tuple(len(pile) for pile in foundations)


def unsuited_heights(foundations: tuple[Pile, ...]) -> tuple[int, ...]:
    """Cards home per suit when an Ace picks any free foundation (Yukon)."""
    heights = [0, 0, 0, 0]
    for pile in foundations:
        if pile:
            heights[SUIT[pile[0]]] = len(pile)
    return tuple(heights)


def targets(rules: Rules, pos: Position) -> tuple[dict[int, list[int]], int]:
    """Columns by the key their top card accepts, and the first empty column (−1:
    none). Empty columns are interchangeable, so only the first is ever a target."""
    wants = rules.WANTS
    by_key: dict[int, list[int]] = {}
    empty = -1
    for j, col in enumerate(pos.tableau):
        if col:
            for key in wants[col[-1]]:
                if key in by_key:
                    by_key[key].append(j)
                else:
                    by_key[key] = [j]
        elif empty < 0:
            empty = j
    return by_key, empty


def column_moves(
    rules: Rules,
    pos: Position,
    by_key: dict[int, list[int]],
    empty: int,
    in_order: Callable[[int, int], bool],
    out: list[Candidate],
) -> None:
    """Every move of a run or stack onto another column, with its priority.

    Never generated: a stack that already fills its column going to an empty one
    (the same position with columns renamed)."""
    key = rules.KEY
    down = pos.down
    for i, col in enumerate(pos.tableau):
        if not col:
            continue
        d = down[i]
        n = len(col)
        for count in range(1, rules.unit_length(col, d) + 1):
            card = col[-count]
            rest = n - count
            found = by_key.get(key[card], ())
            to_empty = empty >= 0 and rest and rules.OPENS_EMPTY[card]
            if not found and not to_empty:
                continue
            if rest == d:
                priority = TURN_UP + d / 10 if d else EMPTY_COLUMN
            elif in_order(col[rest - 1], card):
                priority = SWAP
            else:
                priority = BUILD
            for j in found:
                if j != i:  # Yukon: a buried card may fit its own column's top
                    out.append((priority, Move(i, j, count)))
            if to_empty:
                out.append((priority, Move(i, empty, count)))


def home_moves(
    rules: Rules, pos: Position, heights: tuple[int, ...], safe: SafeHome, out: list[Candidate]
) -> None:
    """Column tops that may go home but are not safe enough to go by themselves."""
    for i, col in enumerate(pos.tableau):
        if col:
            card = col[-1]
            if heights[SUIT[card]] == RANK[card] - 1 and not safe(heights, card):
                out.append((HOME, Move(i, FOUNDATION, 1)))


def give_back_moves(
    rules: Rules,
    pos: Position,
    heights: tuple[int, ...],
    safe: SafeHome,
    by_key: dict[int, list[int]],
    empty: int,
    out: list[Candidate],
) -> None:
    """Foundation tops back onto a column. Never an Ace (nothing builds on it) and
    never a card safe to go home (it would be no better off on the tableau)."""
    key = rules.KEY
    for s, pile in enumerate(pos.foundations):
        if not pile:
            continue
        card = pile[-1]
        if RANK[card] == 1:
            continue
        # No safe rule reads the card's own suit, so judging it with the card home
        # or back is the same.
        if safe(heights, card):
            continue
        source = foundation_source(s)
        for j in by_key.get(key[card], ()):
            out.append((GIVE_BACK, Move(source, j, 1)))
        if empty >= 0 and rules.OPENS_EMPTY[card]:
            out.append((GIVE_BACK, Move(source, empty, 1)))


def settle_columns(
    rules: Rules,
    pos: Position,
    heights_of: Callable[[tuple[Pile, ...]], tuple[int, ...]],
    safe: SafeHome,
) -> tuple[list[Move], Position]:
    """Send column tops home while one is safe; the moves and the result.

    A card can go home exactly when its suit has rank − 1 cards home: Klondike's
    foundation k is suit k, and in Yukon an Ace always finds one of the four
    foundations free for its suit."""
    moves: list[Move] = []
    heights = heights_of(pos.foundations)
    while True:
        for i, col in enumerate(pos.tableau):
            if col:
                card = col[-1]
                if heights[SUIT[card]] == RANK[card] - 1 and safe(heights, card):
                    move = Move(i, FOUNDATION, 1)
                    moves.append(move)
                    pos = rules.apply(pos, move)
                    heights = heights_of(pos.foundations)
                    break
        else:
            return moves, pos


def reverse(move: Move, pos: Position, rules: Rules) -> Move | None:
    """The move that would only take ``move`` back after it was played in ``pos``
    (None when the move turned a card up, which no move takes back)."""
    source, target, count = move
    if source >= 0:
        rest = len(pos.tableau[source]) - count
        if rest and rest == pos.down[source]:
            return None
        if target == FOUNDATION:
            slot = rules.foundation_slot(pos.foundations, pos.tableau[source][-1])
            return None if slot is None else Move(foundation_source(slot), source, 1)
        return Move(target, source, count)
    if target >= 0 and source != -1:
        return Move(target, FOUNDATION, 1)
    return None
