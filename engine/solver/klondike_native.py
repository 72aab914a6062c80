"""The compiled Klondike search (engine/solver/native/klondike.c) behind ``solve()``.

It covers every Klondike rule set (draw 1 or 3, any pass limit up to 255) and any
position whose foundations hold their suits in order, as the engine's always do.
"""

from __future__ import annotations

import time

from engine.cards import RANK, SUIT
from engine.klondike import Klondike
from engine.position import Position
from engine.rules import Rules
from engine.solver import _klondike
from engine.solver.native import checked_result
from engine.solver.search import SolveResult

_LIMIT = 255  # passes and redeals are one byte each in the search's keys
_MAX_NODES = 2**62  # the C side counts positions in a signed 64-bit integer
_DECK = list(range(52))


def solve_natively(
    rules: Rules,
    position: Position,
    max_nodes: int,
    max_seconds: float,
    *,
    locked: bool = True,
) -> SolveResult | None:
    """The compiled search's verdict, or None where it does not cover these rules.

    ``locked=False`` leaves out the locked-cards rule (docs/solver.md, Klondike rule
    9), only so that the tests can compare the search with and without it."""
    if not isinstance(rules, Klondike) or rules.passes > _LIMIT or position.redeals > _LIMIT:
        return None
    layout = pack(position)
    if layout is None:
        return None
    began = time.perf_counter()
    answer = _klondike.solve(
        layout,
        rules.draw,
        rules.passes,
        position.redeals,
        min(max(max_nodes, 1), _MAX_NODES),
        max_seconds,
        locked,
    )
    return checked_result(rules, position, answer, time.perf_counter() - began)


def pack(position: Position) -> bytes | None:
    """The layout ``_klondike.solve`` reads, or None for a position it cannot hold
    (not seven columns, not each card once, or a foundation that is not one suit from
    its Ace up)."""
    if len(position.tableau) != 7 or len(position.foundations) != 4:
        return None
    if sorted(position.cards()) != _DECK:
        return None
    out: list[int] = []
    for column, down in zip(position.tableau, position.down, strict=True):
        out += [len(column), down, *column]
    talon = position.waste + position.stock[::-1]
    out += [len(talon), *talon, len(position.waste)]
    for suit, pile in enumerate(position.foundations):
        if any(SUIT[c] != suit or RANK[c] != rank for rank, c in enumerate(pile, 1)):
            return None
        out.append(len(pile))
    if any(value > _LIMIT for value in out):
        return None
    return bytes(out)
