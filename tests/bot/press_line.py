"""Playing a solver-won line through a board's own buttons, as a player would tap it.

Used by the round-trip test (test_round_trip.py) and bench/press_calls.py: each move of
the line is its source, then its target, then (when several cards of the source reach
that target) the card in the menu; Draw or Deal one press. Every press is dispatched as
discord.py does (``discord_fakes.press``), and the Discord calls each makes are counted.
"""

from __future__ import annotations

from collections import Counter

from discord_fakes import FakeBot, FakeMessage, FakeUser, press

from bot.views import BoardButton, BoardOp, BoardSelect


def label_of(message: FakeMessage, op: BoardOp, arg: str) -> str | None:
    """The label of the enabled board button doing ``op`` with ``arg``."""
    for child in message.items():
        enabled = isinstance(child, BoardButton) and not child.item.disabled
        if enabled and child.op == op and child.arg == arg:
            return str(child.item.label)
    return None


async def play_line(
    fake: FakeBot, user: FakeUser, board: FakeMessage, line: tuple[str, ...], calls: Counter[str]
) -> int:
    """Press the buttons that play ``line``, adding each press's Discord calls to
    ``calls``; returns the presses made."""
    presses = 0

    async def tap(label: str, value: str | None = None) -> None:
        nonlocal presses
        done = await press(fake, user, board, label, value=value)
        presses += 1
        calls.update(done.calls)

    for move in line:
        if ">" not in move:
            draw = label_of(board, BoardOp.DRAW, "")
            assert draw is not None, board.content
            await tap(draw)
            continue
        head, _, target = move.partition(">")
        source = head.partition(":")[0]
        tapped = label_of(board, BoardOp.SELECT, source)
        assert tapped is not None, (move, board.content)
        await tap(tapped)
        direct = label_of(board, BoardOp.TARGET, move)
        if direct is not None:
            await tap(direct)
            continue
        several = label_of(board, BoardOp.TARGET, f"?{target}")
        assert several is not None, (move, board.content)
        await tap(several)
        assert any(isinstance(c, BoardSelect) for c in board.items())
        await tap("select", value=head.partition(":")[2] or "1")
    return presses
