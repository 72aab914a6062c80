"""Playing a solver-won line through a board's own buttons, as a player would tap it.

Used by the round-trip test (test_round_trip.py) and bench/press_calls.py: a move that is
its pile's only legal move is one tap; any other is its source, then its target, then
(when several cards of the source reach that target) the card in the menu; Draw or Deal
one press. Every press is dispatched as
discord.py does (``discord_fakes.press``), and the Discord calls each makes are counted.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from discord_fakes import FakeBot, FakeMessage, FakeUser, press

import engine
from bot.views import BoardButton, BoardOp, BoardSelect


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
) -> int:
    """Press the buttons that play ``line``, adding each press's Discord calls to
    ``calls``; returns the presses made. With ``game`` (the same deal in the engine, for
    a player with the one-tap option on) a pile is tapped once when the server's one-tap
    rule picks the line's move; when it would pick another, the player taps, sees it go
    elsewhere, presses Undo (which selects the pile again) and taps the target."""
    presses = 0

    async def tap(label: str, value: str | None = None) -> None:
        nonlocal presses
        done = await press(fake, user, board, label, value=value)
        presses += 1
        calls.update(done.calls)

    for move in line:
        await _play(tap, board, move, game)
        if game is not None:
            game.play(engine.Move.from_notation(move))
    return presses


async def _play(tap: Any, board: FakeMessage, move: str, game: engine.Game | None) -> None:
    if ">" not in move:
        draw = label_of(board, BoardOp.DRAW, "")
        assert draw is not None, board.content
        await tap(draw)
        return
    head, _, target = move.partition(">")
    source = head.partition(":")[0]
    direct = label_of(board, BoardOp.TARGET, move)  # the pile's only legal move
    if direct is not None:
        await tap(direct)
        return
    one_tap = label_of(board, BoardOp.TARGET, source)
    if game is not None and one_tap is not None:
        await tap(one_tap)
        if game.parse(source).notation() == move:
            return
        undo = label_of(board, BoardOp.UNDO, source)
        assert undo is not None, board.content
        await tap(undo)  # the source is selected again
    else:
        tapped = label_of(board, BoardOp.SELECT, source)
        assert tapped is not None, (move, board.content)
        await tap(tapped)
    direct = label_of(board, BoardOp.TARGET, move)
    if direct is not None:
        await tap(direct)
        return
    several = label_of(board, BoardOp.TARGET, f"?{target}")
    assert several is not None, (move, board.content)
    await tap(several)
    assert any(isinstance(c, BoardSelect) for c in board.items())
    await tap("select", value=head.partition(":")[2] or "1")
