"""Which move a tap on a pile plays by default, and the board's other moves.

A board's pile button plays at once (bot/views.py): of the legal moves the server lists
for that pile (``legal_moves``), the one a player most often means. The order below
agrees best with the solver's wins of every variant (bench/press_calls.py,
docs/performance.md), which take one press a move this way:

1. to a foundation (the solver, like most players, sends a card home when it can);
2. a move that turns up a face-down card (it uncovers what the deal hid);
3. in Spider, onto a card of the same suit (a run that can go home in one piece), then
   the longest run; where any face-up card moves with the cards on it (the variants
   without a stock: Yukon, Russian, Alaska), the fewest cards, which keeps the column
   standing; in Klondike, onto a card before an empty column, then the longest run;
4. the lowest column number (so the same board always plays the same move).

Every other legal move is in the board's menu of other moves (one choice plays it),
the most useful first, as many as a Discord menu holds; its last choice, Choose, makes
the next tap select a pile instead, whose legal targets light up. The bot only
chooses among the moves the server listed as legal; the server still checks the move.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from bot.render import move_size

MENU_SIZE: Final = 24  # a Discord select menu's 25 options, one of them Choose


def tap_move(view: Mapping[str, Any], pile: str) -> str | None:
    """The move a tap on ``pile`` plays (canonical notation), or None when the pile has
    no legal move."""
    moves: list[str] = [m for m in (view.get("legal_moves") or {}).get(pile, []) if ">" in m]
    if not moves:
        return None
    return max(moves, key=lambda move: usefulness(view, move))


def other_moves(view: Mapping[str, Any]) -> list[str]:
    """The legal moves no tap on a pile plays, the most useful first, at most 24 (with
    Choose, a menu's 25 choices; a move further down is Choose, a pile and a target
    away)."""
    legal: Mapping[str, list[str]] = view.get("legal_moves") or {}
    tapped = {tap_move(view, pile) for pile in legal}
    rest = [m for moves in legal.values() for m in moves if ">" in m and m not in tapped]
    rest.sort(key=lambda move: usefulness(view, move), reverse=True)
    return rest[:MENU_SIZE]


def usefulness(view: Mapping[str, Any], move: str) -> tuple[int, ...]:
    """How useful ``move`` looks; larger is better (the order in the module docstring)."""
    head, _, target = move.partition(">")
    source = head.partition(":")[0]
    size = move_size(head)
    tableau = view["tableau"]
    turns_up = False
    card = None
    if source.isdigit():
        column = tableau[int(source) - 1]
        turns_up = size == len(column["up"]) and column["down"] > 0
        card = column["up"][-size] if size <= len(column["up"]) else None
    onto: str | None = None
    number = 0
    if target.isdigit():
        number = int(target)
        up = tableau[number - 1]["up"]
        onto = up[-1] if up else None
    same_suit = bool(card and onto and card[-1] == onto[-1])
    if "runs_removed" in view:  # Spider
        return (turns_up, same_suit, size, onto is not None, -number)
    if view.get("stock") is None:  # any face-up card moves: Yukon, Russian, Alaska
        return (target == "f", turns_up, -size, -number)
    return (target == "f", turns_up, onto is not None, same_suit, size, -number)
