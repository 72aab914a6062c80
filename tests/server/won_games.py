"""A won game's actions, for tests that need one: the engine's hints win this deal."""

from __future__ import annotations

import engine

WINNABLE_KLONDIKE_SEED = 43  # following the engine's hints wins this deal


def winning_line(seed: int = WINNABLE_KLONDIKE_SEED) -> list[str]:
    """The engine's hints, then its finishing moves: a won Klondike game's actions."""
    game = engine.new_game("klondike", seed)
    actions: list[str] = []
    while not game.can_finish:
        move = game.copy().hint()
        assert move is not None
        game.play(move)
        actions.append(move.notation())
    for move in game.finishing_moves():
        game.play(move)
        actions.append(move.notation())
    assert game.outcome is not None and game.outcome.termination is engine.Termination.WON
    return actions
