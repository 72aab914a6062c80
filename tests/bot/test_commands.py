"""Every /solitaire command callback with fake interactions, against a real server.

Each test checks what the user would see: which messages, ephemeral or not, with
which buttons, in which language, and that errors are short messages.
"""

from __future__ import annotations

from typing import Any

import pytest
from bot_setup import ServerClock
from discord.app_commands import Choice
from discord_fakes import Bot, FakeInteraction, FakeMessage, FakeUser, press, until

import engine
from bot.cog import SolitaireCog
from bot.render import render_board
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


class TestPlay:
    async def test_play_sends_a_private_board_with_its_buttons(self, bot: Bot) -> None:
        done = await call(bot, "play", CARLA, variant=KLONDIKE, deal=engine.deal_code(5))
        assert done.response.deferred == {"ephemeral": True, "thinking": True}
        [board] = done.sent
        assert board.ephemeral
        assert board.content.startswith("**Klondike · draw 1** · deal 5")
        assert board.labels() == [
            *map(str, range(1, 8)),
            "Waste",
            "→ Foundation",
            "F1",
            "F2",
            "F3",
            "F4",
            "Draw",
            "Undo",
            "Hint",
            "Resign",
        ]
        legal = engine.new_game("klondike", seed=5).view()["legal_moves"]
        sources = {k for k in legal if k != "d"}
        assert set(board.enabled()) == sources | {"Draw", "Undo", "Hint", "Resign"}

    async def test_german_user_gets_german_board(self, bot: Bot) -> None:
        board = await practice(bot, DIETER, SPIDER, 3)
        assert "Spider · 2 Farben" in board.content and "Züge 0" in board.content
        assert "Geben" in board.labels() and "Aufgeben" in board.labels()

    async def test_practice_board_shows_the_time_by_the_games_clock(
        self, bot: Bot, server_clock: ServerClock
    ) -> None:
        server_clock.now = 1_773_490_500_000  # the game starts then
        bot.table.clock = lambda: 1_773_490_583_000  # the bot draws the board 83 s later
        board = await practice(bot, DIETER, KLONDIKE, 5)
        assert "⏱️ 1:23 · Züge 0" in board.content

    async def test_boards_use_the_applications_card_emoji_once_installed(self, bot: Bot) -> None:
        bot.table.suits = {s: f"<:sa_{s}:14{n}0000000000000000>" for n, s in enumerate("cdhs")}
        board = await practice(bot, CARLA, KLONDIKE, 5)
        top = engine.new_game("klondike", seed=5).view()["tableau"][0]["up"][-1]
        assert f"1️⃣ {top[:-1]}<:sa_{top[-1]}:14" in board.content
        assert "♡" not in board.content and "♢" not in board.content

    async def test_bad_deal_code_is_a_clear_message(self, bot: Bot) -> None:
        done = await call(bot, "play", CARLA, variant=KLONDIKE, deal="no such!")
        assert done.sent[0].ephemeral and "is not a deal code" in done.sent[0].content


class TestBoardButtons:
    async def test_source_lights_targets_and_target_plays(self, bot: Bot) -> None:
        board = await practice(bot, CARLA, KLONDIKE, 5)
        game = engine.new_game("klondike", seed=5)
        source, moves = next((s, m) for s, m in game.view()["legal_moves"].items() if s.isdigit())
        await press(bot.fake, CARLA, board, source)
        targets = {m.split(">")[1] for m in moves}
        lit = {label for label in board.enabled()} - {"Draw", "Undo", "Hint", "Resign", source}
        assert lit == {"→ Foundation" if t == "f" else t for t in targets}
        assert "👉" in board.content and "pick a target" in board.content
        target = moves[0].split(">")[1]
        await press(bot.fake, CARLA, board, "→ Foundation" if target == "f" else target)
        game.play(moves[0])
        assert "Moves 1" in board.content
        assert set(board.enabled()) >= {k for k in game.view()["legal_moves"] if k.isdigit()}

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
        await press(bot.fake, CARLA, board, source)
        menu = board.find("select")
        sizes = sorted({int(m.split(">")[0].partition(":")[2] or 1) for m in moves})
        assert [o.value for o in menu.item.options] == [str(s) for s in sizes]
        chosen = sizes[-1]
        await press(bot.fake, CARLA, board, "select", value=str(chosen))
        wanted = {
            m.split(">")[1] for m in moves if int(m.split(">")[0].partition(":")[2] or 1) == chosen
        }
        lit = set(board.enabled()) - {"Undo", "Hint", "Resign", source}
        assert lit == {"→ Foundation" if t == "f" else t for t in wanted}

    async def test_a_target_several_cards_reach_asks_which_then_plays_it(self, bot: Bot) -> None:
        """Yukon deal 1: two cards of column 6 can go onto column 4 (6:2>4 and 6:3>4).
        Column 4's button says it moves there: its id names column 4 (no other button
        shares it), and the menu it brings up plays the chosen card's move."""
        game = engine.new_game("yukon", seed=1)
        assert {"6:2>4", "6:3>4"} <= set(game.view()["legal_moves"]["6"])
        board = await practice(bot, CARLA, YUKON, 1)
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
        assert "You resigned this game." in board.content and board.view is None

    async def test_resign_asks_first_then_ends_the_game(self, bot: Bot) -> None:
        board = await practice(bot, DIETER, KLONDIKE, 8)
        await press(bot.fake, DIETER, board, "Aufgeben")
        assert "Wirklich aufgeben?" in board.content and board.view is not None
        await press(bot.fake, DIETER, board, "Aufgeben")
        assert "Du hast dieses Spiel aufgegeben." in board.content and board.view is None

    async def test_a_board_survives_a_restart_and_refuses_other_users(self, bot: Bot) -> None:
        board = await practice(bot, CARLA, KLONDIKE, 5)
        bot.table.games.clear()  # a restarted bot remembers nothing; the ids carry the game
        await press(bot.fake, CARLA, board, "Draw")
        assert "Moves 1" in board.content
        before = board.content
        intruder = await press(bot.fake, DIETER, board, "Draw")
        assert board.content == before
        assert intruder.sent[0].ephemeral and "Das gehört dir nicht." in intruder.sent[0].content

    async def test_hint_shows_a_move(self, bot: Bot) -> None:
        board = await practice(bot, CARLA, KLONDIKE, 39)
        await press(bot.fake, CARLA, board, "Hint")
        assert "Hint: **" in board.content and "Hints 1" in board.content


class TestLostGames:
    async def test_a_lost_practice_game_offers_to_jump_back_unasked(self, bot: Bot) -> None:
        await practice(bot, CARLA, KLONDIKE, LOST_SEED)
        for move in LOST_LINE:
            done = await call(bot, "move", CARLA, move=move)
        [board] = done.sent
        assert "Jump back" not in board.labels()
        # the server's background check proves the game lost; the board is redrawn unasked
        await until(lambda: "can no longer be won" in board.content, "the offer on the board")
        assert board.labels()[-5:] == ["Draw", "Undo", "Jump back", "Hint", "Resign"]
        await press(bot.fake, CARLA, board, "Jump back")
        assert "can no longer be won" not in board.content
        assert "Jump back" not in board.labels()
        assert "Moves 19 · Score 20 · Undos 7" in board.content  # seven moves taken back

    async def test_the_offer_in_german(self, bot: Bot) -> None:
        await practice(bot, DIETER, KLONDIKE, LOST_SEED)
        for move in LOST_LINE:
            done = await call(bot, "move", DIETER, move=move)
        [board] = done.sent
        await until(lambda: "nicht mehr zu gewinnen" in board.content, "das Angebot")
        assert "Zurückspringen" in board.labels()


class TestTypedCommands:
    async def test_move_undo_hint_and_board(self, bot: Bot) -> None:
        await practice(bot, CARLA, KLONDIKE, 5)
        moved = await call(bot, "move", CARLA, move="d")
        assert moved.sent[0].ephemeral and "Moves 1" in moved.sent[0].content
        undone = await call(bot, "undo", CARLA)
        assert "Undos 1" in undone.sent[0].content
        hinted = await call(bot, "hint", CARLA)
        assert "Hint: **" in hinted.sent[0].content
        shown = await call(bot, "board", CARLA)
        assert shown.sent[0].ephemeral and shown.sent[0].labels()[-1] == "Resign"
        resigned = await call(bot, "resign", CARLA)
        assert "You resigned" in resigned.sent[0].content and resigned.sent[0].view is None

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

    async def test_autocomplete_lists_my_legal_moves(self, bot: Bot) -> None:
        await practice(bot, CARLA, KLONDIKE, 5)
        interaction = FakeInteraction(bot.fake, CARLA)
        choices = await SolitaireCog.move_autocomplete(bot.cog, interaction, "")
        legal = engine.new_game("klondike", seed=5).view()["legal_moves"]
        assert sorted(c.value for c in choices) == sorted(m for g in legal.values() for m in g)
        some = await SolitaireCog.move_autocomplete(bot.cog, interaction, "d")
        assert [c.value for c in some] == ["d"]

    async def test_help_in_german(self, bot: Bot) -> None:
        done = await call(bot, "help", DIETER)
        [reply] = done.sent
        assert reply.ephemeral and "So liest du das Spielfeld" in reply.content
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

    async def test_all_time_leaderboard_in_english_and_german(self, bot: Bot) -> None:
        for user in (CARLA, DIETER):  # each races alone on yukon and resigns: 0 of 1 won
            opening = FakeInteraction(bot.fake, user)
            await SolitaireCog.race.callback(  # type: ignore[arg-type]
                bot.cog, opening, variant=YUKON, start=Choice(name="now", value="now")
            )
            await call(bot, "resign", user)
        all_time = Choice(name="All time", value="all_time")
        done = await call(bot, "leaderboard", CARLA, variant=YUKON, period=all_time)
        [reply] = done.sent
        assert reply.ephemeral
        assert reply.content.splitlines() == [
            "**All-time leaderboard** Yukon · everyone",
            "1. Carla: 0 of 1 won (0%) · best —",
            "1. Dieter: 0 of 1 won (0%) · best —",
            "2 players",
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
        assert "**1. Dieter: 0 von 1 gewonnen (0 %) · beste —**" in lines
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
            ("now", ["Join", "Leave", "Open my board"]),
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
