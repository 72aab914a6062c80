"""After a bot restart, against a real server: a user's current game is found again
(my_games), and the messages of open races are edited again (open_races).

A restart is a new Table, RaceDesk and server client with empty memories, as
bot/app.py builds them; the old client is closed first, so only the new bot can
follow the race.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import discord
from bot_setup import MakeClient, bot_table
from discord.app_commands import Choice
from discord_fakes import Bot, FakeBot, FakeChannel, FakeInteraction, FakeUser, press, until
from discord_rules import layout_text

import engine
from bot.client import Actor
from bot.cog import SolitaireCog
from bot.presses import Prefs
from bot.table import Table
from server.transport.app import ArenaServer

ERIKA = FakeUser(801, "Erika", locale="de")
FRANK = FakeUser(802, "Frank")
KLONDIKE = Choice(name="Klondike", value="klondike")


async def call(table: Table, name: str, user: FakeUser, **arguments: Any) -> FakeInteraction:
    interaction = FakeInteraction(None, user)
    await getattr(SolitaireCog, name).callback(SolitaireCog(table), interaction, **arguments)
    return interaction


class TestMyGames:
    async def test_typed_commands_find_the_game_again(self, bot: Bot, restarted: Table) -> None:
        await call(bot.table, "play", ERIKA, variant=KLONDIKE, deal=engine.deal_code(5))
        assert restarted.boards.games == {}
        moved = await call(restarted, "move", ERIKA, move="d")
        assert "Züge 1" in moved.sent[0].content and "⚠️" not in moved.sent[0].content
        shown = await call(restarted, "board", ERIKA)
        assert "Züge 1" in shown.sent[0].content

    async def test_the_newest_game_still_being_played_wins(
        self, bot: Bot, restarted: Table
    ) -> None:
        await call(bot.table, "play", FRANK, variant=KLONDIKE, deal=engine.deal_code(5))
        await call(bot.table, "play", FRANK, variant=KLONDIKE, deal=engine.deal_code(6))
        await call(bot.table, "resign", FRANK)  # deal 6 is over: deal 5 is the current game
        shown = await call(restarted, "board", FRANK)
        assert "deal 5" in shown.sent[0].content

    async def test_a_dm_move_finds_the_game_again(self, bot: Bot, restarted: Table) -> None:
        await call(bot.table, "play", FRANK, variant=KLONDIKE, deal=engine.deal_code(5))
        sent: list[str] = []

        class Channel:
            async def send(self, content: str | None = None, **extra: Any) -> None:
                sent.append(content or layout_text(extra["view"]))

        class Message:
            author = FRANK
            content = "d"
            channel = Channel()

        await restarted.play.dm_move(Message())
        assert "Moves 1" in sent[0]

    async def test_without_any_game_it_still_says_so(self, restarted: Table) -> None:
        done = await call(restarted, "undo", FakeUser(899, "Nobody"))
        assert "no game open" in done.sent[0].content


class TestRaceMessages:
    async def test_a_restarted_bot_edits_the_race_message_again(
        self, bot: Bot, restarted: Table, make_client: MakeClient
    ) -> None:
        channel = FakeChannel()
        opening = FakeInteraction(bot.fake, ERIKA, channel=channel)
        await SolitaireCog.race.callback(bot.cog, opening, variant=KLONDIKE)  # type: ignore[arg-type]
        [lobby] = opening.sent
        assert channel.messages[lobby.id] is lobby and "Erika" in lobby.content
        await bot.table.boards.client.close()  # the old bot is gone

        channels = {channel.id: channel}
        assert await restarted.races.reattach_races([1, 2], channels.get) == 1
        assert await restarted.races.reattach_races([1], channels.get) == 0  # already followed
        other = await make_client()
        race = next(iter(restarted.boards.desk.races))
        await other.request("join_race", Actor(FRANK.id, "Frank"), race=race)
        await until(lambda: "Erika, Frank" in lobby.content, "Frank shown by the new bot")
        assert "Spieler:" in lobby.content  # still in the language it was opened in

    async def test_a_rematch_is_found_again_at_its_own_message(
        self, bot: Bot, restarted: Table, make_client: MakeClient
    ) -> None:
        channel = FakeChannel()
        opening = FakeInteraction(bot.fake, ERIKA, channel=channel)
        await SolitaireCog.race.callback(bot.cog, opening, variant=KLONDIKE, countdown=0)  # type: ignore[arg-type]
        [lobby] = opening.sent
        race = next(iter(bot.desk.races))
        other = await make_client()
        erika, frank = Actor(ERIKA.id, "Erika"), Actor(FRANK.id, "Frank")
        joined = await other.request("join_race", frank, race=race)
        started = await other.request("start_race", erika, race=race)
        for actor, reply in ((erika, started), (frank, joined)):
            await other.request("resign", actor, game=reply["race"]["your_game"])
        await until(lambda: "Rennen beendet." in lobby.content, "the end")
        pressed = await press(bot.fake, ERIKA, lobby, "Revanche", channel=channel)
        [second] = pressed.sent
        assert second is not lobby
        ended = lobby.content
        await bot.table.boards.client.close()  # the old bot is gone

        # The new bot finds the rematch at its own message, not at the old race's.
        channels = {channel.id: channel}
        assert await restarted.races.reattach_races([1, 2], channels.get) == 1
        [rematch] = restarted.boards.desk.races
        assert rematch != race
        await other.request("join_race", frank, race=rematch)
        await until(lambda: "Erika, Frank" in second.content, "Frank shown in the rematch")
        assert lobby.content == ended

    async def test_races_in_unknown_channels_are_left_alone(
        self, bot: Bot, restarted: Table
    ) -> None:
        opening = FakeInteraction(bot.fake, FRANK)
        await SolitaireCog.race.callback(bot.cog, opening, variant=KLONDIKE)  # type: ignore[arg-type]
        assert await restarted.races.reattach_races([1], lambda channel_id: None) == 0
        assert restarted.boards.desk.races == {}


class TestRestartInTheCountdown:
    async def test_boards_turn_up_and_racers_are_mentioned(
        self, arena: ArenaServer, tmp_path: Path
    ) -> None:
        """The bot restarts while a race counts down: at the start the racers are still
        mentioned (the bot kept who joined through it), and a board opened face down
        before the restart turns its cards up with one tap. No interaction of the new bot
        can carry the mention, so it is posted in the channel (Send Messages)."""
        channel = FakeChannel(
            permissions=discord.Permissions(view_channel=True, send_messages=True)
        )
        async with bot_table(arena, tmp_path) as first:
            fake = FakeBot(first)
            opening = FakeInteraction(fake, ERIKA, channel=channel)
            await SolitaireCog.race.callback(  # type: ignore[arg-type]
                SolitaireCog(first), opening, variant=KLONDIKE, countdown=3
            )
            [lobby] = opening.sent
            await press(fake, FRANK, lobby, "Mitmachen", channel=channel)
            await press(fake, ERIKA, lobby, "Starten", channel=channel)
            await until(lambda: "Mein Spielfeld" in lobby.labels(), "the countdown")
            boards = {}
            for user in (ERIKA, FRANK):
                opened = await press(fake, user, lobby, "Mein Spielfeld", channel=channel)
                [boards[user.name]] = opened.sent
            face_down = boards["Frank"]
            assert not face_down.enabled_piles()
            assert "turn up then" in face_down.content
            # Its columns are named by number, not "Empty 1" (they hold cards, face down).
            assert face_down.labels()[:7] == [f"{n} 🟦" for n in range(1, 8)]
            assert "Turn the cards up" in face_down.enabled()
        async with bot_table(arena, tmp_path) as again:
            fake = FakeBot(again)
            assert await again.races.reattach_races([1], {channel.id: channel}.get) == 1
            await until(lambda: again.boards.desk.mentions == 1, "the start's mention")
            [mention] = [m for m in channel.messages.values() if "🏁" in m.content]
            assert f"<@{ERIKA.id}>" in mention.content and f"<@{FRANK.id}>" in mention.content
            # The board from before the restart: one tap turns its cards up.
            await press(fake, FRANK, face_down, "Turn the cards up")
            # Each column's button names its top card now (whether it is enabled depends
            # on the deal: some deals have no move on the table at the start).
            columns = [face_down.find(str(n)).item.label for n in range(1, 8)]
            assert all(any(mark in label for mark in "♠♣♡♢") for label in columns), columns
            assert "Turn the cards up" not in face_down.labels()
            assert "Draw" in face_down.enabled()
            assert any(mark in face_down.content for mark in "♠♣♡♢")


class TestPreferences:
    """Board options and the language live on the server (``set_preferences``): a new
    bot on the same server (a restart) has them, and a German player's DM answers in
    German without any interaction of the new bot."""

    @staticmethod
    async def options(table: Table, user: FakeUser, **chosen: bool) -> str:
        interaction = FakeInteraction(None, user)
        await SolitaireCog.options.callback(SolitaireCog(table), interaction, **chosen)  # type: ignore[arg-type]
        [line] = interaction.sent
        return line.content

    async def test_options_are_kept_across_a_restart(self, bot: Bot, restarted: Table) -> None:
        await self.options(bot.table, FRANK, one_tap=True)
        await self.options(bot.table, ERIKA, auto_home=True)
        await self.options(bot.table, ERIKA, one_tap=True)
        assert restarted.boards.prefs == {}  # nothing in the new bot's memory
        line = await self.options(restarted, FRANK)
        assert "fits on · safe cards go home by themselves off" in line
        assert restarted.boards.prefs_of(FRANK.id) == Prefs(one_tap=True, auto_home=False)
        erika = await restarted.boards.load_prefs(Actor(ERIKA.id, "Erika", "de"))
        assert erika == Prefs(one_tap=True, auto_home=True)

    async def test_a_german_dm_stays_german_after_a_restart(
        self, bot: Bot, restarted: Table
    ) -> None:
        await call(bot.table, "play", ERIKA, variant=KLONDIKE, deal=engine.deal_code(5))
        sent: list[str] = []

        class Channel:
            async def send(self, content: str | None = None, **extra: Any) -> None:
                sent.append(content or layout_text(extra["view"]))

        class Message:
            author = ERIKA
            content = "ziehen"
            channel = Channel()

        await restarted.play.dm_move(Message())
        assert ("Züge 1" in sent[0] and "Ziehen" in str(sent[0])) or "Züge 1" in sent[0]
        assert "Moves" not in sent[0]
