"""Every /solitaire command callback with fake interactions, against a real server.

Each test checks what the user would see: which messages, ephemeral or not, with
which buttons, in which language, and that errors are short messages.
"""

from __future__ import annotations

from typing import Any

import discord
import pytest
from bot_setup import ServerClock
from discord.app_commands import Choice
from discord_fakes import (
    Bot,
    FakeChannel,
    FakeInteraction,
    FakeMessage,
    FakeUser,
    press,
    submit,
    until,
)

import engine
from bot.cog import SolitaireCog
from bot.render import card_text, render_board
from bot.taps import tap_move
from bot.views import CHOOSE, BoardButton
from server.transport.app import ArenaServer
from tests.server.solver_cases import LOST_LINE, LOST_SEED

CARLA = FakeUser(701, "Carla")
DIETER = FakeUser(702, "Dieter", locale="de")
KLONDIKE = Choice(name="Klondike", value="klondike")
YUKON = Choice(name="Yukon", value="yukon")
SPIDER = Choice(name="Spider", value="spider-2")


async def call(bot: Bot, name: str, user: FakeUser, **arguments: Any) -> FakeInteraction:
    """Invoke ``/solitaire <name>`` as ``user`` and return the interaction."""
    interaction = FakeInteraction(bot.fake, user)
    command = getattr(SolitaireCog, name)
    await command.callback(bot.cog, interaction, **arguments)
    return interaction


async def practice(bot: Bot, user: FakeUser, variant: Choice[str], seed: int) -> FakeMessage:
    done = await call(bot, "play", user, variant=variant, deal=engine.deal_code(seed))
    [board] = done.sent
    return board


def several_targets(variant: str) -> tuple[int, str, list[str]]:
    """A deal whose opening has a column with several legal moves: (seed, column, moves)."""
    for seed in range(500):
        legal = engine.new_game(variant, seed=seed).view()["legal_moves"]
        for source, moves in legal.items():
            if source.isdigit() and len({m.split(">")[1] for m in moves}) > 1:
                return seed, source, moves
    raise AssertionError("no such deal")


def ace_on_the_waste() -> tuple[int, int]:
    """A Klondike deal and how many draws turn up an Ace on the waste first."""
    for seed in range(500):
        game = engine.new_game("klondike", seed=seed)
        for draws in range(1, 6):
            game.play("d")
            if "w>f" in game.view()["legal_moves"].get("w", []):
                return seed, draws
    raise AssertionError("no such deal")


def lit_targets(board: FakeMessage, source: str) -> set[str]:
    """The piles lit as targets of the selected ``source``: the moves they play."""
    found = set()
    for child in board.items():
        if not isinstance(child, BoardButton) or child.op != "t" or child.item.disabled:
            continue
        if child.arg.startswith("?"):
            found.add(child.arg[1:])
        elif ">" in child.arg and child.arg.split(">")[0].partition(":")[0] == source:
            found.add(child.arg.split(">")[1])
    return found


class TestPlay:
    async def test_play_sends_a_private_board_with_its_buttons(self, bot: Bot) -> None:
        done = await call(bot, "play", CARLA, variant=KLONDIKE, deal=engine.deal_code(5))
        assert done.response.deferred == {"ephemeral": True, "thinking": True}
        [board] = done.sent
        assert board.ephemeral
        assert board.content.startswith("**Klondike · draw 1** · deal 5")
        # The foundations (as targets, or as sources of a card taken back) are hidden
        # until they apply; each pile's button names its top card and sits beside its
        # line (the waste's beside the stock and waste).
        assert board.piles() == ["w", *map(str, range(1, 8))]
        assert board.labels()[8:] == ["Draw", "Undo", "Hint", "Type a move", "Resign"]
        view = engine.new_game("klondike", seed=5).view()
        tops = [column["up"][-1] for column in view["tableau"]]
        assert board.labels()[1:8] == [card_text(card) for card in tops]
        sources = {k for k in view["legal_moves"] if k != "d"}
        assert board.enabled_piles() == sources
        assert set(board.enabled()) >= {"Draw", "Undo", "Hint", "Type a move", "Resign"}

    async def test_a_user_install_plays_in_a_server_without_the_bot_and_in_a_dm(
        self, bot: Bot
    ) -> None:
        """Installed by the user only, the bot is used in a server it is not in (it may
        post nothing in the channel there) and in a DM: practice and the daily answer
        through the interaction alone, privately, with a board that plays."""
        outside = FakeChannel(permissions=discord.Permissions.none())
        for guild_id, channel in ((424_242, outside), (None, FakeChannel())):
            user = FakeUser(7_100 + (guild_id or 0) % 97, "Ines")
            played = FakeInteraction(bot.fake, user, guild_id=guild_id, channel=channel)
            await SolitaireCog.play.callback(  # type: ignore[arg-type]
                bot.cog, played, variant=KLONDIKE, deal=engine.deal_code(5)
            )
            [board] = played.sent
            assert board.ephemeral and board.content.startswith("**Klondike · draw 1**")
            await press(bot.fake, user, board, "Draw")
            assert "Moves 1" in board.content
            for _ in range(5):  # a busy machine may need more than one try to prove the deal
                daily = FakeInteraction(bot.fake, user, guild_id=guild_id, channel=channel)
                await SolitaireCog.daily.callback(bot.cog, daily, variant=KLONDIKE)  # type: ignore[arg-type]
                [day] = daily.sent
                if "still being prepared" not in day.content:
                    break
            assert day.ephemeral and "Moves 0" in day.content
            assert outside.messages == {}  # nothing posted where the bot is not

    async def test_german_user_gets_german_board(self, bot: Bot) -> None:
        board = await practice(bot, DIETER, SPIDER, 3)
        assert "Spider · 2 Farben" in board.content and "Züge 0" in board.content
        assert "Geben" in board.labels() and "Aufgeben" in board.labels()

    async def test_practice_board_shows_the_time_by_the_games_clock(
        self, bot: Bot, server_clock: ServerClock
    ) -> None:
        server_clock.now = 1_773_490_500_000  # the game starts then
        bot.table.boards.clock = lambda: 1_773_490_583_000  # the bot draws the board 83 s later
        board = await practice(bot, DIETER, KLONDIKE, 5)
        assert "⏱️ 1:23 · Züge 0" in board.content

    async def test_boards_use_the_applications_card_emoji_once_installed(self, bot: Bot) -> None:
        bot.table.boards.suits = {
            s: f"<:sa_{s}:14{n}0000000000000000>" for n, s in enumerate("cdhs")
        }
        board = await practice(bot, CARLA, KLONDIKE, 5)
        top = engine.new_game("klondike", seed=5).view()["tableau"][0]["up"][-1]
        assert f"1️⃣ {top[:-1]}<:sa_{top[-1]}:14" in board.content
        assert "♡" not in board.content and "♢" not in board.content

    async def test_bad_deal_code_is_a_clear_message(self, bot: Bot) -> None:
        done = await call(bot, "play", CARLA, variant=KLONDIKE, deal="no such!")
        assert done.sent[0].ephemeral and "is not a deal code" in done.sent[0].content


class TestBoardButtons:
    async def test_a_pile_with_one_legal_move_plays_on_the_first_tap(self, bot: Bot) -> None:
        board = await practice(bot, CARLA, KLONDIKE, 5)
        game = engine.new_game("klondike", seed=5)
        assert game.view()["legal_moves"]["4"] == ["4>1"]
        tap = await press(bot.fake, CARLA, board, "4")
        assert tap.calls == ["edit_message"] and "Moves 1" in board.content
        game.play("4>1")
        assert board.content.split("\n")[2:9] == render_board(game.view(), "en").split("\n")[2:9]

    async def test_a_tap_plays_the_piles_most_useful_move_in_one_press(self, bot: Bot) -> None:
        """A pile with several legal moves plays one of them on the first tap (the one
        bot/taps.py ranks first), with one Discord call; the others are one choice away
        in the menu of other moves."""
        seed, source, moves = several_targets("klondike")
        game = engine.new_game("klondike", seed=seed)
        meant = tap_move(game.view(), source)
        assert meant in moves
        board = await practice(bot, CARLA, KLONDIKE, seed)
        tap = await press(bot.fake, CARLA, board, source)
        assert tap.calls == ["edit_message"] and "Moves 1" in board.content
        game.play(meant)
        assert board.content.split("\n")[2:9] == render_board(game.view(), "en").split("\n")[2:9]
        # Another move of that pile: one choice in the menu of other moves.
        board = await practice(bot, CARLA, KLONDIKE, seed)
        other = next(m for m in moves if m != meant)
        chosen = await press(bot.fake, CARLA, board, "select", value=other)
        assert chosen.calls == ["edit_message"] and "Moves 1" in board.content
        game = engine.new_game("klondike", seed=seed)
        game.play(other)
        assert board.content.split("\n")[2:9] == render_board(game.view(), "en").split("\n")[2:9]

    async def test_source_lights_targets_and_target_plays(self, bot: Bot) -> None:
        seed, source, moves = several_targets("klondike")
        board = await practice(bot, CARLA, KLONDIKE, seed)
        await press(bot.fake, CARLA, board, "select", value=CHOOSE)  # the next tap selects
        assert "Tap the pile to move from" in board.content
        await press(bot.fake, CARLA, board, source)
        assert lit_targets(board, source) == {m.split(">")[1] for m in moves}
        assert "👉" in board.content and "pick a target" in board.content
        target = moves[0].split(">")[1]
        await press(bot.fake, CARLA, board, "→ Foundation" if target == "f" else target)
        game = engine.new_game("klondike", seed=seed)
        game.play(moves[0])
        assert "Moves 1" in board.content
        assert "→ Foundation" not in board.labels()  # no source selected: hidden again
        assert board.enabled_piles() >= {k for k in game.view()["legal_moves"] if k.isdigit()}

    async def test_tapping_the_selection_again_plays_the_one_tap_rule(self, bot: Bot) -> None:
        seed, source, _ = several_targets("klondike")
        board = await practice(bot, CARLA, KLONDIKE, seed)
        await press(bot.fake, CARLA, board, "select", value=CHOOSE)
        await press(bot.fake, CARLA, board, source)
        await press(bot.fake, CARLA, board, source)  # "wherever it fits"
        game = engine.new_game("klondike", seed=seed)
        game.play(game.parse(source))
        assert "Moves 1" in board.content
        assert board.content.split("\n")[2:9] == render_board(game.view(), "en").split("\n")[2:9]

    async def test_the_one_tap_option_plays_on_the_first_tap_and_undo_puts_it_right(
        self, bot: Bot
    ) -> None:
        seed, source, moves = several_targets("klondike")
        await call(bot, "options", CARLA, one_tap=True)
        try:
            board = await practice(bot, CARLA, KLONDIKE, seed)
            await press(bot.fake, CARLA, board, source)
            game = engine.new_game("klondike", seed=seed)
            chosen = game.parse(source)
            assert "Moves 1" in board.content
            # Not where I meant: Undo selects the source again, and its targets are lit.
            await press(bot.fake, CARLA, board, "Undo")
            assert "↶ 1" in board.content and "👉" in board.content
            other = next(m for m in moves if m != chosen.notation())
            assert lit_targets(board, source) == {m.split(">")[1] for m in moves}
            await press(bot.fake, CARLA, board, other.split(">")[1])
            assert "Moves 1" in board.content and "↶ 1" in board.content
        finally:
            await call(bot, "options", CARLA, one_tap=False)

    async def test_safe_cards_go_home_by_themselves_when_asked(self, bot: Bot) -> None:
        seed, draws = ace_on_the_waste()
        await call(bot, "options", DIETER, auto_home=True)
        try:
            board = await practice(bot, DIETER, KLONDIKE, seed)
            for _ in range(draws):
                await press(bot.fake, DIETER, board, "Ziehen")
            assert "Nach oben gelegt: A" in board.content
            assert f"Züge {draws + 1}" in board.content
        finally:
            await call(bot, "options", DIETER, auto_home=False)

    async def test_undo_takes_back_the_card_sent_home_and_the_move_before_it(
        self, bot: Bot
    ) -> None:
        """Deal 1: the fifth draw turns up A♠, which goes home by itself. Undo takes back
        the Ace's move and the draw before it (as the player made one move), the Ace is
        not sent home again, and each further Undo goes one draw further back."""
        await call(bot, "options", CARLA, auto_home=True)
        try:
            board = await practice(bot, CARLA, KLONDIKE, 1)
            for _ in range(5):
                await press(bot.fake, CARLA, board, "Draw")
            assert "Sent home: A" in board.content and "Moves 6" in board.content
            for left in (4, 3, 2):
                await press(bot.fake, CARLA, board, "Undo")
                assert f"Moves {left}" in board.content, board.content
                assert "Sent home" not in board.content
            # The command does as the button does.
            await press(bot.fake, CARLA, board, "Draw")
            await press(bot.fake, CARLA, board, "Draw")
            await press(bot.fake, CARLA, board, "Draw")
            assert "Sent home: A" in board.content and "Moves 6" in board.content
            await call(bot, "undo", CARLA)
            assert "Moves 4" in board.content and "Sent home" not in board.content
        finally:
            await call(bot, "options", CARLA, auto_home=False)

    async def test_yukon_picks_the_card_inside_a_column(self, bot: Bot) -> None:
        for seed in range(100):
            view = engine.new_game("yukon", seed=seed).view()
            multi = [
                (s, m)
                for s, m in view["legal_moves"].items()
                if len({x.split(">")[0] for x in m}) > 1
            ]
            if multi:
                break
        source, moves = multi[0]
        board = await practice(bot, CARLA, YUKON, seed)
        await press(bot.fake, CARLA, board, "select", value=CHOOSE)
        await press(bot.fake, CARLA, board, source)
        menu = board.find("select")
        sizes = sorted({int(m.split(">")[0].partition(":")[2] or 1) for m in moves})
        assert [o.value for o in menu.item.options] == [str(s) for s in sizes]
        chosen = sizes[-1]
        await press(bot.fake, CARLA, board, "select", value=str(chosen))
        wanted = {
            m.split(">")[1] for m in moves if int(m.split(">")[0].partition(":")[2] or 1) == chosen
        }
        assert lit_targets(board, source) == wanted

    async def test_a_target_several_cards_reach_asks_which_then_plays_it(self, bot: Bot) -> None:
        """Yukon deal 1: two cards of column 6 can go onto column 4 (6:2>4 and 6:3>4).
        Column 4's button says it moves there: its id names column 4 (no other button
        shares it), and the menu it brings up plays the chosen card's move."""
        game = engine.new_game("yukon", seed=1)
        assert {"6:2>4", "6:3>4"} <= set(game.view()["legal_moves"]["6"])
        board = await practice(bot, CARLA, YUKON, 1)
        await press(bot.fake, CARLA, board, "select", value=CHOOSE)
        await press(bot.fake, CARLA, board, "6")
        assert board.find("4").item.custom_id.endswith("|t|?4|6")
        await press(bot.fake, CARLA, board, "4")
        menu = board.find("select")
        assert menu.item.custom_id.endswith("|6|4")
        assert menu.item.placeholder == "Pick the card to move to column 4"
        assert [o.value for o in menu.item.options] == ["2", "3"]
        await press(bot.fake, CARLA, board, "select", value="3")
        game.play("6:3>4")
        assert "Moves 1" in board.content
        assert board.content.split("\n")[2:9] == render_board(game.view(), "en").split("\n")[2:9]

    async def test_no_more_moves_is_a_notice_and_the_board_keeps_its_way_out(
        self, bot: Bot
    ) -> None:
        """Klondike deal 47 with one pass through the stock: once it is drawn through,
        nothing helps. The game goes on (the server keeps it playing): the board says
        so and keeps Undo and Resign, which both work."""
        done = await call(
            bot,
            "play",
            CARLA,
            variant=KLONDIKE,
            deal=engine.deal_code(47),
            passes=Choice(name="1 pass", value=1),
        )
        [board] = done.sent
        for _ in range(24):
            await press(bot.fake, CARLA, board, "Draw")
        assert "No helpful move is left. Undo to try another way, or resign." in board.content
        assert {"Undo", "Hint", "Resign"} <= set(board.enabled())
        await press(bot.fake, CARLA, board, "Undo")
        assert "Moves 23" in board.content and "No helpful move" not in board.content
        await press(bot.fake, CARLA, board, "Draw")
        await press(bot.fake, CARLA, board, "Resign")
        await press(bot.fake, CARLA, board, "Resign")
        assert "You resigned this game." in board.content and not board.items()

    async def test_resign_asks_first_then_ends_the_game(self, bot: Bot) -> None:
        board = await practice(bot, DIETER, KLONDIKE, 8)
        await press(bot.fake, DIETER, board, "Aufgeben")
        assert "Wirklich aufgeben?" in board.content and board.view is not None
        await press(bot.fake, DIETER, board, "Aufgeben")
        assert "Du hast dieses Spiel aufgegeben." in board.content and not board.items()

    async def test_a_board_survives_a_restart_and_refuses_other_users(self, bot: Bot) -> None:
        board = await practice(bot, CARLA, KLONDIKE, 5)
        bot.table.boards.games.clear()  # a restarted bot remembers nothing; the ids carry the game
        await press(bot.fake, CARLA, board, "Draw")
        assert "Moves 1" in board.content
        before = board.content
        intruder = await press(bot.fake, DIETER, board, "Draw")
        assert board.content == before
        assert intruder.sent[0].ephemeral and "Das gehört dir nicht." in intruder.sent[0].content

    async def test_a_hint_is_lit_on_the_board_and_one_tap_plays_it(self, bot: Bot) -> None:
        board = await practice(bot, CARLA, KLONDIKE, 39)
        await press(bot.fake, CARLA, board, "Hint")
        assert "Hint: **" in board.content and "💡 1" in board.content
        said = board.content.split("Hint: **")[1].split("**")[0]
        primary = [
            c
            for c in board.items()
            if isinstance(c, BoardButton) and c.item.style is discord.ButtonStyle.primary
        ]
        # the hinted target plays it (or Draw, when the hint is to draw)
        [lit] = [c for c in primary if ">" in c.arg or c.op == "d"]
        hint = lit.arg if ">" in lit.arg else "d"
        # The hint reads as the move list does, never as raw notation ("1>f").
        assert ">" not in said and ("→" in said or said == "Draw"), said
        await press(bot.fake, CARLA, board, lit.item.label)
        game = engine.new_game("klondike", seed=39)
        game.play(hint)
        assert "Moves 1" in board.content
        assert board.content.split("\n")[2:9] == render_board(game.view(), "en").split("\n")[2:9]


class TestLostGames:
    async def test_a_lost_practice_game_offers_to_jump_back_unasked(self, bot: Bot) -> None:
        board = await practice(bot, CARLA, KLONDIKE, LOST_SEED)
        for move in LOST_LINE:
            await call(bot, "move", CARLA, move=move)  # each typed move edits the board
        assert "Jump back" not in board.labels()
        # the server's background check proves the game lost; the board is redrawn unasked
        await until(lambda: "can no longer be won" in board.content, "the offer on the board")
        # (a long board: its piles in rows, the menu of other moves in place of Type)
        assert board.labels()[-5:] == ["Draw", "Undo", "Jump back", "Hint", "Resign"]
        await press(bot.fake, CARLA, board, "Jump back")
        assert "can no longer be won" not in board.content
        assert "Jump back" not in board.labels()
        assert "Moves 19 · Score 20 · ↶ 7" in board.content  # seven moves taken back

    async def test_the_offer_in_german(self, bot: Bot) -> None:
        board = await practice(bot, DIETER, KLONDIKE, LOST_SEED)
        for move in LOST_LINE:
            await call(bot, "move", DIETER, move=move)
        await until(lambda: "nicht mehr zu gewinnen" in board.content, "das Angebot")
        assert "Zurückspringen" in board.labels()


class TestTypedCommands:
    async def test_move_undo_hint_and_resign_edit_the_board_i_have(self, bot: Bot) -> None:
        board = await practice(bot, CARLA, KLONDIKE, 5)
        moved = await call(bot, "move", CARLA, move="d")
        [line] = moved.sent  # one line; the board itself is edited, not posted again
        assert line.ephemeral and not line.items() and "Played d" in line.content
        assert "Moves 1" in board.content
        undone = await call(bot, "undo", CARLA)
        assert "↶ 1" in board.content
        assert undone.sent[0].content == "Your board is up to date."
        hinted = await call(bot, "hint", CARLA)
        assert "Hint: **" in hinted.sent[0].content and "Hint: **" in board.content
        shown = await call(bot, "board", CARLA)  # asked for: a new board
        assert shown.sent[0].ephemeral and shown.sent[0].labels()[-1] == "Resign"
        await call(bot, "resign", CARLA)
        assert "You resigned" in shown.sent[0].content and not shown.sent[0].items()

    async def test_resigning_by_command_says_so_in_german(self, bot: Bot) -> None:
        board = await practice(bot, DIETER, KLONDIKE, 5)
        done = await call(bot, "resign", DIETER)
        assert done.sent[0].content == "Du hast aufgegeben."  # not "Gespielt: —"
        assert "aufgegeben" in board.content and not board.items()

    async def test_type_a_move_opens_a_form_whose_answer_edits_the_board(self, bot: Bot) -> None:
        board = await practice(bot, DIETER, KLONDIKE, 5)
        opened = await press(bot.fake, DIETER, board, "Zug tippen")
        assert opened.calls == ["send_modal"] and opened.modal is not None
        assert opened.modal.title == "Zug tippen"
        sent = await submit(bot.fake, DIETER, opened, "4 1")
        assert sent.calls == ["edit_message"] and "Züge 1" in board.content
        await submit(bot.fake, DIETER, opened, "f1 3")
        assert "⚠️" in board.content and "Züge 1" in board.content  # refused: says why

    async def test_illegal_move_says_why_in_the_users_language(self, bot: Bot) -> None:
        await practice(bot, DIETER, KLONDIKE, 5)
        done = await call(bot, "move", DIETER, move="f1 3")
        [reply] = done.sent
        assert reply.ephemeral and reply.content.startswith("⚠️ ")
        assert "nicht" in reply.content and "Traceback" not in reply.content

    async def test_no_game_yet(self, bot: Bot) -> None:
        for name in ("board", "undo", "hint", "resign"):
            done = await call(bot, name, FakeUser(799, "Nobody"))
            assert done.sent[0].ephemeral and "no game open" in done.sent[0].content

    async def test_autocomplete_takes_what_people_type_and_names_moves(self, bot: Bot) -> None:
        await practice(bot, CARLA, KLONDIKE, 5)
        interaction = FakeInteraction(bot.fake, CARLA)
        choices = await SolitaireCog.move_autocomplete(bot.cog, interaction, "")
        legal = engine.new_game("klondike", seed=5).view()["legal_moves"]
        assert sorted(c.value for c in choices) == sorted(m for g in legal.values() for m in g)
        assert {c.name for c in choices} == {"7♡ · 4 → 1, onto 8♠︎", "Draw"}
        for typed in ("d", "draw", "4 1", "4>1", "7h", "7♥ 1", "7h 8s", "4 to 1"):
            some = await SolitaireCog.move_autocomplete(bot.cog, interaction, typed)
            assert [c.value for c in some] == (["d"] if typed[0] == "d" else ["4>1"]), typed
        assert await SolitaireCog.move_autocomplete(bot.cog, interaction, "4 2") == []
        german = FakeInteraction(bot.fake, CARLA, locale="de")
        some = await SolitaireCog.move_autocomplete(bot.cog, german, "ziehen")
        assert [(c.name, c.value) for c in some] == [("Ziehen", "d")]
        some = await SolitaireCog.move_autocomplete(bot.cog, german, "4 nach 1")
        assert [(c.name, c.value) for c in some] == [("7♡ · 4 → 1, auf 8♠︎", "4>1")]

    async def test_deal_codes_complete_as_boards_write_them(self, bot: Bot) -> None:
        interaction = FakeInteraction(bot.fake, CARLA)
        some = await SolitaireCog.deal_autocomplete(bot.cog, interaction, "1b")
        assert [(c.name, c.value) for c in some] == [("deal 1B", "1B")]
        assert await SolitaireCog.deal_autocomplete(bot.cog, interaction, "not a code!") == []
        # The deal of the practice game I play is offered too.
        await practice(bot, CARLA, KLONDIKE, 43)  # deal 1B
        some = await SolitaireCog.deal_autocomplete(bot.cog, interaction, "")
        assert [c.value for c in some] == ["1B"]
        german = FakeInteraction(bot.fake, DIETER)
        await practice(bot, DIETER, KLONDIKE, 5)
        some = await SolitaireCog.race_deal_autocomplete(bot.cog, german, "5")
        assert [(c.name, c.value) for c in some] == [("Spiel 5", "5")]

    async def test_help_in_german(self, bot: Bot) -> None:
        done = await call(bot, "help", DIETER)
        [reply] = done.sent
        assert reply.ephemeral and "So liest du das Spielfeld" in reply.content
        # Commands by the names German clients show.
        assert "/solitaire zug" in reply.content and "/solitaire move" not in reply.content
        assert "`" in reply.content  # notation in code spans…
        for span in reply.content.split("`")[1::2]:  # …but no emoji inside them
            assert all(ord(ch) < 0x2000 for ch in span), span


class TestFigures:
    async def test_daily_board_and_stats_answer_or_say_why(self, bot: Bot) -> None:
        done = await call(bot, "leaderboard", CARLA, variant=KLONDIKE)
        [reply] = done.sent
        assert reply.ephemeral and reply.content.startswith(("**Leaderboard**", "⚠️"))
        stats = await call(bot, "stats", CARLA)
        assert stats.sent[0].ephemeral and stats.sent[0].content.startswith(
            ("**Statistics for Carla**", "⚠️")
        )

    async def test_all_time_leaderboard_ranks_by_rating_in_english_and_german(
        self, bot: Bot, arena: ArenaServer
    ) -> None:
        for user in (CARLA, DIETER):  # each races alone on yukon and resigns
            opening = FakeInteraction(bot.fake, user)
            await SolitaireCog.race.callback(  # type: ignore[arg-type]
                bot.cog, opening, variant=YUKON, start=Choice(name="now", value="now")
            )
            await call(bot, "resign", user)
        # Their ratings, as rated races would have left them.
        assert arena.services is not None
        await arena.services.storage.pool.execute(
            "insert into ratings (variant, options, player_id, mu, sigma, games, rated_at) "
            "select 'yukon', '{}', id, case when display_name = 'Dieter' then 31 else 28 end, "
            "2, 12, now() from players where principal like 'discord:%'"
        )
        all_time = Choice(name="All time", value="all_time")
        done = await call(bot, "leaderboard", CARLA, variant=YUKON, period=all_time)
        [reply] = done.sent
        assert reply.ephemeral
        assert reply.content.splitlines() == [
            "**All-time leaderboard** Yukon · everyone",
            "1. Dieter: 1677 ±59 · 12 rated games",
            "2. Carla: 1588 ±59 · 12 rated games",
            "2 players · 0 still provisional",
        ]
        mine = await call(
            bot,
            "leaderboard",
            DIETER,
            variant=YUKON,
            period=all_time,
            scope=Choice(name="This server", value="server"),
            around_me=True,
        )
        lines = mine.sent[0].content.splitlines()
        assert lines[0] == "**Ewige Bestenliste** Yukon · dieser Server"
        assert "**1. Dieter: 1677 ±59 · 12 gewertete Spiele**" in lines
        empty = await call(bot, "leaderboard", CARLA, variant=KLONDIKE, period=all_time)
        assert "Nothing here yet." in empty.sent[0].content


class TestRaceCommand:
    async def test_race_needs_a_server_channel(self, bot: Bot) -> None:
        interaction = FakeInteraction(bot.fake, CARLA, guild_id=None)
        await SolitaireCog.race.callback(bot.cog, interaction, variant=KLONDIKE)  # type: ignore[arg-type]
        assert interaction.sent[0].ephemeral and "server channel" in interaction.sent[0].content

    @pytest.mark.parametrize(
        ("start", "buttons"),
        [
            ("manual", ["Join", "Leave", "Start"]),
            ("now", ["Join", "Leave", "Open my board", "Watch"]),
        ],
    )
    async def test_race_message_buttons(self, bot: Bot, start: str, buttons: list[str]) -> None:
        interaction = FakeInteraction(bot.fake, CARLA)
        await SolitaireCog.race.callback(  # type: ignore[arg-type]
            bot.cog,
            interaction,
            variant=SPIDER,
            start=Choice(name=start, value=start),
            time_limit=5,
        )
        [message] = interaction.sent
        assert not message.ephemeral and message.labels() == buttons
        assert "Carla" in message.content and "Spider · 2 suits" in message.content


class TestDaily:
    async def test_daily_starts_a_ranked_attempt_then_practice(self, bot: Bot) -> None:
        for _ in range(5):  # a busy machine may need more than one try to prove the deal
            first = await call(bot, "daily", CARLA, variant=KLONDIKE)
            [board] = first.sent
            if "still being prepared" not in board.content:
                break
        assert board.ephemeral and "ranked attempt" in board.content
        assert "Draw" in board.labels()
        assert "deal " not in board.content.splitlines()[0]  # the day's seed stays secret
        second = await call(bot, "daily", CARLA, variant=KLONDIKE)
        assert "practice" in second.sent[0].content
