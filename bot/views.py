"""Buttons and menus of boards and race messages, all with persistent custom ids.

Every item is a ``DynamicItem`` whose custom id carries all it needs (game or race,
what was tapped, what is selected), so a board keeps working after the bot
restarts: discord.py rebuilds the item from the id alone. The items only hand the
press to the ``Table`` (bot/table.py); the legal targets come from the server's
view (``legal_moves``), and the server decides whether a move is legal.

Custom ids (Discord allows 100 characters):
    ``sa|b|<game>|<op>|<arg>|<sel>``  board button; op the letter of a ``BoardOp``:
        s(ource) t(arget) c(ancel) d(raw) u(ndo) j(ump back) h(int) x (finish)
        r(esign) R (resign confirmed); ``sel`` is the
        selected source with an optional size, ``7`` or ``7.3``; a target's ``arg``
        is its move (``7:3>2``), or ``?2`` when several cards of the source could go
        to column 2 and the player picks which
    ``sa|k|<game>|<source>``           board menu: which card of a column moves
    ``sa|k|<game>|<source>|<target>``  board menu: which card of it goes to ``target``
        (choosing one plays the move)
    ``sa|r|<race>|<op>``               race message (bot/race_buttons.py)

Discord refuses a message whose custom ids repeat, disabled items included, so every
id on a board names its own pile or move.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final

import discord

from bot.holder import table_of
from bot.i18n import text
from bot.render import card_text, move_size, targets_of
from bot.taps import tap_move

if TYPE_CHECKING:
    from bot.move_menu import MoveMenu


class BoardOp(StrEnum):
    """What a board button does; its value is the letter its custom id carries (boards
    already posted keep these letters, so they never change)."""

    SELECT = "s"  # tap a source
    TARGET = "t"  # play the selected source onto a pile (or pick its card first)
    CANCEL = "c"  # drop the selection
    DRAW = "d"  # draw (Klondike) or deal a row (Spider)
    UNDO = "u"
    JUMP_BACK = "j"  # back to the last winnable position of a game proven lost
    HINT = "h"
    FINISH = "x"  # play every card home
    RESIGN = "r"  # asks to confirm
    RESIGN_CONFIRMED = "R"
    SHARE = "S"  # a won game's result as a line to copy; arg: the daily deal's date
    TYPE = "m"  # type a move (a form); the board is edited with its result

    @classmethod
    def of(cls, letter: str) -> BoardOp:
        """The op a custom id's letter names; an unknown letter (a board of a newer or
        older bot) only drops the selection."""
        try:
            return cls(letter)
        except ValueError:
            return cls.CANCEL


def split_selection(sel: str) -> tuple[str | None, int | None]:
    """``"7.3"`` → ("7", 3); ``"7"`` → ("7", None); ``""`` → (None, None)."""
    if not sel:
        return None, None
    source, _, size = sel.partition(".")
    return source, int(size) if size.isdigit() else None


@dataclass
class BoardButtons:
    """The buttons of a board, by what they stand for: a button per pile (columns in
    order, then the waste, the foundation as a target and foundations as sources), the
    menu of the cards of a column when one is open, the menu of other moves, and the
    controls (Draw, Undo, Hint, Finish, Type a move, Resign; Cancel after Choose; Share
    alone on a won game). bot/layout.py lays them out."""

    piles: list[BoardButton]
    controls: list[BoardButton]
    select: BoardSelect | None = None
    moves: MoveMenu | None = None  # the other moves (bot/move_menu.py), added by the table

    def items(self) -> list[BoardButton | BoardSelect | MoveMenu]:
        """Every item, piles first, then the menus, then the controls."""
        menus = [m for m in (self.select, self.moves) if m is not None]
        return [*self.piles, *menus, *self.controls]

    def pile(self, name: str) -> BoardButton | None:
        """The button of pile ``name`` ("7", "w", "f", "f1"), if the board has one."""
        return next((b for b in self.piles if b.pile == name), None)


def board_buttons(
    game: int,
    view: Mapping[str, Any],
    locale: str,
    *,
    sel: str = "",
    confirm_resign: bool = False,
    allow_undo: bool = True,
    allow_hints: bool = True,
    lost: bool = False,
    target: str | None = None,
    daily: str | None = None,
    one_tap: bool = False,
    hint: str | None = None,
    undo_to: str = "",
) -> BoardButtons | None:
    """The buttons of a board (only Share once the game is won, none once resigned).

    A pile whose top can make exactly one legal move plays it on the first tap (a green
    button: it plays); with ``one_tap`` any pile does (the server's one-tap rule,
    "wherever it fits"); else a tap selects it (a grey button) and its legal targets
    light up green, and tapping the selected pile (blue) again plays the one-tap rule.
    ``hint`` (a move) lights its target blue, which plays it in one tap. A game the
    server proved lost offers to jump back to its last winnable move. "No more moves"
    does not end a game (the server keeps it playing): its board keeps every button, so
    the player can undo, jump back or resign. With ``target`` (a column several cards
    of the selected source could go to) the menu lists those cards, and choosing one
    plays its move. Buttons that rarely apply (the foundations as sources, the
    foundation as a target) are shown only when they apply; each pile's button names
    its top card. ``undo_to``: the source of a one-tap move just played, selected again
    by Undo (so a move that went elsewhere than meant is put right in two taps), and
    after ``+`` the cards the auto-home option sent home after the move, which the same
    Undo takes back with it. A race board before its start is face down: its columns
    by number, nothing to tap on them, and Turn the cards up.
    """
    if view.get("outcome") == "won" or view.get("status") == "won":
        label = text(locale, "btn_share")
        return BoardButtons([], [BoardButton(game, BoardOp.SHARE, daily or "", "", label=label)])
    if view.get("status", "playing") != "playing":
        return None
    if face_down(view):
        return _face_down_buttons(game, view, locale)
    legal: Mapping[str, list[str]] = view.get("legal_moves") or {}
    source, size = split_selection(sel)
    moves = legal.get(source, []) if source else []
    look = Look(view, legal, source, size, moves, locale, one_tap, hint)
    piles: list[BoardButton] = []
    for number in range(1, len(view["tableau"]) + 1):
        piles.append(_pile_button(game, str(number), look))
    if view.get("waste") is not None:
        piles.append(_pile_button(game, "w", look))
    if "runs_removed" not in view and view.get("foundations"):
        if "f" in targets_of(moves, size):
            piles.append(_pile_button(game, "f", look))
        for index in range(1, len(view["foundations"]) + 1):
            if f"f{index}" in legal or source == f"f{index}":  # a card taken back: rare
                piles.append(_pile_button(game, f"f{index}", look))
    if target is not None:
        moves = [m for m in moves if m.endswith(f">{target}")]
    sizes = sorted({move_size(m.split(">")[0]) for m in moves if ">" in m})
    select = None
    if source and source.isdigit() and (len(sizes) > 1 or (target and sizes)):
        chosen = None if target else size
        select = BoardSelect.make(game, source, sizes, chosen, view, locale, target=target)
    controls = _controls(game, view, locale, confirm_resign, allow_undo, allow_hints, lost, hint)
    controls[-2:-2] = _choose(sel, game, locale)
    controls = [
        BoardButton(game, BoardOp.UNDO, undo_to, "", label=b.item.label or "")
        if b.op is BoardOp.UNDO and undo_to
        else b
        for b in controls
    ]
    return BoardButtons(piles, controls, select)


@dataclass(frozen=True)
class Look:
    """What every pile button of one board is drawn from."""

    view: Mapping[str, Any]
    legal: Mapping[str, list[str]]
    source: str | None
    size: int | None
    moves: list[str]
    locale: str
    one_tap: bool
    hint: str | None


def face_down(view: Mapping[str, Any]) -> bool:
    """Whether ``view`` is a race board before the start: the deal's shape, no card up."""
    tableau = view["tableau"]
    return all(not column["up"] for column in tableau) and any(c["down"] for c in tableau)


def _face_down_buttons(game: int, view: Mapping[str, Any], locale: str) -> BoardButtons:
    """A board before its race starts: its columns by number (nothing to tap on them),
    one button that turns the cards up (the bot turns them by itself at the start, but
    not a board opened before a restart: it can no longer edit it), and Resign."""
    piles = [
        BoardButton(
            game,
            BoardOp.SELECT,
            str(number),
            "",
            label=text(locale, "face_down_pile", number=number),
            pile=str(number),
            disabled=True,
        )
        for number in range(1, len(view["tableau"]) + 1)
    ]
    turn = BoardButton(
        game, BoardOp.CANCEL, "", "", label=text(locale, "btn_turn_up"), style="primary"
    )
    resign = BoardButton(
        game, BoardOp.RESIGN, "", "", label=text(locale, "btn_resign"), style="danger"
    )
    return BoardButtons(piles, [turn, resign])


CHOOSE: Final = "*"  # the selection after Choose: the next tap on a pile selects it


def _choose(sel: str, game: int, locale: str) -> list[BoardButton]:
    """Cancel after Choose (the last choice of the menu of other moves, bot/move_menu.py),
    while the next tap would select a pile: it leaves the board as it was."""
    if sel != CHOOSE:
        return []
    return [BoardButton(game, BoardOp.CANCEL, "", sel, label=text(locale, "btn_cancel"))]


def one_tap_text(source: str, size: int | None) -> str:
    """The source alone, which the server plays by its one-tap rule: ``7``, ``7:3``, ``w``."""
    return f"{source}:{size}" if size and size > 1 and source.isdigit() else source


def _pile_button(game: int, pile: str, look: Look) -> BoardButton:
    label = pile_label(pile, look.view, look.locale)
    source, size = look.source, look.size
    if source is None or (pile != source and pile not in targets_of(look.moves, size)):
        if pile == "f":
            return BoardButton(
                game, BoardOp.SELECT, pile, "", label=label, pile=pile, disabled=True
            )
        own = look.legal.get(pile, [])
        sel = "" if source is None else (source if size is None else f"{source}.{size}")
        if not own:
            return BoardButton(
                game, BoardOp.SELECT, pile, sel, label=label, pile=pile, disabled=True
            )
        # A tap that plays is green; one that selects is grey.
        if source is not None:  # a pile is selected, or Choose was pressed: it selects
            return BoardButton(game, BoardOp.SELECT, pile, "", label=label, pile=pile)
        if look.one_tap:
            return BoardButton(
                game, BoardOp.TARGET, pile, sel, label=label, pile=pile, style="success"
            )
        move = tap_move(look.view, pile)  # the pile's most useful move (bot/taps.py)
        if move is None:
            return BoardButton(game, BoardOp.SELECT, pile, "", label=label, pile=pile)
        return BoardButton(game, BoardOp.TARGET, move, sel, label=label, pile=pile, style="success")
    sel = source if size is None else f"{source}.{size}"
    if pile == source:  # tapped again: wherever it fits (the server's one-tap rule)
        arg = one_tap_text(source, size)
        return BoardButton(game, BoardOp.TARGET, arg, sel, label=label, pile=pile, style="primary")
    target = pile
    matching = [m for m in look.moves if m.endswith(f">{target}")]
    if size is not None:
        matching = [m for m in matching if move_size(m.split(">")[0]) == size]
    hinted = look.hint is not None and look.hint in matching
    # Several cards of the source could go there (runs of several sizes onto an empty
    # column, say): the button names its target, and the player picks the card next.
    arg = matching[0] if len(matching) == 1 else f"?{target}"
    if hinted:
        arg = str(look.hint)
    style = "primary" if hinted else "success"
    return BoardButton(game, BoardOp.TARGET, arg, sel, label=label, pile=pile, style=style)


def pile_label(pile: str, view: Mapping[str, Any], locale: str) -> str:
    """A pile's button says what it moves: its top card ("J♠︎"; "4 J♠︎" when another
    column shows the same card, as two decks can), "Waste 10♢", "F1 5♡", an empty
    column "Empty 4"."""
    if pile == "f":
        return "→ " + text(locale, "foundation_short")
    if pile.isdigit():
        tops = [c["up"][-1] if c["up"] else None for c in view["tableau"]]
        top = tops[int(pile) - 1]
        if top is None:
            return text(locale, "empty_pile", number=pile)
        card = card_text(top, locale=locale)
        return f"{pile} {card}" if tops.count(top) > 1 else card
    if pile == "w":
        visible = (view.get("waste") or {}).get("visible") or []
        name = text(locale, "waste_short")
        return f"{name} {card_text(visible[-1], locale=locale)}" if visible else name
    top = view["foundations"][int(pile[1:]) - 1].get("top")
    return f"{pile.upper()} {card_text(top, locale=locale)}" if top else pile.upper()


def _controls(
    game: int,
    view: Mapping[str, Any],
    locale: str,
    confirm_resign: bool,
    allow_undo: bool,
    allow_hints: bool,
    lost: bool,
    hint: str | None,
) -> list[BoardButton]:
    legal = view.get("legal_moves") or {}
    buttons = []
    if view.get("stock") is not None:
        key = "btn_deal" if "runs_removed" in view else "btn_draw"
        buttons.append(
            BoardButton(
                game,
                BoardOp.DRAW,
                "",
                "",
                label=text(locale, key),
                disabled="d" not in legal,
                style="primary" if hint == "d" else "secondary",
            )
        )
    if allow_undo:
        buttons.append(BoardButton(game, BoardOp.UNDO, "", "", label=text(locale, "btn_undo")))
    if allow_undo and lost and not view.get("can_finish"):  # a game that can finish is won
        label = text(locale, "btn_jump_back")
        buttons.append(BoardButton(game, BoardOp.JUMP_BACK, "", "", label=label, style="primary"))
    if allow_hints:
        buttons.append(BoardButton(game, BoardOp.HINT, "", "", label=text(locale, "btn_hint")))
    if view.get("can_finish"):
        label = text(locale, "btn_finish")
        buttons.append(BoardButton(game, BoardOp.FINISH, "", "", label=label, style="success"))
    buttons.append(BoardButton(game, BoardOp.TYPE, "", "", label=text(locale, "btn_type")))
    op = BoardOp.RESIGN_CONFIRMED if confirm_resign else BoardOp.RESIGN
    buttons.append(BoardButton(game, op, "", "", label=text(locale, "btn_resign"), style="danger"))
    return buttons


class BoardButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"sa\|b\|(?P<game>\d+)\|(?P<op>[a-zA-Z])\|(?P<arg>[^|]*)\|(?P<sel>[^|]*)",
):
    """A button of a player's board."""

    def __init__(
        self,
        game: int,
        op: BoardOp,
        arg: str,
        sel: str,
        *,
        label: str = "·",
        style: str = "secondary",
        disabled: bool = False,
        row: int | None = None,
        pile: str | None = None,
    ) -> None:
        self.game, self.op, self.arg, self.sel = game, op, arg, sel
        self.pile = pile  # the pile a pile button stands for (not in its id: not needed)
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=label,
            style=getattr(discord.ButtonStyle, style),
            disabled=disabled,
            custom_id=f"sa|b|{game}|{op}|{arg}|{sel}",
        )
        super().__init__(button, row=row)

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> BoardButton:
        return cls(int(match["game"]), BoardOp.of(match["op"]), match["arg"], match["sel"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        table = table_of(interaction).boards
        await table.board_press(interaction, self.game, self.op, self.arg, self.sel)


class BoardSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"sa\|k\|(?P<game>\d+)\|(?P<source>\d+)(?:\|(?P<target>\d+))?",
):
    """Which card of a column to move (Yukon moves any face-up card with those above it);
    with a target, which card goes there (choosing plays the move)."""

    def __init__(
        self,
        game: int,
        source: str,
        options: list[discord.SelectOption] | None = None,
        placeholder: str | None = None,
        row: int | None = None,
        target: str | None = None,
    ) -> None:
        self.game, self.source, self.target = game, source, target
        suffix = f"|{target}" if target else ""
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=f"sa|k|{game}|{source}{suffix}",
            options=options or [discord.SelectOption(label="1", value="1")],
            placeholder=placeholder,
            row=row,
        )
        # discord.py 2.7's Select keeps ``row`` in a slot, while DynamicItem reads the
        # row from ``_row``; without this the menu would be placed automatically,
        # possibly beside buttons, which Discord refuses.
        select._row = row
        super().__init__(select, row=row)

    @classmethod
    def make(
        cls,
        game: int,
        source: str,
        sizes: list[int],
        chosen: int | None,
        view: Mapping[str, Any],
        locale: str,
        row: int | None = None,
        target: str | None = None,
    ) -> BoardSelect:
        """The menu of the cards that can lead a move out of column ``source`` (to
        ``target`` when given)."""
        up = view["tableau"][int(source) - 1]["up"]
        options = []
        for size in sizes[:25]:
            card = card_text(up[-size], locale=locale) if size <= len(up) else "?"
            label = text(locale, "card_count", card=card, count=size)
            options.append(
                discord.SelectOption(label=label, value=str(size), default=size == chosen)
            )
        placeholder = text(locale, "pick_card_to", target=target) if target else None
        return cls(game, source, options, placeholder or text(locale, "pick_card"), row, target)

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> BoardSelect:
        return cls(int(match["game"]), match["source"], target=match["target"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = self.item.values or ["1"]
        size = int(values[0]) if values[0].isdigit() else 1
        sel = f"{self.source}.{size}"
        table = table_of(interaction).boards
        if self.target:  # the target was tapped first: this card's move is played
            move = move_text(self.source, size, self.target)
            await table.board_press(interaction, self.game, BoardOp.TARGET, move, sel)
        else:
            await table.board_press(interaction, self.game, BoardOp.SELECT, self.source, sel)


class MoveModal(discord.ui.Modal):
    """Type a move (the board's button): submitting plays it and edits the board."""

    def __init__(self, game: int, locale: str) -> None:
        super().__init__(title=text(locale, "type_title")[:45], custom_id=f"sa|m|{game}")
        self.game = game
        self.move: discord.ui.TextInput[Any] = discord.ui.TextInput(
            label=text(locale, "type_label")[:45],
            placeholder=text(locale, "type_placeholder")[:100],
            max_length=100,
            custom_id=f"sa|m|{game}|move",
        )
        self.add_item(self.move)

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        await table_of(interaction).boards.modal_move(interaction, self.game, self.move.value)


def move_text(source: str, size: int, target: str) -> str:
    """The canonical move of ``size`` cards from ``source`` to ``target``: ``7:3>2``, ``7>2``."""
    return f"{source}:{size}>{target}" if size > 1 else f"{source}>{target}"
