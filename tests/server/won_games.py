"""A won game's actions, for tests that need one: the solver's win of a Klondike deal."""

from __future__ import annotations

import engine
from engine.solver import Verdict, solve

WINNABLE_KLONDIKE_SEED = 43  # the solver wins this deal


def winning_line(seed: int = WINNABLE_KLONDIKE_SEED) -> list[str]:
    """The solver's win of a Klondike deal, replayed by the engine: a won game's actions."""
    game = engine.new_game("klondike", seed)
    result = solve(game.rules, game.position, 2_000_000, 30.0)
    assert result.verdict is Verdict.WON
    actions = [str(move.notation()) for move in result.moves]
    for action in actions:
        game.play(action)
    assert game.outcome is not None and game.outcome.termination is engine.Termination.WON
    return actions
