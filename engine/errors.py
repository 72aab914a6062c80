"""Errors a player's input can raise, after python-chess's three kinds.

::

    MoveError (ValueError)
    ├── InvalidMoveError    the text cannot be read as a move
    ├── IllegalMoveError    a readable move the rules forbid here, with the reason
    └── AmbiguousMoveError  the text fits several legal moves; lists them

Every error carries its message in English and German; ``str()`` is English.
"""

from __future__ import annotations


class MoveError(ValueError):
    """Root of the errors about a move a player asked for."""

    def __init__(self, en: str, de: str) -> None:
        super().__init__(en)
        self.en = en
        self.de = de

    def message(self, locale: str = "en") -> str:
        """The message in ``locale`` ("de" for German, English otherwise)."""
        return self.de if locale.lower().startswith("de") else self.en


class InvalidMoveError(MoveError):
    """The text cannot be read as a move."""

    def __init__(self, text: str) -> None:
        super().__init__(
            f"Cannot read {text!r} as a move; try '7 3', 'w f', '9h 3' or 'd'.",
            f"{text!r} ist kein lesbarer Zug; versuche '7 3', 'w f', '9h 3' oder 'd'.",
        )
        self.text = text


class IllegalMoveError(MoveError):
    """A readable move that the rules forbid in this position."""

    def __init__(self, en: str, de: str) -> None:
        super().__init__(en, de)

    @property
    def reason_en(self) -> str:
        """The human reason in English."""
        return self.en

    @property
    def reason_de(self) -> str:
        """The human reason in German."""
        return self.de


class AmbiguousMoveError(MoveError):
    """The text fits several legal moves; ``candidates`` holds their notation."""

    def __init__(self, text: str, candidates: list[str]) -> None:
        listed = ", ".join(candidates)
        super().__init__(
            f"{text!r} could mean several moves: {listed}. Say which one.",
            f"{text!r} passt auf mehrere Züge: {listed}. Bitte genauer angeben.",
        )
        self.text = text
        self.candidates = candidates
