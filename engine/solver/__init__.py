"""A solver for "thoughtful" solitaire: it sees every card, face-down ones too.

``solve(rules, position)`` answers won (with moves the engine replays to a win),
unwinnable (only after an exhaustive search under pruning proven safe) or unknown
(its node or time budget ran out). Pure: no I/O, no threads, no global state; the
search itself runs in compiled code (engine/solver/native/).
See docs/solver.md for the search and the proof of each pruning rule.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.klondike import Klondike
from engine.position import Position
from engine.rules import Rules
from engine.solver import klondike_native, spider_native, yukon_native
from engine.solver.klondike import KlondikeDomain
from engine.solver.search import (
    DEFAULT_MAX_NODES,
    DEFAULT_MAX_SECONDS,
    Domain,
    SolveResult,
    Verdict,
    search,
)
from engine.solver.spider import SpiderDomain
from engine.solver.yukon import YukonDomain
from engine.spider import Spider
from engine.yukon import Yukon

__all__ = ["SolveResult", "Verdict", "domain_for", "solve", "solve_interpreted"]

_COMPILED: tuple[Callable[[Rules, Position, int, float], SolveResult | None], ...] = (
    klondike_native.solve_natively,
    spider_native.solve_natively,
    yukon_native.solve_natively,
)


def domain_for(rules: Rules) -> Domain:
    """The search's view of ``rules``.

    Raises:
        ValueError: no solver knows these rules.
    """
    if isinstance(rules, Klondike):
        return KlondikeDomain(rules)
    if isinstance(rules, Spider):
        return SpiderDomain(rules)
    if isinstance(rules, Yukon):
        return YukonDomain(rules)
    raise ValueError(f"the solver does not know {rules.name}")


def solve(
    rules: Rules,
    position: Position,
    max_nodes: int = DEFAULT_MAX_NODES,
    max_seconds: float = DEFAULT_MAX_SECONDS,
) -> SolveResult:
    """Decide whether ``position`` can still be won under ``rules``.

    Args:
        rules: the variant and its options.
        position: any position of that variant, face-down cards included.
        max_nodes: positions to search at most before answering unknown.
        max_seconds: time to search at most before answering unknown.

    Returns:
        The verdict; for a win the moves, draws spelled out, that win from
        ``position`` when played in order through ``rules.apply``.
    """
    native = _solve_natively(rules, position, max_nodes, max_seconds)
    if native is not None:
        return native
    return solve_interpreted(rules, position, max_nodes, max_seconds)


def solve_interpreted(
    rules: Rules,
    position: Position,
    max_nodes: int = DEFAULT_MAX_NODES,
    max_seconds: float = DEFAULT_MAX_SECONDS,
) -> SolveResult:
    """``solve`` by the interpreted search alone: the reference the compiled searches
    are tested against, and the search for rules they do not cover."""
    if isinstance(rules, Spider):
        # Spider's full search space is far too wide to search blind: a greedy
        # search of progress moves gets half the budget first.
        greedy = search(SpiderDomain(rules, greedy=True), position, max_nodes // 2, max_seconds / 2)
        if greedy.verdict is Verdict.WON:
            return greedy
        rest = search(
            domain_for(rules), position, max_nodes - greedy.nodes, max_seconds - greedy.seconds
        )
        return SolveResult(
            rest.verdict, rest.moves, greedy.nodes + rest.nodes, greedy.seconds + rest.seconds
        )
    return search(domain_for(rules), position, max_nodes, max_seconds)


def _solve_natively(
    rules: Rules, position: Position, max_nodes: int, max_seconds: float
) -> SolveResult | None:
    """The compiled search of the rules' family (engine/solver/native.py), where it
    covers them; ``solve_interpreted`` stays the reference it is tested by. Each
    bridge knows which rules and positions its search covers and answers None for
    the others."""
    for solve_natively in _COMPILED:
        result = solve_natively(rules, position, max_nodes, max_seconds)
        if result is not None:
            return result
    return None
