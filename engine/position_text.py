"""A text form of any position that round-trips exactly (docs/positions.md).

It shows every card, face-down ones included, so it is for tests, bug reports and
the solver, never for a player. Example (Klondike draw 3)::

    klondike-3 passes=0
    moves=12 score=40 redeals=1 fan=2
    foundations: Ac 2c / - / Ah / -
    stock: 5c 7d
    waste: 9s Qd
    1: | Ks Qh
    2: 4h | 2c
    ...

Columns list bottom card first, face-down cards left of the bar; the stock and waste
list their top card last; each foundation lists its cards Ace first, ``-`` when
empty (Spider lists the runs it lifted off, none at first).
"""

from __future__ import annotations

from collections import Counter

from engine.cards import CODES, parse_card
from engine.game import Game
from engine.position import Position
from engine.rules import Rules
from engine.variants import rules_for


def position_text(rules: Rules, pos: Position) -> str:
    """The text form of ``pos`` under ``rules``."""
    options = " ".join(f"{k}={_format_value(v)}" for k, v in sorted(rules.options.items()))
    lines = [
        f"{rules.name} {options}".rstrip(),
        f"moves={pos.moves} score={pos.score} redeals={pos.redeals} fan={pos.fan}",
        "foundations: " + " / ".join(_cards(pile) or "-" for pile in pos.foundations),
        f"stock: {_cards(pos.stock)}".rstrip(),
        f"waste: {_cards(pos.waste)}".rstrip(),
    ]
    for i, (col, down) in enumerate(zip(pos.tableau, pos.down, strict=True)):
        lines.append(f"{i + 1}: {_cards(col[:down])} | {_cards(col[down:])}".replace("  ", " "))
    return "\n".join(line.rstrip() for line in lines)


def game_text(game: Game) -> str:
    """The text form of a game's current position."""
    return position_text(game.rules, game.position)


def parse_position(text: str) -> tuple[Rules, Position]:
    """Read a position written by ``position_text``.

    Raises:
        ValueError: the text is malformed or its cards are not the variant's deck.
    """
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if len(lines) < 5:
        raise ValueError("a position needs a header, counters, foundations, stock and waste")
    head = lines[0].split()
    options = dict(_read_option(word) for word in head[1:])
    rules = rules_for(head[0], options)
    counters = dict(_read_option(word) for word in lines[1].split())
    if set(counters) != {"moves", "score", "redeals", "fan"}:
        raise ValueError("the second line must give moves, score, redeals and fan")
    foundations = tuple(
        () if part.strip() == "-" else _read_cards(part)
        for part in _field(lines[2], "foundations").split("/")
        if part.strip()
    )
    stock = _read_cards(_field(lines[3], "stock"))
    waste = _read_cards(_field(lines[4], "waste"))
    columns = lines[5:]
    if len(columns) != rules.columns:
        raise ValueError(f"{rules.name} has {rules.columns} columns, the text has {len(columns)}")
    tableau = []
    down = []
    for i, line in enumerate(columns):
        body = _field(line, str(i + 1))
        if "|" not in body:
            raise ValueError(f"column {i + 1} needs a '|' between face-down and face-up cards")
        hidden, shown = body.split("|", 1)
        hidden_cards, shown_cards = _read_cards(hidden), _read_cards(shown)
        if hidden_cards and not shown_cards:
            raise ValueError(f"column {i + 1}: a column's top card is always face up")
        tableau.append(hidden_cards + shown_cards)
        down.append(len(hidden_cards))
    pos = Position(
        tableau=tuple(tableau),
        down=tuple(down),
        stock=stock,
        waste=waste,
        fan=int(counters["fan"]),
        foundations=foundations,
        redeals=int(counters["redeals"]),
        moves=int(counters["moves"]),
        score=int(counters["score"]),
    )
    expected = Counter(rules.deal(0).cards())
    if Counter(pos.cards()) != expected:
        raise ValueError(f"the cards are not exactly the deck of {rules.name}")
    if rules.foundations == 4 and len(foundations) != 4:
        raise ValueError("there must be four foundations")
    return rules, pos


def game_from_text(text: str) -> Game:
    """A game starting from a written position (it has no seed)."""
    rules, pos = parse_position(text)
    return Game(rules, pos, rules.name)


def _cards(cards: tuple[int, ...]) -> str:
    return " ".join(CODES[c] for c in cards)


def _read_cards(text: str) -> tuple[int, ...]:
    out = []
    for word in text.split():
        card = parse_card(word)
        if card is None:
            raise ValueError(f"{word!r} is not a card")
        out.append(int(card))  # positions hold plain numbers (engine/cards.py)
    return tuple(out)


def _field(line: str, name: str) -> str:
    label, sep, rest = line.partition(":")
    if not sep or label.strip() != name:
        raise ValueError(f"expected a line starting with '{name}:', got {line!r}")
    return rest


def _read_option(word: str) -> tuple[str, int | str | bool]:
    key, sep, value = word.partition("=")
    if not sep:
        raise ValueError(f"expected key=value, got {word!r}")
    if value in ("true", "false"):
        return key, value == "true"
    if value.lstrip("-").isdigit():
        return key, int(value)
    return key, value


def _format_value(value: int | str | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
