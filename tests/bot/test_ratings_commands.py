"""Quick match and ratings from Discord: /solitaire quickmatch through the fakes (Discord's
rules enforced) against a real server, the race found, its board opened, its rating
changes told, and the ratings in the player's profile."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from bot_setup import SERVICE_TOKEN, ServerClock
from discord.app_commands import Choice
from discord_fakes import Bot, FakeInteraction, FakeMessage, FakeUser, press

from bot.cog import SolitaireCog
from bot.ratings import render_found, render_rating_changes, render_ratings
from server import protocol as p
from server.ops.config import ServerConfig
from server.transport.app import ArenaServer

CARLA = FakeUser(701, "Carla")
DIETER = FakeUser(702, "Dieter", locale="de")
KLONDIKE = Choice(name="Klondike", value="klondike")


@pytest.fixture
async def arena(
    migrated_database_url: str, server_clock: ServerClock
) -> AsyncIterator[ArenaServer]:
    """The bot's test server, its quick matches gathered after half a second."""
    config = ServerConfig(
        host="127.0.0.1",
        port=0,
        service_tokens=(SERVICE_TOKEN,),
        daily_prepare_ahead=False,
        quick_match_interval_s=0.1,
        quick_match_gather_s=0.5,
        quick_match_countdown_s=1,
    )
    async with ArenaServer(config, migrated_database_url, clock=server_clock) as running:
        yield running


async def quick_match(bot: Bot, user: FakeUser) -> FakeInteraction:
    interaction = FakeInteraction(bot.fake, user)
    await SolitaireCog.quickmatch.callback(  # type: ignore[arg-type]
        bot.cog, interaction, variant=KLONDIKE, rated=True
    )
    return interaction


async def next_message(interaction: FakeInteraction, count: int) -> FakeMessage:
    """The ``count``-th message of the interaction, once it has been sent."""
    for _ in range(400):
        if len(interaction.sent) >= count:
            return interaction.sent[count - 1]
        await asyncio.sleep(0.05)
    raise AssertionError(f"only {len(interaction.sent)} messages: {interaction.sent}")


async def test_quick_match_finds_a_race_opens_its_board_and_tells_its_ratings(bot: Bot) -> None:
    carla = await quick_match(bot, CARLA)
    [waiting] = carla.sent
    assert waiting.ephemeral
    assert waiting.content == (
        "Looking for a rated Klondike · draw 1 race near your rating of 1500… "
        "You will be told here when one is found."
    )
    dieter = await quick_match(bot, DIETER)
    assert dieter.sent[0].content.startswith("Suche ein gewertetes Rennen Klondike")

    found = await next_message(carla, 2)
    assert found.ephemeral and found.content.startswith("Race found: Klondike · draw 1 with ")
    assert "Carla" in found.content and "Dieter" in found.content
    assert "<t:" in found.content or "It has started." in found.content
    found_de = await next_message(dieter, 2)
    assert found_de.content.startswith("Rennen gefunden: Klondike · 1 Karte ziehen mit ")

    opened = await press(bot.fake, CARLA, found, "Open my board")
    board = opened.sent[-1]
    assert board.ephemeral and board.view is not None  # the player's own board
    await press(bot.fake, DIETER, found_de, "Mein Spielfeld", locale="de")
    await asyncio.sleep(1.5)  # the countdown (1 s): giving up is for a running race
    for user in (CARLA, DIETER):
        resign = FakeInteraction(bot.fake, user)
        await SolitaireCog.resign.callback(bot.cog, resign)  # type: ignore[arg-type]

    rated = await next_message(carla, 3)
    assert rated.ephemeral and rated.content.startswith("**Race ")
    assert "rated** · Klondike · draw 1" in rated.content
    assert "1. Carla: 1500? (+0)" in rated.content and "1. Dieter: 1500? (+0)" in rated.content
    rated_de = await next_message(dieter, 3)
    assert "gewertet** · Klondike · 1 Karte ziehen" in rated_de.content

    profile = FakeInteraction(bot.fake, CARLA)
    await SolitaireCog.stats.callback(bot.cog, profile)  # type: ignore[arg-type]
    [stats] = profile.sent
    assert "**Ratings**\nKlondike · draw 1: 1500? (provisional) · 1 rated game" in stats.content


async def test_a_guest_like_refusal_and_the_renderers(bot: Bot) -> None:
    carla = await quick_match(bot, CARLA)
    again = FakeInteraction(bot.fake, CARLA)
    await SolitaireCog.quickmatch.callback(  # type: ignore[arg-type]
        bot.cog, again, variant=KLONDIKE, rated=True
    )
    # Asking again keeps the place: the same answer, no error.
    assert again.sent[0].content == carla.sent[0].content

    none = render_ratings(p.PlayerRatingsReply(player=1, name="Carla", ratings=[]), "en")
    assert none == "**Ratings**\nNo rating yet: play a rated quick match (or the daily deal)."
    changes = p.RaceRatings(
        race=7,
        rated=True,
        variant="yukon",
        lines=[
            p.RatingChange(
                player=1,
                name="Ann",
                place=1,
                rating=1562,
                change=62,
                deviation=80,
                provisional=False,
            ),
            p.RatingChange(
                player=2,
                name="**Bob**",
                place=2,
                rating=1488,
                change=-12,
                deviation=200,
                provisional=True,
            ),
        ],
    )
    assert render_rating_changes(changes, "en").splitlines() == [
        "**Race 7 rated** · Yukon",
        "1. Ann: 1562 (+62)",
        "2. \\*\\*Bob\\*\\*: 1488? (−12)",
    ]
    settings = p.RaceSettings(
        variant="yukon",
        options={},
        max_players=2,
        start="countdown",
        countdown_s=10,
        time_limit_s=None,
        allow_undo=True,
        allow_hints=False,
    )
    race = p.RaceInfo(
        race=3,
        state="running",
        seq=4,
        creator=1,
        settings=settings,
        commitment="ab",
        players=[p.Standing(player=1, name="Ann")],
    )
    running = p.MatchFound(player=1, user="discord:1", race=race, server_time=0)
    assert render_found(running, "de") == "Rennen gefunden: Yukon mit Ann. Es läuft schon."
