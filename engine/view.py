"""The player's view: everything a player may see, as JSON-ready data.

It never holds a face-down card or a stock card: columns give only the number of
their face-down cards, the stock only its size. In draw 3 the waste shows the cards
of the last draw still lying there (at least the top one), as a fanned waste does.
Legal moves are listed by source in canonical notation, so a client can light up
targets without knowing the rules (design.md).

The server builds a view for every move it acknowledges, so the piles are built by
compiled code (``engine/native/view.c``); ``interpreted_board`` is the same in Python,
the readable reference a test holds the compiled one to.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from engine import _view
from engine.cards import CODES, SUIT, SUIT_LETTERS
from engine.moves import NOTATIONS, Move, named
from engine.position import Position

if TYPE_CHECKING:
    from engine.game import Game

# Each card's suit letter, and Klondike's fixed foundation suits (♣ ♦ ♥ ♠); foundations
# of the other variants take the suit of their Ace and show none while empty.
SUIT_CODES: Final = tuple(SUIT_LETTERS[suit] for suit in SUIT)
FIXED_SUITS: Final = tuple(SUIT_LETTERS)

Board = tuple[list[dict[str, object]], list[dict[str, object]], dict[str, list[str]], list[str]]


def player_view(game: Game) -> dict[str, object]:
    """The view of ``game`` for its player."""
    rules = game.rules
    pos = game.position
    tableau, foundations, legal, visible = _view.board(
        pos,
        game.legal_list(),
        NOTATIONS,
        named,
        CODES,
        SUIT_CODES,
        FIXED_SUITS if rules.suited_foundations else None,
    )
    outcome = game.outcome
    view: dict[str, object] = {
        "variant": game.variant,
        "seed": game.seed,
        "deal_code": game.deal_code,
        "options": game.options,
        "tableau": tableau,
        "stock": len(pos.stock) if rules.has_stock else None,
        "waste": None,
        "foundations": foundations,
        "counters": game.counters,
        "outcome": outcome.termination.value if outcome else None,
        "can_finish": game.can_finish,
        "legal_moves": legal,
    }
    if rules.has_waste:
        view["waste"] = {"count": len(pos.waste), "visible": visible}
        view["passes"] = pos.redeals
    if rules.foundations == 8:
        view["runs_removed"] = len(pos.foundations)
        view["deals_left"] = -(-len(pos.stock) // rules.columns)
    return view


def interpreted_board(pos: Position, legal: list[Move], suited: bool) -> Board:
    """What ``_view.board`` returns, built in Python: the columns, the foundations,
    the legal moves by source, and the waste cards the player sees."""
    tableau: list[dict[str, object]] = [
        {"down": down, "up": [CODES[c] for c in col[down:]]}
        for col, down in zip(pos.tableau, pos.down, strict=True)
    ]
    fixed = FIXED_SUITS if suited else (None,) * len(pos.foundations)
    foundations: list[dict[str, object]] = [
        {
            "suit": SUIT_CODES[pile[0]] if pile else fixed[i],
            "cards": len(pile),
            "top": CODES[pile[-1]] if pile else None,
        }
        for i, pile in enumerate(pos.foundations)
    ]
    groups: dict[str, list[str]] = {}
    for move in legal:
        source, text = named(move)
        groups.setdefault(source, []).append(text)
    shown = max(pos.fan, 1) if pos.waste else 0
    visible = [CODES[c] for c in pos.waste[-shown:]] if shown else []
    return tableau, foundations, groups, visible
