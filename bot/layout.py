"""Boards as Components V2 messages: the board's text and its buttons in one layout.

A Components V2 message has no content: its text lives in text displays, 4,000 units
of it in all (against a plain message's 2,000), which holds every position of every
variant with the application's card emoji, so boards keep their suit colours. When
every column's line leaves room on a phone for its button, each column is a section:
its line and, beside it, its own button (the pile's top card, with the suit as the
card emoji); a board with a longer column keeps the width for its lines and puts every
pile button in rows under them (one layout or the other, never mixed). The waste's
button sits beside the stock and waste line. The foundation buttons, the menu and the
controls follow in rows, as many to a row as a phone fits.

Discord takes at most 40 components a message, counted with everything nested; a
board that would need more (Spider's ten columns with a menu open and Finish offered)
drops Type a move first (typing stays a command away), then lays its pile buttons out
in rows under the text instead, still without Type a move when the menu of other moves
plays any move in one choice (so the long board keeps within 1.3 phone screens).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import discord

from bot.move_menu import MoveMenu
from bot.render import PHONE_LINE, TEXT_SUITS, BoardText, phone_width
from bot.views import BoardButton, BoardButtons, BoardOp, BoardSelect

MAX_COMPONENTS: Final = 40  # a message's components, nested ones counted
# A mark on each control, so a glance finds it (labels stay: they say what it does).
CONTROL_EMOJI: Final[Mapping[BoardOp, str]] = {
    BoardOp.DRAW: "🃏",
    BoardOp.UNDO: "↩️",
    BoardOp.JUMP_BACK: "⏮️",
    BoardOp.HINT: "💡",
    BoardOp.FINISH: "🏁",
    BoardOp.TYPE: "⌨️",
    BoardOp.RESIGN: "🏳️",
    BoardOp.RESIGN_CONFIRMED: "🏳️",
    BoardOp.SHARE: "📤",
    BoardOp.CANCEL: "🃏",
}
_TEXT_MARKS: Final = {mark: letter for letter, mark in TEXT_SUITS.items()}


def board_layout(
    text: BoardText, buttons: BoardButtons | None, suits: Mapping[str, str] = TEXT_SUITS
) -> discord.ui.LayoutView:
    """The board message: each column with its button beside it where 40 components
    allow, else the pile buttons in rows; card emoji on the pile buttons."""
    if buttons is not None:
        for item in buttons.items():
            if isinstance(item, BoardButton):
                _decorate(item, suits)
    ui = _sectioned(text, buttons)
    if ui is None and buttons is not None:
        typing = [b for b in buttons.controls if b.op is not BoardOp.TYPE]
        full = buttons
        buttons = BoardButtons(buttons.piles, typing, buttons.select, buttons.moves)
        ui = _sectioned(text, buttons)
        if buttons.moves is None:  # no menu plays other moves: typing stays on the board
            buttons = full
    return ui or _compact(text, buttons)


def component_count(ui: discord.ui.LayoutView) -> int:
    """The components of ``ui`` as Discord counts them: every one, nested ones too."""
    components: list[Mapping[str, Any]] = ui.to_components()  # type: ignore[no-untyped-call]
    return sum(_count(component) for component in components)


def _count(component: Mapping[str, Any]) -> int:
    inner = component.get("components") or []
    accessory = component.get("accessory")
    return 1 + sum(_count(c) for c in inner) + (1 if accessory else 0)


def _sectioned(text: BoardText, buttons: BoardButtons | None) -> discord.ui.LayoutView | None:
    """Every column a section with its button, the waste's beside the stock line; None
    when a column's line would not keep to one line on a phone beside its button, or
    when that takes more than Discord's 40 components."""
    used: set[str] = set()

    def beside(lines: Sequence[str], pile: str) -> discord.ui.Item[Any]:
        button = buttons.pile(pile) if buttons is not None else None
        shown = discord.ui.TextDisplay[Any]("\n".join(lines))
        if button is None or not _fits_beside(lines, button):
            return shown
        used.add(pile)
        return discord.ui.Section[Any](shown, accessory=button)

    if buttons is not None:  # every column beside its button, or none (one layout)
        for number, lines in enumerate(text.columns, start=1):
            button = buttons.pile(str(number))
            if button is not None and not _fits_beside(lines, button):
                return None

    ui = discord.ui.LayoutView(timeout=None)
    try:  # discord.py refuses a 41st component as it is added
        head: list[discord.ui.Item[Any]] = [discord.ui.TextDisplay[Any](text.title)]
        if text.top:
            head.append(beside(text.top, "w"))
        if text.foundations:
            head.append(discord.ui.TextDisplay[Any]("\n".join(text.foundations)))
        for item in _merged(head):
            ui.add_item(item)
        for number, lines in enumerate(text.columns, start=1):
            ui.add_item(beside(lines, str(number)))
        ui.add_item(discord.ui.TextDisplay[Any]("\n".join(text.foot)))
        if buttons is not None:
            rest = [b for b in buttons.piles if b.pile not in used]
            _add_rows(ui, rest, buttons.select, buttons.controls, buttons.moves)
    except ValueError:
        return None
    return ui if component_count(ui) <= MAX_COMPONENTS else None


def _merged(items: list[discord.ui.Item[Any]]) -> list[discord.ui.Item[Any]]:
    """``items`` with each run of plain text displays joined into one: the same lines,
    fewer of Discord's 40 components (a Spider board's title and stock line)."""
    merged: list[discord.ui.Item[Any]] = []
    for item in items:
        last = merged[-1] if merged else None
        if isinstance(item, discord.ui.TextDisplay) and isinstance(last, discord.ui.TextDisplay):
            merged[-1] = discord.ui.TextDisplay[Any](f"{last.content}\n{item.content}")
        else:
            merged.append(item)
    return merged


def _compact(text: BoardText, buttons: BoardButtons | None) -> discord.ui.LayoutView:
    """The whole text in one display, every button in rows under it."""
    ui = discord.ui.LayoutView(timeout=None)
    ui.add_item(discord.ui.TextDisplay[Any]("\n".join(text.lines())))
    if buttons is not None:
        _add_rows(ui, buttons.piles, buttons.select, buttons.controls, buttons.moves)
    return ui


def button_width(button: BoardButton) -> float:
    """About how many css px a button takes on a phone: 16 px of padding each side, its
    emoji and label in 14 px text, at least 60 px."""
    label = str(button.item.label or "")
    emoji = 22.0 if button.item.emoji is not None else 0.0
    return max(60.0, 32.0 + emoji + 0.875 * phone_width(label))


def _fits_beside(lines: Sequence[str], button: BoardButton) -> bool:
    """Whether every line keeps to one line on a phone with ``button`` beside it (8 px
    apart): else the button goes in a row under the board, and the line keeps the width."""
    room = PHONE_LINE - 8.0 - button_width(button)
    return all(phone_width(line) <= room for line in lines)


def _add_rows(
    ui: discord.ui.LayoutView,
    piles: Iterable[BoardButton],
    select: BoardSelect | None,
    controls: Iterable[BoardButton],
    moves: MoveMenu | None = None,
) -> None:
    for row in phone_rows(list(piles)):
        ui.add_item(discord.ui.ActionRow[Any](*row))
    for menu in (select, moves):
        if menu is not None:
            ui.add_item(discord.ui.ActionRow[Any](menu))
    for row in phone_rows(list(controls)):
        ui.add_item(discord.ui.ActionRow[Any](*row))


def phone_rows(buttons: list[BoardButton]) -> list[list[BoardButton]]:
    """``buttons`` in rows as a phone fits them: as many side by side as its 272 px
    hold (8 px apart), at most Discord's five, so no row wraps on the phone."""
    rows: list[list[BoardButton]] = []
    used = 0.0
    for button in buttons:
        width = button_width(button)
        if not rows or len(rows[-1]) == 5 or used + 8.0 + width > PHONE_LINE:
            rows.append([])
            used = -8.0
        rows[-1].append(button)
        used += 8.0 + width
    return rows


def _decorate(button: BoardButton, suits: Mapping[str, str]) -> None:
    """A pile button's suit as the card emoji (``J`` with the red heart mark), a control's
    mark; the text marks stay in the label when the application has no card emoji."""
    item = button.item
    if button.pile is None:
        emoji = CONTROL_EMOJI.get(button.op)
        if emoji is not None:
            item.emoji = emoji
        return
    label = item.label or ""
    for mark, letter in _TEXT_MARKS.items():
        custom = suits.get(letter, "")
        if label.endswith(mark) and custom.startswith("<"):
            item.emoji = discord.PartialEmoji.from_str(custom)
            item.label = label[: -len(mark)].rstrip() or None
            return
