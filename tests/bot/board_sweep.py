"""Every board a player can bring up along solver-won games, held to Discord's limits.

A line of play is the solver's win of a fixed deal (engine.solver, docs/solver.md).
At each position along it the sweep draws the board as the bot does (``Table.board``:
text and buttons from the player's view), then follows every press that leads to
another board of the same position: each tappable source, each card of a column
that can lead a move (the select menu), each target that still needs its card
chosen, and the Resign confirmation; plus the board of a game proven lost (with
Jump back). Every board is checked against Discord's limits (discord_rules.py), and
every enabled target must play a legal move of the selected source to the pile it
names. The test (test_discord_rules.py) asserts no board breaks a rule;
bench/board_rules.py prints the figures.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from discord_rules import layout_text, rule_breaks

import engine
from bot.client import ArenaClient
from bot.desk import RaceDesk
from bot.i18n import text
from bot.move_menu import MoveMenu
from bot.presses import Prefs
from bot.render import TEXT_SUITS
from bot.table import Table
from bot.views import CHOOSE, BoardButton, BoardSelect, split_selection
from engine.solver import Verdict, solve

# Solver-won deals of every variant (each solves in well under a second).
WON_SEEDS: Final[dict[str, tuple[int, ...]]] = {
    "klondike": (1, 2),
    "klondike-3": (1, 6),
    "spider-1": (1, 5),
    "spider-2": (1, 5),
    "spider-4": (2, 6),
    "yukon": (1, 2),
    "russian": (14, 18),
    "alaska": (2, 3),
}
ONE_TAP_USER: Final = 77  # a Discord user who turned the one-tap option on
GAME: Final = 4_294_967_295  # a game id as long as the server's ids get in practice
# The application's card emoji as Discord writes them (ids of 19 digits).
APP_SUITS: Final = {s: f"<:sa_{s}:14{n}0000000000000000>" for n, s in enumerate("cdhs")}


@functools.cache
def won_line(variant: str, seed: int) -> tuple[str, ...]:
    """The solver's winning moves from the deal of ``seed``, in canonical notation."""
    rules = engine.rules_for(variant)
    result = solve(rules, rules.deal(seed), max_nodes=5_000_000, max_seconds=120.0)
    assert result.verdict is Verdict.WON, (variant, seed, result.verdict)
    return tuple(move.notation() for move in result.moves)


def views_along(variant: str, seed: int, stride: int = 1) -> Iterator[dict[str, Any]]:
    """The player's view at every ``stride``-th position of the won line, and the last."""
    game = engine.new_game(variant, seed=seed)
    for index, move in enumerate(won_line(variant, seed)):
        if index % stride == 0:
            yield game.view()
        game.play(engine.Move.from_notation(move))
    yield game.view()


@dataclass
class Sweep:
    """What the sweep saw: boards drawn, and the boards that broke a rule (with why)."""

    boards: int = 0
    broken: list[tuple[int, str, list[str]]] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)  # buttons that do not do what they say
    taps: int = 0  # boards right after a tap on a source (no card or target chosen yet)
    broken_taps: int = 0
    targets_chosen: int = 0  # boards asking which card goes to a tapped target
    coloured: int = 0  # boards drawn with the application's card emoji…
    colourless: int = 0  # …and those that fell back to the text suit marks

    def add(self, position: int, state: dict[str, Any], breaks: list[str]) -> None:
        self.boards += 1
        sel = state.get("sel") or ""
        tapped = bool(sel) and "." not in sel and not state.get("target")
        self.taps += tapped
        self.targets_chosen += bool(state.get("target"))
        if breaks:
            self.broken.append((position, repr(state), breaks))
            self.broken_taps += tapped


def board_table() -> Table:
    """The bot's table, for its board builder only: its client never connects."""
    table = Table(ArenaClient("ws://127.0.0.1:9/", "unused"), RaceDesk())
    table.boards.prefs[ONE_TAP_USER] = Prefs(one_tap=True)
    return table


def sweep(variant: str, seed: int, *, stride: int = 1, table: Table | None = None) -> Sweep:
    """Draw every board of every ``stride``-th position along the won line of ``seed``
    (English and German boards in turn, with text suits and with the application's
    emoji in turn) and check each one."""
    table = table or board_table()
    seen = Sweep()
    for position, view in enumerate(views_along(variant, seed, stride)):
        locale = ("en", "de")[position % 2]
        # every other position with the application's card emoji (longer marks)
        table.boards.suits = APP_SUITS if position % 4 < 2 else TEXT_SUITS
        _sweep_position(table, seen, position, {"view": view}, locale)
    table.boards.suits = TEXT_SUITS
    return seen


def _sweep_position(
    table: Table, seen: Sweep, position: int, reply: dict[str, Any], locale: str
) -> None:
    legal: dict[str, list[str]] = reply["view"]["legal_moves"]
    todo: list[dict[str, Any]] = [
        {"sel": ""},
        {"sel": "", "confirm_resign": True},
        {"sel": "", "user": ONE_TAP_USER},  # a player with the one-tap option
    ]
    done: set[tuple[tuple[str, Any], ...]] = set()
    lost = False
    while todo or not lost:
        if not todo:  # then the same position once more, as a game proven lost
            lost = True
            table.boards.lost.add(GAME)
            todo.append({"sel": ""})
        state = todo.pop()
        key = (*sorted(state.items()), ("lost", lost))
        if key in done:
            continue
        done.add(key)
        try:
            ui = table.boards.board(GAME, reply, locale, **state)
        except ValueError as err:  # discord.py refuses to build a view too wide
            seen.add(position, state, [f"no view: {err}"])
            continue
        seen.add(position, state, rule_breaks(None, ui))
        if table.boards.suits is APP_SUITS:
            shown = layout_text(ui)
            text_marks = any(mark in shown for mark in TEXT_SUITS.values())
            seen.coloured += not text_marks
            seen.colourless += text_marks
        for item in board_items(ui):
            todo += _presses(item, legal, state, seen)
    table.boards.lost.discard(GAME)


def board_items(ui: Any) -> list[Any]:
    """The buttons and menus of a board, in order, wherever the layout put them."""
    return [i for i in ui.walk_children() if isinstance(i, BoardButton | BoardSelect | MoveMenu)]


def _presses(
    item: Any, legal: dict[str, list[str]], state: dict[str, Any], seen: Sweep
) -> list[dict[str, Any]]:
    """The board states a press on ``item`` leads to (checking that a target plays a
    legal move to the pile its label names)."""
    if isinstance(item, MoveMenu):  # each choice plays a legal move no tap plays
        values = [option.value for option in item.item.options]
        for value in values[:-1]:
            if value not in legal.get(value.partition(">")[0].partition(":")[0], []):
                seen.wrong.append(f"menu {item.custom_id} offers {value}, not a legal move")
        if values[-1:] != [CHOOSE]:
            seen.wrong.append(f"menu {item.custom_id} ends without Choose")
        return [{**state, "sel": CHOOSE, "target": None}]  # after Choose
    if isinstance(item, BoardSelect):
        values = [option.value for option in item.item.options]
        target = getattr(item, "target", None)
        if target:
            for value in values:
                move = _move(item.source, int(value), target)
                if move not in legal.get(item.source, []):
                    seen.wrong.append(f"menu {item.custom_id} value {value}: {move} is not legal")
            return []
        return [{**state, "sel": f"{item.source}.{value}"} for value in values]
    if not isinstance(item, BoardButton) or item.item.disabled:
        return []
    if item.op == "s":
        return [{**state, "sel": item.arg, "target": None}]
    if item.op != "t":
        return []
    source, size = split_selection(item.sel)
    moves = legal.get(source or "", [])
    label = str(item.item.label)
    pile = getattr(item, "pile", None) or label
    if label in ("→ " + text("en", "foundation_short"), "→ " + text("de", "foundation_short")):
        pile = "f"
    if item.arg.startswith("?"):
        target = item.arg[1:]
        reaching = [m for m in moves if m.endswith(f">{target}")]
        if target != pile or len(reaching) < 2:
            seen.wrong.append(f"{item.custom_id} ({label}) needs no card chosen")
        return [{**state, "sel": item.sel, "target": target}] if target else []
    head, _, target = item.arg.partition(">")
    own = head.partition(":")[0]
    if not target:  # a source alone: the server's one-tap rule
        if own != pile or own not in legal:
            seen.wrong.append(f"{item.custom_id} ({label}) one-taps {item.arg}, not {pile}")
        return []
    if own != source:  # a pile whose tap plays its most useful move (bot/taps.py)
        if item.arg not in legal.get(own, []) or pile != own:
            seen.wrong.append(f"{item.custom_id} ({label}) plays {item.arg}, not its own move")
        return []
    if item.arg not in moves or target != pile:
        seen.wrong.append(f"{item.custom_id} ({label}) plays {item.arg}, not a move to {pile}")
    if size is not None and engine_size(head) != size:
        seen.wrong.append(f"{item.custom_id} moves {engine_size(head)} cards, not {size}")
    return []


def engine_size(head: str) -> int:
    """How many cards the source part of a canonical move moves (``7:3`` three)."""
    return int(head.partition(":")[2] or 1)


def _move(source: str, size: int, target: str) -> str:
    return f"{source}:{size}>{target}" if size > 1 else f"{source}>{target}"


def presses_along(variant: str, seed: int, table: Table | None = None) -> tuple[int, int]:
    """Presses the board needs to play the won line of ``seed``, and its moves: Draw
    or Deal is one press; a move a tap on its pile plays (bot/taps.py), one; a move in
    the menu of other moves, one choice; else Choose, the source, then its target, then
    (when several cards of the source reach that target) the card in the menu."""
    table = table or board_table()
    game = engine.new_game(variant, seed=seed)
    presses = 0
    line = won_line(variant, seed)
    for move in line:
        presses += _presses_for(table, game.view(), move)
        game.play(engine.Move.from_notation(move))
    return presses, len(line)


def _presses_for(table: Table, view: dict[str, Any], move: str) -> int:
    if ">" not in move:
        return 1  # draw or deal
    head, _, target = move.partition(">")
    source = head.partition(":")[0]
    first = table.boards.board(GAME, {"view": view}, "en")
    for item in board_items(first):
        if isinstance(item, BoardButton) and item.op == "t" and item.arg == move:
            return 1  # what a tap on the pile plays
        if isinstance(item, MoveMenu) and move in [o.value for o in item.item.options]:
            return 1  # one choice in the menu of other moves
    ui = table.boards.board(GAME, {"view": view}, "en", sel=source)
    for item in board_items(ui):
        if isinstance(item, BoardButton) and item.op == "t" and not item.item.disabled:
            if item.arg == move:
                return 3  # Choose, the source, the target
            if item.arg == f"?{target}":
                return 4
    raise AssertionError(f"no button plays {move}")
