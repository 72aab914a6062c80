"""The player's view: everything a player may see, as JSON-ready data.

It never holds a face-down card or a stock card: columns give only the number of
their face-down cards, the stock only its size. In draw 3 the waste shows the cards
of the last draw still lying there (at least the top one), as a fanned waste does.
Legal moves are listed by source in canonical notation, so a client can light up
targets without knowing the rules (design.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.cards import CODES, SUIT, SUIT_LETTERS
from engine.moves import named

if TYPE_CHECKING:
    from engine.game import Game


def player_view(game: Game) -> dict[str, object]:
    """The view of ``game`` for its player."""
    rules = game.rules
    pos = game.position
    fixed = SUIT_LETTERS if rules.suited_foundations else (None,) * len(pos.foundations)
    legal: dict[str, list[str]] = {}
    for move in game.legal_list():
        source, text = named(move)
        group = legal.get(source)
        if group is None:
            legal[source] = [text]
        else:
            group.append(text)
    outcome = game.outcome
    view: dict[str, object] = {
        "variant": game.variant,
        "seed": game.seed,
        "deal_code": game.deal_code,
        "options": game.options,
        "tableau": [
            {"down": down, "up": [CODES[c] for c in col[down:]]}
            for col, down in zip(pos.tableau, pos.down, strict=True)
        ],
        "stock": len(pos.stock) if rules.has_stock else None,
        "waste": None,
        "foundations": [
            {
                # Klondike's foundations are fixed, ♣ ♦ ♥ ♠; the others take the
                # suit of their Ace.
                "suit": SUIT_LETTERS[SUIT[pile[0]]] if pile else fixed[index],
                "cards": len(pile),
                "top": CODES[pile[-1]] if pile else None,
            }
            for index, pile in enumerate(pos.foundations)
        ],
        "counters": game.counters,
        "outcome": outcome.termination.value if outcome else None,
        "can_finish": game.can_finish,
        "legal_moves": legal,
    }
    if rules.has_waste:
        shown = max(pos.fan, 1) if pos.waste else 0
        view["waste"] = {
            "count": len(pos.waste),
            "visible": [CODES[c] for c in pos.waste[-shown:]] if shown else [],
        }
        view["passes"] = pos.redeals
    if rules.foundations == 8:
        view["runs_removed"] = len(pos.foundations)
        view["deals_left"] = -(-len(pos.stock) // rules.columns)
    return view
