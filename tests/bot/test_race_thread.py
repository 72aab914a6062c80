"""A race's own thread (``/solitaire race thread:True``), against a real server.

With Create Public Threads and Send Messages in Threads in the channel, the bot starts
a thread on the race message; the start's mention and the result line go there, and
the race message stays the standings. Without them the race opens as usual and its
creator is told, in one private line, which permission is missing. The fakes make
threads only as Discord would (tests/bot/discord_fakes.py).
"""

from __future__ import annotations

import discord
import pytest
from bot_setup import MakeClient
from discord.app_commands import Choice
from discord_fakes import (
    Bot,
    FakeChannel,
    FakeInteraction,
    FakeMessage,
    FakeThread,
    FakeUser,
    press,
    until,
)

import engine
from bot.client import Actor
from bot.cog import SolitaireCog
from bot.table import Table

ALICE = FakeUser(601, "Alice")
BERND = FakeUser(602, "Bernd", locale="de")
KLONDIKE = Choice(name="Klondike", value="klondike")
THREADS = discord.Permissions(
    view_channel=True, create_public_threads=True, send_messages_in_threads=True
)


async def open_race(
    bot: Bot, channel: FakeChannel, *, thread: bool, user: FakeUser = ALICE
) -> FakeInteraction:
    opening = FakeInteraction(bot.fake, user, channel=channel)
    await SolitaireCog.race.callback(  # type: ignore[arg-type]
        bot.cog, opening, variant=KLONDIKE, countdown=0, deal=engine.deal_code(7), thread=thread
    )
    return opening


async def race_to_the_end(
    bot: Bot, channel: FakeChannel, lobby: FakeMessage, make_client: MakeClient
) -> None:
    """Bernd joins by the button, Alice starts, both resign (through the server)."""
    await press(bot.fake, BERND, lobby, "Join", channel=channel)
    await press(bot.fake, ALICE, lobby, "Start", channel=channel)
    await until(lambda: bot.desk.mentions == 1, "the start's mention")
    other = await make_client()
    [race] = bot.desk.races
    for user in (ALICE, BERND):
        actor = Actor(user.id, user.name)
        info = (await other.request("get_race", actor, race=race))["race"]
        await other.request("resign", actor, game=info["your_game"])
    await until(lambda: "Race over." in lobby.content, "the end")


async def test_the_start_and_the_result_go_into_the_races_thread(
    bot: Bot, make_client: MakeClient
) -> None:
    channel = FakeChannel(permissions=THREADS)
    opening = await open_race(bot, channel, thread=True)
    [lobby] = opening.sent  # no line for the creator: all went well
    thread = lobby.thread
    assert isinstance(thread, FakeThread) and thread.parent is channel
    assert thread.id == lobby.id and thread.name == "Race #1: Klondike · draw 1"

    await race_to_the_end(bot, channel, lobby, make_client)
    await until(lambda: len(thread.messages) == 2, "the result in the thread")
    mention, result = thread.messages.values()
    assert f"<@{ALICE.id}>" in mention.content and f"<@{BERND.id}>" in mention.content
    assert mention.labels() == ["Open my board"] and mention.allowed_mentions is not None
    assert mention.allowed_mentions.users and not mention.allowed_mentions.everyone
    assert result.content.startswith("🏁 Race #1 is over: 🥇") and "deal **7**" in result.content
    assert "Alice" in result.content and "Bernd" in result.content
    assert result.view is None
    # The card to share: a row of squares a racer (no card in it) and the picture.
    grid = result.content.splitlines()[1:]
    assert grid[0] == "Solitaire Arena · race #1 · Klondike · draw 1 · deal 7"
    assert grid[1].startswith("🥇 ") and grid[2].startswith("🥈 ")
    for row in grid[1:]:
        squares = row.split(" ")[1]
        assert len(squares) == 10 and set(squares) <= set("🟩🟨⬛"), row
    assert not any(mark in result.content for mark in "♠♣♡♢♥♦")
    [(name, png)] = result.files
    assert name == "race-1.png" and png.startswith(b"\x89PNG")
    assert bot.desk.results == 1
    # The channel itself has the race message alone, which ends as it always did.
    assert [m for m in channel.messages.values() if not m.ephemeral] == [lobby]
    assert "Deal **7**" in lobby.content and "Alice" in lobby.content


@pytest.mark.parametrize(
    ("granted", "missing"),
    [
        (discord.Permissions(view_channel=True), "Create Public Threads and Send Messages"),
        (discord.Permissions(view_channel=True, create_public_threads=True), "Send Messages in"),
        (discord.Permissions(view_channel=True, send_messages_in_threads=True), "Create Public"),
    ],
)
async def test_without_the_permissions_the_race_opens_and_the_creator_is_told(
    bot: Bot, make_client: MakeClient, granted: discord.Permissions, missing: str
) -> None:
    channel = FakeChannel(permissions=granted)
    opening = await open_race(bot, channel, thread=True)
    lobby, line = opening.sent
    assert not lobby.ephemeral and "Alice" in lobby.content and lobby.thread is None
    assert line.ephemeral and line.content.startswith(
        "The race is open, but without a thread: the bot lacks "
    )
    assert missing in line.content
    # The race runs as without a thread: the mention comes in the channel.
    await race_to_the_end(bot, channel, lobby, make_client)
    assert any("🏁 Race #1 is on" in m.content for m in channel.messages.values())


async def test_the_line_is_in_the_creators_language(bot: Bot) -> None:
    opening = await open_race(bot, FakeChannel(), thread=True, user=BERND)
    _, line = opening.sent
    assert line.content == (
        "Das Rennen ist offen, aber ohne Thread: dem Bot fehlt hier Öffentliche Threads"
        " erstellen und Nachrichten in Threads senden."
    )


async def test_no_thread_when_asked_for_none(bot: Bot) -> None:
    channel = FakeChannel(permissions=THREADS)
    opening = await open_race(bot, channel, thread=False)
    [lobby] = opening.sent
    assert lobby.thread is None


async def test_a_thread_by_default_where_allowed_and_silence_where_not(bot: Bot) -> None:
    """A race has its thread unless its creator says no; without the permissions for
    one, a thread nobody asked for by name costs its creator no extra line."""
    channel = FakeChannel(permissions=THREADS)
    opening = FakeInteraction(bot.fake, ALICE, channel=channel)
    await SolitaireCog.race.callback(bot.cog, opening, variant=KLONDIKE)  # type: ignore[arg-type]
    [lobby] = opening.sent
    assert lobby.thread is not None and lobby.thread.name.startswith("Race #")
    bare = FakeChannel()  # View Channels alone
    opening = FakeInteraction(bot.fake, ALICE, channel=bare)
    await SolitaireCog.race.callback(bot.cog, opening, variant=KLONDIKE)  # type: ignore[arg-type]
    [lobby] = opening.sent  # the race message alone: nothing said about a thread
    assert lobby.thread is None and "Race #" in lobby.content


async def test_a_race_opened_inside_a_thread_says_discord_refused(bot: Bot) -> None:
    """Discord makes no thread inside a thread: the race runs there, and the creator
    reads Discord's reason."""
    parent = FakeChannel(permissions=THREADS)
    starter = parent.posted("a message with a thread")
    inside = await starter.create_thread(name="talk")
    opening = await open_race(bot, inside, thread=True)
    lobby, line = opening.sent
    assert lobby.thread is None and "Alice" in lobby.content
    assert line.ephemeral and line.content == (
        "The race is open, but Discord did not make its thread: "
        "Cannot execute action on this channel type"
    )


async def test_the_fakes_make_threads_as_discord_does() -> None:
    channel = FakeChannel(permissions=THREADS)
    message = channel.posted("race")
    with pytest.raises(discord.HTTPException, match="name must be 1-100"):
        await message.create_thread(name="x" * 101)
    with pytest.raises(discord.HTTPException, match="name must be 1-100"):
        await message.create_thread(name="  ")
    with pytest.raises(discord.HTTPException, match="auto_archive_duration"):
        await message.create_thread(name="race", auto_archive_duration=120)
    made = await message.create_thread(name="x" * 100)
    with pytest.raises(discord.HTTPException, match="already been created"):
        await message.create_thread(name="again")
    await made.send("hello")
    quiet = FakeChannel(permissions=discord.Permissions(view_channel=True))
    with pytest.raises(discord.Forbidden):
        await quiet.posted("race").create_thread(name="race")
    no_posts = FakeChannel(permissions=discord.Permissions(create_public_threads=True))
    thread = await no_posts.posted("race").create_thread(name="race")
    with pytest.raises(discord.Forbidden):
        await thread.send("hello")


async def test_a_rematch_of_a_race_with_a_thread_has_its_own(
    bot: Bot, make_client: MakeClient
) -> None:
    channel = FakeChannel(permissions=THREADS)
    lobby = (await open_race(bot, channel, thread=True)).sent[0]
    await race_to_the_end(bot, channel, lobby, make_client)
    pressed = await press(bot.fake, ALICE, lobby, "Rematch", channel=channel)
    [second] = pressed.sent  # no line for the presser: the thread was made
    assert second is not lobby and isinstance(second.thread, FakeThread)
    assert second.thread.name == "Race #2: Klondike · draw 1"
    await press(bot.fake, BERND, second, "Join", channel=channel)
    await press(bot.fake, ALICE, second, "Start", channel=channel)
    await until(lambda: len(second.thread.messages) == 1, "the rematch's start in its thread")
    [mention] = second.thread.messages.values()
    assert "🏁 Race #2 is on" in mention.content and f"<@{BERND.id}>" in mention.content


async def test_a_restarted_bot_posts_the_result_in_the_races_thread(
    bot: Bot, restarted: Table, make_client: MakeClient
) -> None:
    channel = FakeChannel(permissions=THREADS)
    lobby = (await open_race(bot, channel, thread=True)).sent[0]
    thread = lobby.thread
    assert thread is not None
    await bot.table.boards.client.close()  # the old bot is gone

    assert await restarted.races.reattach_races([1], {channel.id: channel}.get) == 1
    other = await make_client()
    [race] = restarted.boards.desk.races
    alice, bernd = Actor(ALICE.id, "Alice"), Actor(BERND.id, "Bernd")
    joined = await other.request("join_race", bernd, race=race)
    started = await other.request("start_race", alice, race=race)
    for actor, reply in ((alice, started), (bernd, joined)):
        await other.request("resign", actor, game=reply["race"]["your_game"])
    await until(lambda: any("is over" in m.content for m in thread.messages.values()), "result")
    assert "Race over." in lobby.content
