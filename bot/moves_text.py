"""Moves as players read and type them: readable names, typed text matched, safe cards.

The server's view lists every legal move in canonical notation (``7:2>3``, ``w>f``,
``d``); this module only presents them. ``move_choices`` gives the autocomplete of
``/solitaire move``: the legal moves that fit what the player typed so far, in the
forms people type (``7 3``, ``7>3``, ``9h``, ``9♥ 3``, ``w f``, German words such as
``ablage fundament`` or ``ziehen``), each named readably ("9♡ · 7 → 3, onto 10♠︎").
``safe_home_moves`` finds the foundation moves the engine's one-tap rule calls safe
(docs/notation.md: an Ace or a two, or a card no card left in play could be built on),
asking the engine's own test over the view's foundations: the bot holds no rule of its
own, and the server checks every move it then sends.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Final

import engine
from bot.i18n import text
from bot.render import card_text, move_size
from engine.cards import SUIT_LETTERS, number
from engine.notation import is_safe_home

CHOICES: Final = 25  # Discord shows at most 25 autocomplete choices
DRAW_WORDS: Final = ("d", "draw", "deal", "stock", "ziehen", "geben", "austeilen", "talon")
WASTE_WORDS: Final = ("w", "waste", "ablage")
HOME_WORDS: Final = ("f", "foundation", "fundament", "home", "hoch", "nach oben")
FILLER: Final = frozenset({"to", "onto", "on", "nach", "auf", "zu", "from", "von", "aus"})


@dataclass(frozen=True)
class Described:
    """One legal move and what a player may call it."""

    move: str  # canonical
    source: str  # "7", "w", "f2", "d"
    target: str  # "3", "f", ""
    card: str | None  # the card that leads the move (its code, ``9h``)
    onto: str | None  # the card it goes onto (its code), None for an empty pile or home
    size: int


def describe(view: Mapping[str, Any]) -> Iterator[Described]:
    """Every legal move of ``view`` with its cards, as far as the view shows them."""
    legal: Mapping[str, list[str]] = view.get("legal_moves") or {}
    for source, moves in legal.items():
        for move in moves:
            if ">" not in move:
                yield Described(move, source, "", None, None, 1)
                continue
            head, target = move.split(">", 1)
            size = move_size(head)
            yield Described(
                move, source, target, _leading(view, source, size), _onto(view, target), size
            )


def _leading(view: Mapping[str, Any], source: str, size: int) -> str | None:
    if source.isdigit():
        up = view["tableau"][int(source) - 1]["up"]
        return str(up[-size]) if size <= len(up) else None
    if source == "w":
        visible = (view.get("waste") or {}).get("visible") or []
        return str(visible[-1]) if visible else None
    if source.startswith("f") and source[1:].isdigit():
        top = view["foundations"][int(source[1:]) - 1].get("top")
        return str(top) if top else None
    return None


def _onto(view: Mapping[str, Any], target: str) -> str | None:
    if target.isdigit():
        up = view["tableau"][int(target) - 1]["up"]
        return str(up[-1]) if up else None
    return None


def move_name(described: Described, view: Mapping[str, Any], locale: str) -> str:
    """A move as a player reads it: "9♡ · 7 → 3, onto 10♠︎", "5♢ · Waste → Foundation",
    "K♠︎ (3 cards) · 7 → 2, empty column", "Draw"."""
    if described.target == "":
        key = "btn_deal" if "runs_removed" in view else "btn_draw"
        return text(locale, key)
    card = card_text(described.card, locale=locale) if described.card else "?"
    if described.size > 1:
        card = text(locale, "card_count", card=card, count=described.size)
    where = f"{_pile_name(described.source, locale)} → {_pile_name(described.target, locale)}"
    name = f"{card} · {where}"
    if described.target.isdigit():
        if described.onto:
            name += ", " + text(locale, "onto", card=card_text(described.onto, locale=locale))
        else:
            name += ", " + text(locale, "empty_column")
    return name[:100]


def readable_move(view: Mapping[str, Any], move: str, locale: str) -> str:
    """A legal move of ``view`` as players read it ("5♢ · Waste → Foundation"); the
    notation itself when it is not one of the view's legal moves."""
    for described in describe(view):
        if described.move == move:
            return move_name(described, view, locale)
    return move


def _pile_name(pile: str, locale: str) -> str:
    if pile == "w":
        return text(locale, "waste_short")
    if pile == "f":
        return text(locale, "foundation_short")
    if pile.startswith("f"):
        return pile.upper()
    return pile


def _tokens(typed: str) -> list[str]:
    words = re.split(r"[\s>,\-→:]+", typed.strip().lower())
    return [w for w in words if w and w not in FILLER]


def _fits_source(word: str, d: Described) -> bool:
    if d.target == "":
        return any(w.startswith(word) for w in DRAW_WORDS)
    if d.source == word or (d.source == "w" and any(w.startswith(word) for w in WASTE_WORDS)):
        return True
    if d.card is not None and _fits_card(word, d.card):
        return True
    return d.source.startswith("f") and d.source.startswith(word) and len(word) > 1


def _fits_card(word: str, code: str) -> bool:
    read = engine.parse_card(word)
    if read is not None:
        return str(read) == code
    return word == code[:-1].lower()  # a rank alone: "9", "10", "k"


def _fits_target(word: str, d: Described) -> bool:
    if d.target == "f":
        return any(w.startswith(word) for w in HOME_WORDS)
    if d.target == word:
        return True
    return d.onto is not None and _fits_card(word, d.onto)


def matches(typed: str, d: Described) -> bool:
    """Whether ``typed`` (what the player has typed so far) could mean the move ``d``:
    its canonical form begins with it, or its first word names the source (pile, card
    or word) and its second the target."""
    if d.move.startswith(typed.strip().lower()):
        return True
    words = _tokens(typed)
    if not words:
        return True
    if not _fits_source(words[0], d):
        return False
    if len(words) == 1:
        return True
    if d.target == "":
        return False
    rest = words[1:]
    if rest[0].isdigit() and d.source.isdigit() and d.size > 1 and len(rest) > 1:
        rest = rest[1:]  # "7 3 2": three cards of column 7 onto column 2
    return _fits_target(rest[0], d)


def move_choices(
    view: Mapping[str, Any], typed: str, locale: str, limit: int = CHOICES
) -> list[tuple[str, str]]:
    """(name, canonical move) of the legal moves that fit ``typed``, at most ``limit``."""
    found = [(move_name(d, view, locale), d.move) for d in describe(view) if matches(typed, d)]
    return found[:limit]


def safe_home_moves(view: Mapping[str, Any]) -> list[str]:
    """The legal moves to a foundation whose card the engine's one-tap rule calls safe
    there (nothing left in play could still be built on it)."""
    legal: Mapping[str, list[str]] = view.get("legal_moves") or {}
    if "runs_removed" in view:
        return []  # Spider lifts whole runs off by itself
    rules = engine.rules_for(view["variant"], view.get("options") or {})
    home = []
    for pile in view.get("foundations") or []:
        suit = pile.get("suit")
        if suit:
            home.append(
                tuple(number(rank, SUIT_LETTERS.index(suit)) for rank in range(1, 14))[
                    : pile["cards"]
                ]
            )
    position = SimpleNamespace(foundations=home)
    safe = []
    for source, moves in legal.items():
        for move in moves:
            if not move.endswith(">f"):
                continue
            card = _leading(view, source, 1)
            parsed = engine.parse_card(card) if card else None
            if parsed is not None and is_safe_home(rules, position, int(parsed)):  # type: ignore[arg-type]
                safe.append(move)
    return safe
