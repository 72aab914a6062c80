"""Cards: 52 distinct faces, each an ``int`` from 0 to 51.

A card is ``suit * 13 + rank - 1`` with suits in the order clubs, diamonds, hearts,
spades and ranks Ace (1) to King (13). Spider's 104 cards repeat these faces, so two
equal cards are interchangeable (rules.md, "Cards"). The hot paths of move
generation and the solver index plain lookup tables (``RANK``, ``SUIT``, ``RED``,
``CODES``) with the number instead of calling properties.

Positions hold the plain numbers; ``Card``, an ``int`` subclass that prints and
parses itself, is for people (``parse_card``, ``CARDS``, ``str``). The reason is the
garbage collector: an instance of a Python class is always tracked by it, and a
tuple holding one stays tracked for good, while a tuple of plain ints is untracked
the first time the collector sees it. With ``Card`` objects in the columns, every
position ever kept for undo stayed in every collection, and a server holding
thousands of long games paused for a second in each full one
(docs/performance.md).
"""

from __future__ import annotations

from typing import Final

SUIT_LETTERS: Final = "cdhs"
SUIT_SYMBOLS: Final = "♣♦♥♠"
RANK_NAMES: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUIT_NAMES_EN: Final = ("clubs", "diamonds", "hearts", "spades")
SUIT_NAMES_DE: Final = ("Kreuz", "Karo", "Herz", "Pik")

CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
ACE, KING = 1, 13


class Card(int):
    """One card face; ``str()`` gives the short code (``9h``, ``10d``, ``Qs``)."""

    __slots__ = ()

    @property
    def rank(self) -> int:
        """1 (Ace) to 13 (King)."""
        return int(self) % 13 + 1

    @property
    def suit(self) -> int:
        """0 clubs, 1 diamonds, 2 hearts, 3 spades."""
        return int(self) // 13

    @property
    def red(self) -> bool:
        """Hearts and diamonds are red, spades and clubs black."""
        return self.suit in (DIAMONDS, HEARTS)

    @property
    def symbol(self) -> str:
        """Suit symbol first, as the seeds write cards: ``♠9``."""
        return SUIT_SYMBOLS[self.suit] + RANK_NAMES[self.rank - 1]

    def __str__(self) -> str:
        return RANK_NAMES[self.rank - 1] + SUIT_LETTERS[self.suit]

    def __repr__(self) -> str:
        return f"Card('{self}')"


CARDS: Final = tuple(Card(i) for i in range(52))
RANK: Final = tuple(c.rank for c in CARDS)
SUIT: Final = tuple(c.suit for c in CARDS)
RED: Final = tuple(c.red for c in CARDS)
CODES: Final = tuple(str(c) for c in CARDS)  # the short code of each card, for views


def number(rank: int, suit: int) -> int:
    """The number of the card of ``rank`` (1..13) and ``suit`` (0..3), as positions hold it."""
    return suit * 13 + rank - 1


def card(rank: int, suit: int) -> Card:
    """The card of ``rank`` (1..13) and ``suit`` (0..3)."""
    return CARDS[number(rank, suit)]


_RANK_WORDS: Final = {
    **{name.lower(): i + 1 for i, name in enumerate(RANK_NAMES)},
    "t": 10,
    "b": 11,  # Bube
    "d": 12,  # Dame
    "as": 1,  # Ass
    "ass": 1,
}
_SUIT_WORDS: Final = {
    **{letter: i for i, letter in enumerate(SUIT_LETTERS)},
    **{symbol: i for i, symbol in enumerate(SUIT_SYMBOLS)},
    "♧": CLUBS,
    "♢": DIAMONDS,
    "♡": HEARTS,
    "♤": SPADES,
    **{name: i for i, name in enumerate(SUIT_NAMES_EN)},
    **{name.lower(): i for i, name in enumerate(SUIT_NAMES_DE)},
}


def parse_card(text: str) -> Card | None:
    """Read one card written the way people write it, or ``None``.

    Accepts rank then suit or suit then rank, suit letters or symbols, German rank
    letters (B, D, K, A): ``9h``, ``9♥``, ``♥9``, ``10d``, ``Td``, ``K♠``, ``Dh``.
    """
    t = text.strip().lower()
    if len(t) < 2:
        return None
    for suit_first in (False, True):
        for split in range(1, len(t)):
            rank_part, suit_part = (t[split:], t[:split]) if suit_first else (t[:split], t[split:])
            rank = _RANK_WORDS.get(rank_part)
            suit = _SUIT_WORDS.get(suit_part)
            if rank is not None and suit is not None:
                return card(rank, suit)
    return None
