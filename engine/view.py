"""The player's view: everything a player may see, as JSON-ready data.

It never holds a face-down card or a stock card: columns give only the number of
their face-down cards, the stock only its size. In draw 3 the waste shows the cards
of the last draw still lying there (at least the top one), as a fanned waste does.
Legal moves are listed by source in canonical notation, so a client can light up
targets without knowing the rules (design.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, NamedTuple

from engine.cards import CODES, SUIT, SUIT_LETTERS
from engine.moves import named
from engine.position import Column, Pile, Position

if TYPE_CHECKING:
    from engine.game import Game


class Shown(NamedTuple):
    """The piles a view showed and their entries, for the next view to reuse.

    A move changes one or two piles; the others are the very same tuples in the next
    position, so their entries (shared between views, never changed) are taken over
    instead of built again. On a busy server the view is the costliest part of a
    move's reply (docs/performance.md), and the piles are most of it.
    """

    tableau: tuple[Column, ...]
    down: tuple[int, ...]
    columns: list[dict[str, object]]
    foundations: tuple[Pile, ...]
    piles: list[dict[str, object]]


NOTHING_SHOWN: Final = Shown((), (), [], (), [])


def player_view(game: Game, last: Shown | None = None) -> tuple[dict[str, object], Shown]:
    """The view of ``game`` for its player, reusing the unchanged piles of ``last``
    (the view before, if any); also what this view showed, for the next one."""
    rules = game.rules
    pos = game.position
    legal: dict[str, list[str]] = {}
    for move in game.legal_list():
        source, text = named(move)
        group = legal.get(source)
        if group is None:
            legal[source] = [text]
        else:
            group.append(text)
    outcome = game.outcome
    before = last if last is not None else NOTHING_SHOWN
    columns = _columns(pos, before)
    piles = _piles(pos, rules.suited_foundations, before)
    view: dict[str, object] = {
        "variant": game.variant,
        "seed": game.seed,
        "deal_code": game.deal_code,
        "options": game.options,
        "tableau": columns,
        "stock": len(pos.stock) if rules.has_stock else None,
        "waste": None,
        "foundations": piles,
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
    return view, Shown(pos.tableau, pos.down, columns, pos.foundations, piles)


def _columns(pos: Position, last: Shown) -> list[dict[str, object]]:
    return [
        last.columns[i]
        if i < len(last.tableau) and col is last.tableau[i] and down == last.down[i]
        else {"down": down, "up": [CODES[c] for c in col[down:]]}
        for i, (col, down) in enumerate(zip(pos.tableau, pos.down, strict=True))
    ]


def _piles(pos: Position, suited: bool, last: Shown) -> list[dict[str, object]]:
    # Klondike's foundations are fixed, ♣ ♦ ♥ ♠; the others take the suit of their Ace.
    fixed = SUIT_LETTERS if suited else (None,) * len(pos.foundations)
    return [
        last.piles[i]
        if i < len(last.foundations) and pile is last.foundations[i]
        else {
            "suit": SUIT_LETTERS[SUIT[pile[0]]] if pile else fixed[i],
            "cards": len(pile),
            "top": CODES[pile[-1]] if pile else None,
        }
        for i, pile in enumerate(pos.foundations)
    ]
