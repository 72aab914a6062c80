"""An independent statement of the move rules of rules.md, for property tests.

The engine generates moves from lookup tables for speed; this module says the same
rules the slow, obvious way, card by card, straight from rules.md, so that a property
test can compare the two on thousands of positions. It shares nothing with the
engine's move generator but the card and move values.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise

from engine.cards import KING, RANK, RED, SUIT, Card
from engine.moves import (
    FOUNDATION,
    STOCK,
    WASTE,
    Move,
    foundation_index,
    foundation_source,
    is_foundation_source,
)
from engine.position import Position
from engine.rules import Rules


def family(rules: Rules) -> str:
    """``klondike``, ``spider``, ``yukon``, ``russian`` or ``alaska``."""
    return rules.name.split("-")[0]


def candidate_moves(rules: Rules, pos: Position) -> Iterator[Move]:
    """Every move worth asking about: all sources and targets, and for a column every
    size up to one more than its face-up cards (to ask about reaching face-down cards)."""
    targets = [*range(rules.columns), FOUNDATION]
    yield Move(STOCK, STOCK, 1)
    for i, col in enumerate(pos.tableau):
        up = len(col) - pos.down[i]
        for size in range(1, min(up + 1, len(col)) + 1):
            for target in targets:
                yield Move(i, target, size)
    for target in targets:
        yield Move(WASTE, target, 1)
        for s in range(max(len(pos.foundations), 1)):
            yield Move(foundation_source(s), target, 1)


def reference_moves(rules: Rules, pos: Position) -> set[Move]:
    """Every move rules.md allows in ``pos``: ``is_legal`` over ``candidate_moves``,
    with the card a source gives up worked out once for all targets."""
    kind = family(rules)
    targets = [*range(rules.columns), FOUNDATION]
    found = set()
    if _stock_usable(rules, pos, kind):
        found.add(Move(STOCK, STOCK, 1))
    sources = [
        Move(i, 0, size) for i, col in enumerate(pos.tableau) for size in range(1, len(col) + 1)
    ]
    sources += [Move(WASTE, 0, 1)]
    sources += [Move(foundation_source(s), 0, 1) for s in range(len(pos.foundations))]
    for source in sources:
        card = _picked_card(pos, source, kind)
        if card is None:
            continue
        for target in targets:
            move = source._replace(target=target)
            if _takes(rules, pos, move, card, kind):
                found.add(move)
    return found


def is_legal(rules: Rules, pos: Position, move: Move) -> bool:
    """Whether rules.md allows ``move`` in ``pos``."""
    kind = family(rules)
    source, target, size = move
    if source == STOCK:
        return target == STOCK and size == 1 and _stock_usable(rules, pos, kind)
    card = _picked_card(pos, move, kind)
    return card is not None and _takes(rules, pos, move, card, kind)


def _takes(rules: Rules, pos: Position, move: Move, card: Card, kind: str) -> bool:
    """Whether the target of ``move`` takes ``card``, the card the move picks up."""
    source, target, size = move
    if target == FOUNDATION:
        return size == 1 and not is_foundation_source(source) and _goes_home(pos, card, kind)
    if not 0 <= target < rules.columns or target == source:
        return False
    column = pos.tableau[target]
    if not column:
        return kind == "spider" or RANK[card] == KING
    return _builds_on(column[-1], card, kind)


def _stock_usable(rules: Rules, pos: Position, kind: str) -> bool:
    if kind == "klondike":
        passes = rules.options["passes"]
        return bool(pos.stock) or (bool(pos.waste) and (passes == 0 or pos.redeals + 1 < passes))
    if kind == "spider":
        return bool(pos.stock) and all(pos.tableau)
    return False


def _picked_card(pos: Position, move: Move, kind: str) -> Card | None:
    """The card a move takes (the bottom one of what travels), or None if it cannot
    be taken: face-down cards never move; Klondike takes an ordered run, Spider a
    same-suit run, Yukon anything face up."""
    source, _, size = move
    if source >= 0:
        col = pos.tableau[source]
        if not 1 <= size <= len(col) - pos.down[source]:
            return None
        unit = col[-size:]
        for lower, upper in pairwise(unit):
            if kind == "klondike" and not _alternating(lower, upper):
                return None
            if kind == "spider" and not (
                SUIT[lower] == SUIT[upper] and RANK[lower] == RANK[upper] + 1
            ):
                return None
        return unit[0]
    if size != 1:
        return None
    if source == WASTE:
        return pos.waste[-1] if pos.waste else None
    if kind == "spider":
        return None
    index = foundation_index(source)
    if index >= len(pos.foundations) or not pos.foundations[index]:
        return None
    return pos.foundations[index][-1]


def _goes_home(pos: Position, card: Card, kind: str) -> bool:
    if kind == "spider":
        return False
    if kind == "klondike":
        pile = pos.foundations[SUIT[card]]
        return len(pile) == RANK[card] - 1
    if RANK[card] == 1:
        return any(not pile for pile in pos.foundations)
    return any(
        pile and pile[-1] == card - 1 and SUIT[pile[-1]] == SUIT[card] for pile in pos.foundations
    )


def _alternating(lower: Card, upper: Card) -> bool:
    return RANK[lower] == RANK[upper] + 1 and RED[lower] != RED[upper]


def _builds_on(top: Card, card: Card, kind: str) -> bool:
    if kind in ("klondike", "yukon"):
        return _alternating(top, card)
    if kind == "spider":
        return RANK[top] == RANK[card] + 1
    if kind == "russian":
        return SUIT[top] == SUIT[card] and RANK[top] == RANK[card] + 1
    return SUIT[top] == SUIT[card] and abs(RANK[top] - RANK[card]) == 1
