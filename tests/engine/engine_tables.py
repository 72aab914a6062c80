"""Hand-made tables for rule tests, written in the position text (docs/positions.md).

A rule test names only the cards its rule is about. ``table`` writes the rest of the
text around them: counters at zero, empty foundations, stock and waste unless given,
empty columns unless given, and one ``*`` that stands for every card of the deck not
named anywhere else (sorted, so the table is the same on every run). The result goes
through ``game_from_text``, the engine's own reader, so a test never builds a
``Position`` by hand.
"""

from __future__ import annotations

from collections import Counter

from engine.cards import CODES, Card, parse_card
from engine.game import Game
from engine.position_text import game_from_text
from engine.variants import rules_for

REST = "*"


def table(
    header: str,
    columns: dict[int, str],
    *,
    foundations: str | None = None,
    stock: str = "",
    waste: str = "",
    counters: str = "moves=0 score=0 redeals=0 fan=0",
) -> Game:
    """A game of ``header`` (variant and options, as in the text's first line).

    ``columns`` maps a column number (from 1) to its cards, bottom first, face-down
    cards left of ``|``; a column without ``|`` is all face up. ``*`` in any field
    stands for the rest of the deck.
    """
    return game_from_text(table_text(header, columns, foundations, stock, waste, counters))


def table_text(
    header: str,
    columns: dict[int, str],
    foundations: str | None = None,
    stock: str = "",
    waste: str = "",
    counters: str = "moves=0 score=0 redeals=0 fan=0",
) -> str:
    """The position text ``table`` reads (see there)."""
    rules = rules_for(header.split()[0])
    if foundations is None:
        foundations = " / ".join(["-"] * rules.foundations) if rules.foundations == 4 else ""
    lines = [
        header,
        counters,
        f"foundations: {foundations}",
        f"stock: {stock}",
        f"waste: {waste}",
    ]
    for number in range(1, rules.columns + 1):
        cards = columns.get(number, "")
        lines.append(f"{number}: {cards if '|' in cards else '| ' + cards}")
    text = "\n".join(lines)
    if REST in text:
        deck = Counter(rules.deal(0).cards())
        rest = deck - Counter(named_cards(text))
        text = text.replace(REST, " ".join(CODES[c] for c in sorted(rest.elements())))
    return text


def named_cards(text: str) -> list[Card]:
    """Every card written in the fields of a position text."""
    found = []
    for line in text.splitlines()[2:]:
        for word in line.partition(":")[2].split():
            card = parse_card(word)
            if card is not None:
                found.append(card)
    return found
