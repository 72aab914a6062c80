"""The compiled Yukon search (engine/solver/native/yukon.c) behind ``solve()``.

It covers Yukon, Russian Solitaire and Alaska with the pruning rules of
docs/solver.md; its win is replayed by the engine (``checked_result``) before it
is reported, so the engine stays the judge of the rules.
"""

from __future__ import annotations

import time

from engine.position import Position
from engine.rules import Rules
from engine.solver import _yukon
from engine.solver.native import checked_result
from engine.solver.search import SolveResult
from engine.yukon import Alaska, Russian, Yukon

# The C search's code for how each variant builds (alternating colours, down in
# suit, up or down in suit); a subclass with rules of its own is not covered.
VARIANT_CODES: dict[type[Rules], int] = {Yukon: 0, Russian: 1, Alaska: 2}


def solve_natively(
    rules: Rules, position: Position, max_nodes: int, max_seconds: float
) -> SolveResult | None:
    """The compiled search's verdict, or None where it does not cover these rules."""
    code = VARIANT_CODES.get(type(rules))
    if code is None:
        return None
    began = time.perf_counter()
    try:
        answer = _yukon.solve(
            code, position.tableau, position.down, position.foundations, max_nodes, max_seconds
        )
    except ValueError:
        return None  # not a whole deck in Yukon's shape: the interpreted search judges it
    return checked_result(rules, position, answer, time.perf_counter() - began)
