"""Whether a result may reach a board: recomputed from the stored move log, and humanly fast.

A ranked result is held back from the boards (and stays flagged for review) when the game
replayed from its stored move log disagrees with it, or when it was won faster than a
person could enter its moves. The floor counts only the moves a player had to enter:
once the rest of a game could go to the foundations by itself (``auto_finish``, one
request), the remaining moves cost no time. docs/protocol.md, "Fair play", documents it.
"""

from __future__ import annotations

import engine

# A person taps, drags or types at most about four moves a second, and not for a whole
# game; a finish faster than this per entered move is held for review.
MIN_MS_PER_MOVE = 250

HELD_UNRANKED = "unranked"  # a race's result on a chosen deal or with the solver's help
HELD_UNREVIEWED = "unreviewed"  # not yet recomputed: counts for nothing until it is
HELD_MISMATCH = "log_mismatch"  # the stored move log does not give this result
HELD_TOO_FAST = "too_fast"  # won faster than a person could enter its moves


def entered_moves(game: engine.Game) -> int:
    """The moves of ``game`` a player had to enter: those before the first position from
    which the rest could go home by itself (undone moves are not counted)."""
    replayed = engine.Game(game.rules, game.start, game.variant, game.seed)
    for index, move in enumerate(game.moves):
        if replayed.can_finish:
            return index
        replayed.play(move)
    return len(game.moves)


def review(game: engine.Game, *, won: bool, moves: int | None, time_ms: int | None) -> str | None:
    """Why the result (``won`` in ``moves`` moves and ``time_ms``) is held, or None.

    ``game`` is the game replayed from its stored move log.
    """
    if won != game.rules.is_won(game.position):
        return HELD_MISMATCH
    if not won:
        return None
    if moves is not None and moves != game.position.moves:
        return HELD_MISMATCH
    if time_ms is None or time_ms < entered_moves(game) * MIN_MS_PER_MOVE:
        return HELD_TOO_FAST
    return None
