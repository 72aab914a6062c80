"""The bridge to the compiled searches: their answer becomes a checked ``SolveResult``.

Each variant family has a C extension (``engine/solver/native/<family>.c``, built
as ``engine.solver._<family>``) that searches a packed copy of the position millions
of times faster than the interpreter could. It answers with a verdict word, its
moves as ``(source, target, size)`` triples in the engine's own codes
(``engine.moves``) and the positions it searched. The engine stays the judge of
the rules: a win is only reported after every one of its moves was found in
``rules.legal_moves`` and the last position is won.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.moves import Move
from engine.position import Position
from engine.rules import Rules
from engine.solver.search import SolveResult, Verdict

NativeAnswer = tuple[str, Sequence[tuple[int, int, int]], int]


class NativeSolverError(AssertionError):
    """A compiled search reported a win the engine does not accept: a solver bug."""


def checked_result(
    rules: Rules, position: Position, answer: NativeAnswer, seconds: float
) -> SolveResult:
    """The ``SolveResult`` of a compiled search's answer, its win replayed first.

    Raises:
        NativeSolverError: a move of the reported win is illegal where it is
            played, or the moves do not end in a won position.
    """
    word, steps, nodes = answer
    verdict = Verdict(word)
    if verdict is not Verdict.WON:
        return SolveResult(verdict, (), nodes, seconds)
    moves = tuple(Move(source, target, size) for source, target, size in steps)
    pos = position
    for index, move in enumerate(moves):
        if move not in rules.legal_moves(pos):
            raise NativeSolverError(
                f"{rules.name}: move {index + 1} of the solution, {move}, is illegal there"
            )
        pos = rules.apply(pos, move)
    if not rules.is_won(pos):
        raise NativeSolverError(f"{rules.name}: the {len(moves)} moves found do not win")
    return SolveResult(verdict, moves, nodes, seconds)
