"""The compiled Spider search (engine/solver/native/spider.c) behind ``solve()``.

The position is handed over as plain integers: the piles bottom card first with
their face-down counts, the stock with the next card to deal last and the number
of runs lifted off. The search covers every Spider rule set (1, 2 or 4 suits,
either layout: the layout only shapes the deal, which is already on the table);
its win is replayed through the engine by ``checked_result`` before it counts.
"""

from __future__ import annotations

import time

from engine.position import Position
from engine.rules import Rules
from engine.solver import _spider
from engine.solver.native import checked_result
from engine.solver.search import SolveResult
from engine.spider import Spider


def solve_natively(
    rules: Rules, position: Position, max_nodes: int, max_seconds: float
) -> SolveResult | None:
    """The compiled search's verdict, or None where it does not cover these rules."""
    if not isinstance(rules, Spider) or not _packable(position):
        return None
    began = time.perf_counter()
    answer = _spider.solve(
        tuple(tuple(int(c) for c in col) for col in position.tableau),
        tuple(position.down),
        tuple(int(c) for c in position.stock),
        len(position.foundations),
        max(int(max_nodes), 0),
        max(float(max_seconds), 0.0),
    )
    return checked_result(rules, position, answer, time.perf_counter() - began)


def _packable(position: Position) -> bool:
    """Ten piles, each empty or with a face-up top card, at most 104 cards, no waste:
    the shapes the compiled search packs (any Spider position the engine reaches)."""
    if len(position.tableau) != 10 or len(position.down) != 10 or position.waste:
        return False
    cards = len(position.stock) + sum(len(col) for col in position.tableau)
    if cards > 104 or len(position.foundations) > 8:
        return False
    return all(
        (not col and d == 0) or 0 <= d < len(col)
        for col, d in zip(position.tableau, position.down, strict=True)
    )
