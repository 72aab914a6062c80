"""The compiled Spider search (engine/solver/native/spider.c) behind ``solve()``."""

from __future__ import annotations

from engine.position import Position
from engine.rules import Rules
from engine.solver.search import SolveResult


def solve_natively(
    rules: Rules, position: Position, max_nodes: int, max_seconds: float
) -> SolveResult | None:
    """The compiled search's verdict, or None where it does not cover these rules."""
    return None
