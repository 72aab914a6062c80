"""Reading moves the way people type them (docs/notation.md).

The canonical form (see ``engine.moves``) is always understood. Beyond it the parser
takes a source and an optional target:

- sources: a column number (``7``, or ``7:3`` for its top three cards), the waste
  (``w``, ``waste``, ``Ablage``), a foundation (``f``, ``f2``, ``f♥``, ``fh``,
  ``Fundament``), or a face-up card (``9h``, ``9♥``, ``10d``, ``K♠``, ``Dh``);
- targets: a column number or a foundation (``f``, ``foundation``, ``Fundament``);
- separators: spaces, ``>``, ``-``, ``,``, ``to``, ``auf``, ``nach``;
- the stock: ``d``, ``draw``, ``deal``, ``ziehen``, ``geben``, ``austeilen``.

A source alone moves that card to wherever it fits best (the Klondike seed's "tap a
card"): see ``best_move`` for the rule. The hint, which ranks moves the same way, lives
in ``engine.hints``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from engine.cards import RANK, SUIT, parse_card
from engine.errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError
from engine.moves import (
    DRAW,
    FOUNDATION,
    STOCK,
    WASTE,
    Move,
    foundation_index,
    foundation_source,
    is_foundation_source,
)
from engine.position import Position
from engine.rules import Rules
from engine.text import card_label, column_label

STOCK_WORDS: Final = frozenset(
    {"d", "draw", "deal", "stock", "ziehen", "geben", "austeilen", "talon", "karte"}
)
UNDO_WORDS: Final = frozenset(
    {"undo", "u", "z", "back", "zurück", "zurueck", "rückgängig", "rueckgaengig"}
)
WASTE_WORDS: Final = frozenset({"w", "waste", "ablage", "abl"})
FOUNDATION_WORDS: Final = frozenset({"f", "foundation", "fundament", "home", "found"})
_FILLER: Final = frozenset({"to", "auf", "nach", "onto", "on", "zu", "move", "ziehe"})
_SPLIT: Final = re.compile(r"[\s>,→-]+")
_COLUMN: Final = re.compile(r"(\d{1,2})(?::(\d{1,2}))?")
_FOUNDATION_NUMBER: Final = re.compile(r"f(\d)")


def is_undo_text(text: str) -> bool:
    """Whether ``text`` asks to take the last move back."""
    return text.strip().lower() in UNDO_WORDS


@dataclass(frozen=True)
class Source:
    """What a player pointed at: ``kind`` is column, waste, foundation or card."""

    kind: str
    index: int | None = None
    count: int | None = None
    card: int | None = None
    suit: int | None = None


def parse_move(rules: Rules, pos: Position, text: str, legal: list[Move] | None = None) -> Move:
    """The legal move ``text`` names in ``pos`` (``legal``: its legal moves, if known).

    Raises:
        InvalidMoveError: the text cannot be read.
        IllegalMoveError: the move it names is against the rules here.
        AmbiguousMoveError: it fits several legal moves.
    """
    if legal is None:
        legal = rules.legal_moves(pos)
    raw = text.strip()
    try:
        canonical = Move.from_notation(raw)
    except ValueError:
        pass
    else:
        if canonical in legal:
            return canonical
    words = [w for w in _SPLIT.split(raw.lower()) if w and w not in _FILLER]
    if len(words) == 1 and words[0] in STOCK_WORDS:
        if DRAW in legal:
            return DRAW
        raise rules.explain(pos, DRAW)
    if not words or len(words) > 2:
        raise InvalidMoveError(text)
    source = _read_source(words[0], rules)
    if source is None:
        raise InvalidMoveError(text)
    if len(words) == 1:
        return best_move(rules, pos, source, legal)
    target = _read_target(words[1], rules)
    if target is None:
        raise InvalidMoveError(text)
    matches = [m for m in legal if m.target == target and _from_source(rules, pos, m, source)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise AmbiguousMoveError(text, [m.notation() for m in matches])
    raise _why_not(rules, pos, source, target)


def _read_source(word: str, rules: Rules) -> Source | None:
    if word in WASTE_WORDS:
        return Source("waste")
    if word in FOUNDATION_WORDS:
        return Source("foundation")
    match = _COLUMN.fullmatch(word)
    if match:
        index = int(match.group(1)) - 1
        count = int(match.group(2)) if match.group(2) else None
        if not 0 <= index < rules.columns or count == 0:
            return None
        return Source("column", index=index, count=count)
    match = _FOUNDATION_NUMBER.fullmatch(word)
    if match:
        index = int(match.group(1)) - 1
        return Source("foundation", index=index) if 0 <= index < rules.foundations else None
    if word.startswith("f") and len(word) > 1:
        suit = _read_suit(word[1:])
        if suit is not None:
            return Source("foundation", suit=suit)
    for prefix in ("fundament", "foundation"):
        if word.startswith(prefix) and len(word) > len(prefix):
            suit = _read_suit(word[len(prefix) :])
            if suit is not None:
                return Source("foundation", suit=suit)
    found = parse_card(word)
    return Source("card", card=found) if found is not None else None


def _read_suit(word: str) -> int | None:
    found = parse_card("a" + word)
    return None if found is None else SUIT[found]


def _read_target(word: str, rules: Rules) -> int | None:
    if word in FOUNDATION_WORDS:
        return FOUNDATION
    if word.isdigit() and 1 <= int(word) <= rules.columns:
        return int(word) - 1
    return None


def moving_card(pos: Position, move: Move) -> int:
    """The card a legal move picks up (the bottom card of what travels)."""
    if move.source >= 0:
        return pos.tableau[move.source][-move.size]
    if move.source == WASTE:
        return pos.waste[-1]
    return pos.foundations[foundation_index(move.source)][-1]


def _from_source(rules: Rules, pos: Position, move: Move, source: Source) -> bool:
    if move.source == STOCK:
        return False
    if source.kind == "column":
        return move.source == source.index and source.count in (None, move.size)
    if source.kind == "waste":
        return move.source == WASTE
    if source.kind == "foundation":
        if not is_foundation_source(move.source):
            return False
        index = foundation_index(move.source)
        if source.index is not None:
            return index == source.index
        if source.suit is not None:
            return SUIT[pos.foundations[index][-1]] == source.suit
        return True
    return moving_card(pos, move) == source.card


def best_move(rules: Rules, pos: Position, source: Source, legal: list[Move]) -> Move:
    """Where a tapped card goes (the Klondike seed 001: "tap a card and it goes to
    wherever it fits"): to its foundation when that is safe, else the best column
    move, else to its foundation anyway. The best column move turns up a face-down
    card, else goes onto a card rather than into an empty column, else keeps a suit
    together (Spider), else moves more cards, else goes to the lowest column number.

    Raises:
        IllegalMoveError: nothing at that source can move.
    """
    candidates = [m for m in legal if _from_source(rules, pos, m, source)]
    home = [m for m in candidates if m.target == FOUNDATION]
    if home and is_safe_home(rules, pos, moving_card(pos, home[0])):
        return home[0]
    columns = [m for m in candidates if m.target >= 0]
    if columns:
        return max(columns, key=lambda m: column_move_rank(rules, pos, m))
    if home:
        return home[0]
    raise _nothing_moves(rules, pos, source)


def is_safe_home(rules: Rules, pos: Position, card: int) -> bool:
    """A card is safe on its foundation when no card that could still be built on it
    is left in play: Aces and twos always, else when every card it could hold is
    already home (for Klondike: both of the other colour one rank lower)."""
    if RANK[card] <= 2:
        return True
    home = {c for pile in pos.foundations for c in pile}
    wanted = rules.WANTS[card]
    return all(c in home for c in range(52) if rules.KEY[c] in wanted)


def column_move_rank(rules: Rules, pos: Position, move: Move) -> tuple[int, int, int, int, int]:
    """How good a move onto a column looks; larger is better (see ``best_move``)."""
    turns_up = 0
    if move.source >= 0:
        left = len(pos.tableau[move.source]) - move.size
        turns_up = int(left > 0 and left == pos.down[move.source])
    target_col = pos.tableau[move.target]
    card = moving_card(pos, move)
    same_suit = int(bool(target_col) and SUIT[target_col[-1]] == SUIT[card])
    return (turns_up, int(bool(target_col)), same_suit, move.size, -move.target)


def _nothing_moves(rules: Rules, pos: Position, source: Source) -> IllegalMoveError:
    if source.kind == "column" and source.index is not None:
        return IllegalMoveError(
            f"Nothing in {column_label(source.index, 'en').lower()} can move.",
            f"Aus {column_label(source.index, 'de')} lässt sich nichts bewegen.",
        )
    if source.kind == "waste":
        if not pos.waste:
            return IllegalMoveError("The waste is empty.", "Die Ablage ist leer.")
        label = card_label(pos.waste[-1], "en"), card_label(pos.waste[-1], "de")
        return IllegalMoveError(
            f"{label[0]} from the waste fits nowhere now.",
            f"{label[1]} von der Ablage passt gerade nirgends.",
        )
    if source.kind == "card" and source.card is not None:
        card = source.card
        if not _visible_sources(pos, card):
            return _not_face_up(card)
        return IllegalMoveError(
            f"{card_label(card, 'en')} fits nowhere now.",
            f"{card_label(card, 'de')} passt gerade nirgends.",
        )
    return IllegalMoveError(
        "Nothing on the foundations can come back now.",
        "Vom Fundament kann gerade nichts zurück.",
    )


def _not_face_up(card: int) -> IllegalMoveError:
    # Says nothing about where a hidden card lies: face down and in the stock read alike.
    return IllegalMoveError(
        f"{card_label(card, 'en')} is not a face-up card you can take.",
        f"{card_label(card, 'de')} liegt nicht offen zum Nehmen bereit.",
    )


def _visible_sources(pos: Position, card: int) -> list[Move]:
    """Moves that would pick ``card`` up, ignoring where it goes (target -9)."""
    found = []
    for i, col in enumerate(pos.tableau):
        for k in range(pos.down[i], len(col)):
            if col[k] == card:
                found.append(Move(i, -9, len(col) - k))
    if pos.waste and pos.waste[-1] == card:
        found.append(Move(WASTE, -9, 1))
    for s, pile in enumerate(pos.foundations):
        if pile and pile[-1] == card:
            found.append(Move(foundation_source(s), -9, 1))
    return found


def _why_not(rules: Rules, pos: Position, source: Source, target: int) -> IllegalMoveError:
    """The reason for the move a player most likely meant."""
    if source.kind == "column" and source.index is not None:
        col = pos.tableau[source.index]
        count = source.count or max(1, rules.unit_length(col, pos.down[source.index]) if col else 1)
        return rules.explain(pos, Move(source.index, target, count))
    if source.kind == "waste":
        return rules.explain(pos, Move(WASTE, target, 1))
    if source.kind == "foundation":
        index = source.index
        if index is None:
            for s, pile in enumerate(pos.foundations):
                if pile and (source.suit is None or SUIT[pile[-1]] == source.suit):
                    index = s
                    break
        if index is None:
            return IllegalMoveError("That foundation is empty.", "Dieses Fundament ist leer.")
        return rules.explain(pos, Move(foundation_source(index), target, 1))
    assert source.card is not None
    picks = _visible_sources(pos, source.card)
    if not picks:
        return _not_face_up(source.card)
    return rules.explain(pos, picks[0]._replace(target=target))
