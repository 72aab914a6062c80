"""One round trip per press: a press whose server answers in time is answered once, by
the redrawn board; only a slow server costs a defer and then an edit."""

from __future__ import annotations

from collections import Counter

from board_sweep import won_line
from discord.app_commands import Choice
from discord_fakes import Bot, FakeInteraction, FakeMessage, FakeUser, press
from press_line import label_of, play_line

import engine
from bot.cog import SolitaireCog
from bot.presses import Prefs
from bot.views import BoardOp

KLONDIKE = Choice(name="Klondike", value="klondike")
# A budget no loopback server misses, so the tests do not depend on the machine's speed.
AMPLE = 60.0


async def practice(bot: Bot, user: FakeUser, seed: int) -> FakeMessage:
    start = FakeInteraction(bot.fake, user)
    await SolitaireCog.play.callback(  # type: ignore[arg-type]
        bot.cog, start, variant=KLONDIKE, deal=engine.deal_code(seed)
    )
    [board] = start.sent
    return board


async def test_a_press_answered_in_time_is_one_call_that_edits_the_board(bot: Bot) -> None:
    bot.table.boards.answer_budget = AMPLE
    user = FakeUser(961, "Nina")
    board = await practice(bot, user, 1)
    before = board.content
    pressed = await press(bot.fake, user, board, "Draw")
    assert pressed.calls == ["edit_message"]
    assert board.content != before and board.edits == 1
    assert pressed.sent == []  # no new message: the board itself was redrawn


async def test_a_refused_move_in_time_is_one_call_with_the_reason(bot: Bot) -> None:
    bot.table.boards.answer_budget = AMPLE
    user = FakeUser(962, "Otto")
    board = await practice(bot, user, 1)
    legal = engine.new_game("klondike", seed=1).view()["legal_moves"]
    move = next(m for moves in legal.values() for m in moves if ">" in m)
    target = label_of(board, BoardOp.TARGET, move)  # its pile's only move: one tap
    if target is None:
        source = label_of(board, BoardOp.SELECT, move.partition(">")[0].partition(":")[0])
        assert source is not None
        await press(bot.fake, user, board, source)
        target = label_of(board, BoardOp.TARGET, move)
    assert target is not None
    stale = FakeMessage(board.content, board.view)  # the same board, in another window
    await press(bot.fake, user, board, target)  # played
    pressed = await press(bot.fake, user, stale, target)  # the same move again: refused
    assert pressed.calls == ["edit_message"]
    assert stale.content.startswith("⚠️") or "⚠️" in stale.content
    assert stale.view is not None  # the board as it stands, still playable


async def test_a_slow_server_costs_a_defer_then_an_edit(bot: Bot) -> None:
    bot.table.boards.answer_budget = 0.0  # the server never answers within no time at all
    user = FakeUser(963, "Pia")
    board = await practice(bot, user, 1)
    before = board.content
    pressed = await press(bot.fake, user, board, "Draw")
    assert pressed.calls == ["defer", "edit_original_response"]
    assert board.content != before


async def test_a_won_line_costs_one_discord_call_per_press(bot: Bot) -> None:
    bot.table.boards.answer_budget = AMPLE
    user = FakeUser(964, "Quirin")
    board = await practice(bot, user, 1)
    calls: Counter[str] = Counter()
    presses = await play_line(bot.fake, user, board, won_line("klondike", 1), calls)
    assert board.labels() == ["Share"]  # won: only Share is left
    assert calls == Counter({"edit_message": presses})


async def test_a_won_line_takes_one_press_a_move_by_default(bot: Bot) -> None:
    """The solver's win of Klondike deal 1 through the board's defaults: every move is
    one press (a tap on its pile plays it, or one choice in the menu of other moves),
    one Discord call each. With the one-tap option (the server's rule) it still wins,
    one call a press, in no fewer presses."""
    bot.table.boards.answer_budget = AMPLE
    line = won_line("klondike", 1)
    counts = []
    for user, one_tap in ((FakeUser(965, "Rosa"), False), (FakeUser(966, "Sven"), True)):
        bot.table.boards.prefs[user.id] = Prefs(one_tap=one_tap)
        board = await practice(bot, user, 1)
        calls: Counter[str] = Counter()
        ways: Counter[str] = Counter()
        game = engine.new_game("klondike", seed=1) if one_tap else None
        presses = await play_line(bot.fake, user, board, line, calls, game, ways)
        assert board.labels() == ["Share"] and calls == Counter({"edit_message": presses})
        counts.append(presses)
        if not one_tap:
            assert ways["choose"] == 0, ways
    assert counts[0] == len(line) <= counts[1]
