"""Starting the bot: settings, the `solitaire bot` command, command translations, DMs, errors."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import discord
import pytest
from discord import app_commands
from discord_fakes import Bot, FakeChannel, FakeInteraction, FakeMessage, FakeUser, press, until
from discord_rules import check_message

import engine
from bot.app import BotSettings, SettingsError, run
from bot.cog import GermanTranslator, SolitaireCog
from bot.command_words import COMMANDS_DE
from bot.error_words import ERRORS
from bot.i18n import TEXTS, error_text
from server.ops.cli import main
from server.protocol.errors import MESSAGES
from server.transport.app import ArenaServer

GOOD = {
    "DISCORD_TOKEN": "discord-token",
    "SOLITAIRE_SERVER_URL": "ws://127.0.0.1:8765/",
    "SOLITAIRE_SERVICE_TOKEN": "service-token",
}


class TestSettings:
    def test_all_three_settings_are_read(self) -> None:
        settings = BotSettings.from_environment(GOOD)
        assert settings == BotSettings("discord-token", "ws://127.0.0.1:8765/", "service-token")

    def test_missing_settings_are_named(self) -> None:
        with pytest.raises(SettingsError, match="DISCORD_TOKEN, SOLITAIRE_SERVICE_TOKEN"):
            BotSettings.from_environment({"SOLITAIRE_SERVER_URL": "ws://x/"})

    def test_a_url_that_is_not_websocket_is_refused(self) -> None:
        with pytest.raises(SettingsError, match="ws:// or wss://"):
            BotSettings.from_environment({**GOOD, "SOLITAIRE_SERVER_URL": "http://x/"})

    def test_cli_reports_a_missing_setting_without_traceback(
        self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        for name in GOOD:
            monkeypatch.delenv(name, raising=False)
        assert main(["bot"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("solitaire bot: missing settings DISCORD_TOKEN")
        assert "Traceback" not in err

    async def test_wrong_service_token_is_reported_before_discord(
        self, arena: ArenaServer, capsys: pytest.CaptureFixture[str]
    ) -> None:
        settings = BotSettings("discord-token", arena.url, "not-the-token")
        assert await run(settings, connect_timeout=10) == 1
        assert "the server refused the bot: The service token is not valid." in (
            capsys.readouterr().err
        )

    async def test_unreachable_server_is_reported(self, capsys: pytest.CaptureFixture[str]) -> None:
        settings = BotSettings("discord-token", "ws://127.0.0.1:9/", "token")
        assert await run(settings, connect_timeout=0.5) == 1
        assert "cannot reach the server at ws://127.0.0.1:9/" in capsys.readouterr().err


class TestLanguages:
    def test_every_server_error_code_has_a_short_message_in_both_languages(self) -> None:
        for code in MESSAGES:
            english, german = ERRORS[code]
            assert (english and german and english != german) or code == "internal"
            assert error_text("de", code) == german

    def test_move_errors_add_the_servers_reason(self) -> None:
        text = error_text("en", "illegal_move", "A 9♥ cannot go on a 7♠.")
        assert text == "That move is not allowed. A 9♥ cannot go on a 7♠."

    def test_every_text_has_both_languages(self) -> None:
        for key, (english, german) in TEXTS.items():
            assert english.strip() and german.strip(), key

    async def test_commands_have_german_names_and_descriptions(self, bot: Bot) -> None:
        client = discord.Client(intents=discord.Intents.none())
        tree = app_commands.CommandTree(client)
        translator = GermanTranslator()
        await tree.set_translator(translator)
        group = bot.cog.__cog_app_commands_group__
        assert group is not None
        payload = await group.get_translated_payload(tree, translator)
        commands = {c["name"]: c for c in payload["options"]}
        assert set(commands) == {
            "race",
            "arena",
            "daily",
            "play",
            "board",
            "move",
            "options",
            "undo",
            "hint",
            "resign",
            "leaderboard",
            "quickmatch",
            "stats",
            "help",
        }
        for name, command in commands.items():
            assert command["name_localizations"] == {"de": COMMANDS_DE[name]}
            assert command["description_localizations"]["de"] == COMMANDS_DE[command["description"]]
            for option in command.get("options", []):
                assert option["description_localizations"]["de"], (name, option["name"])
                for choice in option.get("choices", []):
                    if choice["name"] in COMMANDS_DE:
                        assert choice["name_localizations"]["de"] == COMMANDS_DE[choice["name"]]
        await client.close()


@dataclass
class FakeDM:
    """A DM channel: what the bot sends there."""

    sent: list[FakeMessage] = field(default_factory=list)

    async def send(self, content: str | None = None, view: Any = None) -> FakeMessage:
        check_message(content, view)
        self.sent.append(FakeMessage(content or "", view))
        return self.sent[-1]


@dataclass
class FakeDMMessage:
    author: FakeUser
    content: str
    channel: FakeDM
    guild: None = None


class TestDirectMessages:
    async def test_a_typed_move_in_a_dm_plays_on_my_game(self, bot: Bot) -> None:
        user = FakeUser(901, "Frieda", locale="de")
        start = FakeInteraction(bot.fake, user)
        await SolitaireCog.play.callback(  # type: ignore[arg-type]
            bot.cog,
            start,
            variant=app_commands.Choice(name="K", value="klondike"),
            deal=engine.deal_code(5),
        )
        [board] = start.sent
        dm = FakeDM()
        await bot.table.play.dm_move(FakeDMMessage(user, "ziehen", dm))
        # The board the player has is edited in place; nothing new is posted.
        assert dm.sent == [] and "Züge 1" in board.content and board.view is not None
        await bot.table.play.dm_move(FakeDMMessage(user, "f1 nach 3", dm))
        assert "⚠️" in board.content and "Züge 1" in board.content  # refused, unchanged
        # With no board the bot may edit (its interaction is older than 15 minutes), the
        # board is posted in the DM once, and edited there from then on.
        bot.table.boards.board_until.clear()
        await bot.table.play.dm_move(FakeDMMessage(user, "ziehen", dm))
        [posted] = dm.sent
        assert "Züge 2" in posted.content
        await bot.table.play.dm_move(FakeDMMessage(user, "ziehen", dm))
        assert dm.sent == [posted] and "Züge 3" in posted.content

    async def test_a_dm_without_a_game_says_how_to_start(self, bot: Bot) -> None:
        dm = FakeDM()
        await bot.table.play.dm_move(FakeDMMessage(FakeUser(902, "Gus"), "7 3", dm))
        assert "no game open" in dm.sent[0].content


class TestRestart:
    async def test_a_race_message_is_adopted_after_a_restart(self, bot: Bot) -> None:
        channel = FakeChannel()
        opening = FakeInteraction(bot.fake, FakeUser(911, "Hana"), channel=channel)
        await SolitaireCog.race.callback(  # type: ignore[arg-type]
            bot.cog, opening, variant=app_commands.Choice(name="Y", value="yukon")
        )
        [message] = opening.sent
        bot.desk.races.clear()  # the restarted bot knows no race
        await press(bot.fake, FakeUser(912, "Ivo"), message, "Join", channel=channel)
        await until(lambda: "Hana, Ivo" in message.content, "the lobby shows Ivo")


class TestFailures:
    async def test_a_bug_becomes_an_apology_not_a_traceback(self, bot: Bot) -> None:
        async def broken() -> None:
            raise RuntimeError("a bug")

        interaction = FakeInteraction(bot.fake, FakeUser(921, "Jo", locale="de"))
        await bot.table.boards.guarded(interaction, broken())
        [reply] = interaction.sent
        assert reply.ephemeral
        assert reply.content == "⚠️ Im Bot ist etwas schiefgegangen; versuche es nochmal."

    async def test_the_server_going_away_is_a_clear_message(
        self, bot: Bot, arena: ArenaServer
    ) -> None:
        user = FakeUser(922, "Kai")
        await SolitaireCog.play.callback(  # type: ignore[arg-type]
            bot.cog,
            FakeInteraction(bot.fake, user),
            variant=app_commands.Choice(name="K", value="klondike"),
        )
        bot.table.boards.client.request_timeout = 0.5
        await arena.stop()
        done = FakeInteraction(bot.fake, user)
        await SolitaireCog.board.callback(bot.cog, done)  # type: ignore[arg-type]
        assert done.sent[0].ephemeral
        assert done.sent[0].content in {
            "⚠️ The game server is not reachable right now. Try again in a moment.",
            "⚠️ The game server did not answer in time. Try again.",
        }


async def test_discord_out_of_reach_or_refusing_is_one_line(
    arena: ArenaServer, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = BotSettings("not.a.token", arena.url, "bot-test-service-token")
    assert await run(settings, connect_timeout=10) == 1
    err = capsys.readouterr().err
    assert err.startswith(
        ("solitaire bot: cannot reach Discord", "solitaire bot: Discord refused DISCORD_TOKEN")
    )
    assert err.count("\n") == 1 and "Traceback" not in err
