"""Solitaire Arena's rules engine: pure, synchronous, deterministic, no I/O.

Start with ``new_game(variant, seed, options)``; see docs/engine.md.
"""

from engine.cards import Card, parse_card
from engine.deal import deal_code, seed_from_code
from engine.errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError, MoveError
from engine.game import Game, Outcome, Termination, new_game, replay
from engine.moves import Move
from engine.notation import is_undo_text
from engine.variants import VARIANTS, rules_for

__all__ = [
    "VARIANTS",
    "AmbiguousMoveError",
    "Card",
    "Game",
    "IllegalMoveError",
    "InvalidMoveError",
    "Move",
    "MoveError",
    "Outcome",
    "Termination",
    "deal_code",
    "is_undo_text",
    "new_game",
    "parse_card",
    "replay",
    "rules_for",
    "seed_from_code",
]
