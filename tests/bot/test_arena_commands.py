"""Arenas on Discord: /solitaire arena through the fakes (Discord's rules enforced) against
a real server: the channel message and its live standings, Join, a board for each race
the server pairs, My place, and the podium at the end; the message's text and the
standings' edits as pure functions too."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import pytest
from bot_setup import SERVICE_TOKEN
from discord.app_commands import Choice
from discord_fakes import (
    Bot,
    FakeBot,
    FakeChannel,
    FakeInteraction,
    FakeMessage,
    FakeUser,
    press,
    until,
)

from bot.arena import ArenaState, render_arena, render_place, render_podium
from bot.cog import SolitaireCog, global_commands, server_commands
from bot.table import Table
from server import protocol as p
from server.ops.config import ServerConfig
from server.transport.app import ArenaServer

CARLA = FakeUser(801, "Carla")
DIETER = FakeUser(802, "Dieter", locale="de")
KLONDIKE = Choice(name="Klondike", value="klondike")
MINUTE_MS = 60_000


class MovingClock:
    """The server's clock: real time plus an offset the test moves on (an arena of five
    minutes ends when the test says, through the server's own rounds and race clocks)."""

    def __init__(self) -> None:
        self.offset = 0

    def __call__(self) -> int:
        return time.time_ns() // 1_000_000 + self.offset


@pytest.fixture
def moving() -> MovingClock:
    return MovingClock()


@pytest.fixture
async def arena(migrated_database_url: str, moving: MovingClock) -> AsyncIterator[ArenaServer]:
    """The bot's test server, pairing arenas every 50 ms, their races without countdown."""
    config = ServerConfig(
        host="127.0.0.1",
        port=0,
        service_tokens=(SERVICE_TOKEN,),
        daily_prepare_ahead=False,
        arena_round_ms=50,
        arena_poll_ms=50,
        arena_countdown_s=0,
    )
    async with ArenaServer(config, migrated_database_url, clock=moving) as running:
        yield running


def line(rank: int, name: str, score: int, *, races: int = 1, fire: bool = False) -> p.ArenaLine:
    return p.ArenaLine(
        rank=rank,
        player=rank,
        name=name,
        score=score,
        streak=2 if fire else 0,
        fire=fire,
        races=races,
        wins=1 if fire else 0,
        status="waiting",
    )


def info(state: str = "running", top: list[p.ArenaLine] | None = None) -> p.ArenaInfo:
    settings = p.ArenaSettings(
        variant="yukon",
        options={},
        minutes=30,
        race_time_s=600,
        race_size=8,
        countdown_s=5,
        rated=False,
        title="Tea *time*",
    )
    lines = top or []
    return p.ArenaInfo(
        arena=7,
        state=state,  # type: ignore[arg-type]
        creator=1,
        settings=settings,
        starts_at=1_796_060_400_000,
        ends_at=1_796_062_200_000,
        players=len(lines),
        top=lines,
    )


class TestArenaMessage:
    def test_the_message_says_what_when_and_the_servers_top(self) -> None:
        state = ArenaState(info(top=[line(1, "Ann", 5, fire=True), line(2, "Bob", 2)]))
        assert render_arena(state, "en").splitlines() == [
            "🏟️ **Arena #7: Yukon** · Tea \\*time\\*",
            "30 minutes · races of up to 8 players · at most 10 min a race · unrated",
            "Running, ends <t:1796062200:R>. Join any time: finish a race and you are paired"
            " again at once.",
            "🥇1. Ann: 5 points · 1 race, 1 won 🔥",
            "🥈2. Bob: 2 points · 1 race, 0 won",
            "2 players",
        ]
        german = render_arena(ArenaState(info("upcoming")), "de").splitlines()
        assert german[2].startswith("Beginnt <t:1796060400:R>.")
        assert german[3:] == ["Noch niemand dabei.", "0 Spieler"]

    def test_standings_change_the_message_and_a_players_own_events_do_not(self) -> None:
        state = ArenaState(info(top=[line(1, "Ann", 1)]))
        same = p.ArenaStandingsEvent(players=1, top=[line(1, "Ann", 1)])
        assert not state.apply(same)
        newer = p.ArenaStandingsEvent(players=2, top=[line(1, "Bob", 3), line(2, "Ann", 1)])
        assert state.apply(newer) and state.info.top[0].name == "Bob"
        scored = p.ArenaScoredEvent(
            race=3, rank=1, racers=2, points=1, fire=False, score=3, streak=1
        )
        assert not state.apply(scored)
        nxt = p.ArenaNextRaceEvent(race=4, pairing=2, players=[])
        assert not state.apply(nxt)
        podium = [line(1, "Bob", 3), line(2, "Ann", 1)]
        end = p.ArenaStateEvent(state="finished", starts_at=1, ends_at=2, podium=podium)
        assert state.apply(end) and state.finished
        # A late "ending" after the end changes nothing: the end is final.
        assert not state.apply(p.ArenaStateEvent(state="ending", starts_at=1, ends_at=2))
        assert render_podium(state, "en") == "🏆 Arena #7 is over: 🥇 Bob 3 · 🥈 Ann 1"
        assert "Die Arena ist vorbei." in render_arena(state, "de")

    def test_an_arena_nobody_completed_has_an_empty_podium(self) -> None:
        end = p.ArenaStateEvent(state="finished", starts_at=1, ends_at=2, podium=[])
        state = ArenaState(info())
        state.apply(end)
        assert render_podium(state, "de") == (
            "🏆 Arena #7 ist vorbei: niemand hat ein Rennen beendet"
        )

    def test_my_place_is_bold_among_the_lines_around_it(self) -> None:
        around = [line(1, "Ann", 5), line(2, "Bob", 2), line(3, "Cy", 0)]
        mine = p.ArenaInfo(**{**_fields(info(top=around)), "you": around[1], "around": around})
        assert render_place(mine, "en").splitlines() == [
            "Your place in arena #7:",
            "🥇1. Ann: 5 points · 1 race, 0 won",
            "**🥈2. Bob: 2 points · 1 race, 0 won**",
            "🥉3. Cy: 0 points · 1 race, 0 won",
        ]

    def test_a_long_standing_list_fits_discord(self) -> None:
        names = [line(rank, "W" * 32, 99) for rank in range(1, 200)]
        text = render_arena(ArenaState(info(top=names)), "en")
        assert len(text.encode("utf-16-le")) // 2 <= 2000
        assert "more" in text and text.endswith("199 players")


def _fields(value: p.ArenaInfo) -> dict[str, object]:
    return {name: getattr(value, name) for name in value.__struct_fields__}


async def open_arena(bot: Bot, channel: FakeChannel, **options: object) -> FakeInteraction:
    interaction = FakeInteraction(bot.fake, CARLA, channel=channel)
    await SolitaireCog.arena.callback(  # type: ignore[arg-type]
        bot.cog, interaction, variant=KLONDIKE, **options
    )
    return interaction


async def boards_of(interaction: FakeInteraction, count: int) -> list[FakeMessage]:
    """The boards (Components V2 messages) sent through the interaction, once ``count``."""

    def boards() -> list[FakeMessage]:
        return [m for m in interaction.sent if m.v2 and m.ephemeral]

    await until(lambda: len(boards()) >= count, f"{count} boards")
    return boards()


async def test_an_arena_in_a_channel_from_join_to_podium(bot: Bot, moving: MovingClock) -> None:
    channel = FakeChannel()
    carla = await open_arena(bot, channel, minutes=5, starts_in=1, title="Tea time")
    message = carla.original
    assert message is not None and not message.ephemeral
    assert message.content.startswith("🏟️ **Arena #")
    assert "Klondike · draw 1** · Tea time" in message.content
    assert "Starts <t:" in message.content and message.content.endswith("1 player")
    assert message.labels() == ["Join", "My place", "Pause", "Leave"]
    told = [m for m in carla.sent if m.ephemeral]
    assert told and told[0].content.startswith("You are in arena #")

    dieter = await press(bot.fake, DIETER, message, "Join", locale="de", channel=channel)
    assert dieter.sent[0].ephemeral and dieter.sent[0].content.startswith("Du bist in Arena #")
    await until(lambda: message.content.endswith("2 players"), "two players on the message")

    moving.offset += MINUTE_MS  # the arena starts: both are paired into one race
    [carla_board] = await boards_of(carla, 1)
    [dieter_board] = await boards_of(dieter, 1)
    assert "⚔️ Arena #" in carla_board.content and "with Carla, Dieter" in carla_board.content
    assert "Rennen #" in dieter_board.content  # in the player's own language
    assert "Stock 24" in carla_board.content and "Talon 24" in dieter_board.content
    await until(lambda: "Running, ends <t:" in message.content, "the arena running")

    # Both give up: the race ends and counts; the standings on the message follow.
    for user in (CARLA, DIETER):
        move = FakeInteraction(bot.fake, user, channel=channel)
        await SolitaireCog.move.callback(bot.cog, move, move="d")  # type: ignore[arg-type]
        resign = FakeInteraction(bot.fake, user, channel=channel)
        await SolitaireCog.resign.callback(bot.cog, resign)  # type: ignore[arg-type]
    await until(lambda: "1 point · 1 race" in message.content, "the race scored on the message")
    await until(lambda: any(m.content.startswith("Race #") for m in carla.sent), "scored line")
    scored = [m.content for m in carla.sent if m.content.startswith("Race #")]
    assert scored and "of 2" in scored[0] and "your score" in scored[0]
    # Paired again at once: a second board each.
    await boards_of(carla, 2)

    place = await press(bot.fake, DIETER, message, "My place", locale="de", channel=channel)
    mine = place.sent[-1].content
    assert mine.startswith("Dein Platz in Arena #") and "**" in mine and "Dieter" in mine
    stranger = await press(bot.fake, FakeUser(803, "Ed"), message, "My place", channel=channel)
    assert stranger.sent[-1].content == "You have not joined this arena: press Join."

    # Time runs out: the last race ends by its time limit, is scored, and the podium is
    # posted where everyone sees it; the message keeps only My place.
    edits = bot.desk.edits
    moving.offset += 5 * MINUTE_MS
    await until(lambda: "The arena is over." in message.content, "the arena over")
    assert message.labels() == ["My place"]
    await until(
        lambda: any(m.content.startswith("🏆 Arena #") for m in carla.sent), "the podium posted"
    )
    [podium] = [m for m in carla.sent if m.content.startswith("🏆 Arena #")]
    assert not podium.ephemeral and "🥇" in podium.content and "🥈" in podium.content
    assert bot.desk.edits == edits  # the arena's edits are not counted as a race's
    assert ("arena", int(message.content.split("#")[1].split(":")[0])) not in bot.desk.others


async def test_arena_edits_share_the_channels_budget_with_its_races(bot: Bot) -> None:
    """A burst of standings costs the arena message at most the desk's pace; the key
    rides in the coalescer with the channel's races."""
    channel = FakeChannel()
    carla = await open_arena(bot, channel, minutes=30, starts_in=60)
    message = carla.original
    assert message is not None
    [key] = [k for k in bot.desk.others if isinstance(k, tuple)]
    assert bot.desk.coalescer.channel_of(key) == channel.id
    before = message.edits
    arena = key[1]
    top = [line(1, "Carla", score) for score in range(40)]
    for number, shown in enumerate(top):
        bot.table.arenas.on_arena(
            p.ArenaEvent(
                arena=arena,
                time=number,
                event=p.ArenaStandingsEvent(players=1, top=[shown]),
            )
        )
    await until(lambda: "39 points" in message.content, "the latest standings shown")
    assert message.edits - before < 10  # forty events, a few edits


async def test_the_arena_needs_a_channel_and_is_not_offered_in_dms(bot: Bot) -> None:
    interaction = FakeInteraction(bot.fake, DIETER, guild_id=None)
    await SolitaireCog.arena.callback(  # type: ignore[arg-type]
        bot.cog, interaction, variant=KLONDIKE, minutes=5
    )
    [refusal] = interaction.sent
    assert refusal.ephemeral and "Server" in refusal.content
    assert "arena" not in [c.name for c in global_commands(bot.table).commands]
    assert "arena" in [c.name for c in server_commands(bot.table).commands]


async def test_a_restarted_bot_follows_an_arena_again_from_its_next_press(
    bot: Bot, restarted: Table
) -> None:
    channel = FakeChannel()
    carla = await open_arena(bot, channel, minutes=30, starts_in=60)
    message = carla.original
    assert message is not None
    arena = next(iter(bot.table.arenas.arenas))
    # The new bot knows nothing of the arena; Carla is in it already: Join says she is in
    # (no "already joined" refusal) and the new bot keeps the message current from now.
    assert restarted.arenas.arenas == {}
    fake = FakeBot(restarted)
    again = await press(fake, CARLA, message, "Join", channel=channel)
    assert again.sent[-1].content == f"You are in arena #{arena}. " + (
        "The board of each race you are paired into comes here (or with a mention in the"
        " channel); finish a race and the next one follows."
    )
    assert arena in restarted.arenas.arenas
    assert ("arena", arena) in restarted.boards.desk.others
    dieter = await press(fake, DIETER, message, "Join", locale="de", channel=channel)
    assert dieter.sent[-1].content.startswith("Du bist in Arena #")
