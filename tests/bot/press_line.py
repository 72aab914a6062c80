"""Playing a solver-won line through a board's own buttons, as a player would tap it.

Used by the round-trip test (test_round_trip.py) and bench/press_calls.py: a move that a
tap on its pile plays (bot/taps.py) is one tap; another is one choice in the board's menu
of other moves when listed there; any other is Choose, its source, then its target, then
(when several cards of the source reach that target) the card in the menu; Draw or Deal
one press. Every press is dispatched as
discord.py does (``discord_fakes.press``), and the Discord calls each makes are counted.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from discord_fakes import FakeBot, FakeMessage, FakeUser, press

import engine
from bot.move_menu import MoveMenu
from bot.views import CHOOSE, BoardButton, BoardOp, BoardSelect


def label_of(message: FakeMessage, op: BoardOp, arg: str) -> str | None:
    """The label of the enabled board button doing ``op`` with ``arg``."""
    for child in message.items():
        enabled = isinstance(child, BoardButton) and not child.item.disabled
        if enabled and child.op == op and child.arg == arg:
            return str(child.item.label)
    return None


async def play_line(
    fake: FakeBot,
    user: FakeUser,
    board: FakeMessage,
    line: tuple[str, ...],
    calls: Counter[str],
    game: engine.Game | None = None,
    ways: Counter[str] | None = None,
) -> int:
    """Press the buttons that play ``line``, adding each press's Discord calls to
    ``calls`` (and, to ``ways``, how each move was made: "tap", "menu", "choose",
    "undo"); returns the presses made. With ``game`` (the same deal in the engine, for
    a player with the one-tap option on) a pile is tapped once when the server's one-tap
    rule picks the line's move; when it would pick another, the player picks it in the
    menu of other moves, or else taps, sees it go elsewhere, presses Undo (which selects
    the pile again) and taps the target."""
    presses = 0
    ways = Counter() if ways is None else ways

    async def tap(label: str, value: str | None = None) -> None:
        nonlocal presses
        done = await press(fake, user, board, label, value=value)
        presses += 1
        calls.update(done.calls)

    for move in line:
        ways[await _play(tap, board, move, game)] += 1
        if game is not None:
            game.play(engine.Move.from_notation(move))
    return presses


def in_menu(board: FakeMessage, move: str) -> bool:
    """Whether the board's menu of other moves offers ``move`` (or Choose, ``*``)."""
    for child in board.items():
        if isinstance(child, MoveMenu) and move in [o.value for o in child.item.options]:
            return True
    return False


async def _play(tap: Any, board: FakeMessage, move: str, game: engine.Game | None) -> str:
    if ">" not in move:
        draw = label_of(board, BoardOp.DRAW, "")
        assert draw is not None, board.content
        await tap(draw)
        return "tap"
    head, _, target = move.partition(">")
    source = head.partition(":")[0]
    direct = label_of(board, BoardOp.TARGET, move)  # the move a tap on the pile plays
    if direct is not None:
        await tap(direct)
        return "tap"
    one_tap = label_of(board, BoardOp.TARGET, source)
    if game is not None and one_tap is not None and game.parse(source).notation() == move:
        await tap(one_tap)
        return "tap"
    if in_menu(board, move) and move != CHOOSE:  # no pile plays it: the menu of other moves does
        await tap("select", value=move)
        return "menu"
    way = "choose"
    if game is not None and one_tap is not None:
        await tap(one_tap)
        undo = label_of(board, BoardOp.UNDO, source)
        assert undo is not None, board.content
        await tap(undo)  # the source is selected again
        way = "undo"
    else:
        tapped = label_of(board, BoardOp.SELECT, source)
        if tapped is None:  # the pile's tap plays another move: Choose, then the pile
            assert in_menu(board, CHOOSE), (move, board.content)
            await tap("select", value=CHOOSE)
            tapped = label_of(board, BoardOp.SELECT, source)
        assert tapped is not None, (move, board.content)
        await tap(tapped)
    direct = label_of(board, BoardOp.TARGET, move)
    if direct is not None:
        await tap(direct)
        return way
    several = label_of(board, BoardOp.TARGET, f"?{target}")
    assert several is not None, (move, board.content)
    await tap(several)
    assert any(isinstance(c, BoardSelect) for c in board.items())
    await tap("select", value=head.partition(":")[2] or "1")
    return way
