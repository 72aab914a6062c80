"""Words for cards and places in the player's language (English or German).

The seeds write a card suit first (``♠9``) and German rank letters are
A, B (Bube), D (Dame), K (König); the Yukon seed's "♠9 passt nur auf 10 in Rot" is
the model for every reason the engine gives.
"""

from __future__ import annotations

from typing import Final

from engine.cards import RANK, RANK_NAMES, SUIT, SUIT_SYMBOLS

RANK_NAMES_DE: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "B", "D", "K")


def rank_label(rank: int, locale: str) -> str:
    """A rank as a player reads it: ``10``, ``Q`` or, in German, ``D``."""
    names = RANK_NAMES_DE if locale == "de" else RANK_NAMES
    return names[rank - 1]


def a_rank(rank: int) -> str:
    """An English rank with its article: ``a 9``, ``an 8``, ``an A``."""
    label = rank_label(rank, "en")
    return f"{'an' if label in ('8', 'A') else 'a'} {label}"


def card_label(card: int, locale: str) -> str:
    """A card suit first, as the seeds write it: ``♠9``, ``♥D``."""
    return SUIT_SYMBOLS[SUIT[card]] + rank_label(RANK[card], locale)


def column_label(index: int, locale: str) -> str:
    """``Column 3`` / ``Spalte 3`` for the 0-based ``index``."""
    return f"{'Spalte' if locale == 'de' else 'Column'} {index + 1}"


def colour_word(red: bool, locale: str) -> str:
    """``red``/``black`` or ``Rot``/``Schwarz``."""
    if locale == "de":
        return "Rot" if red else "Schwarz"
    return "red" if red else "black"
