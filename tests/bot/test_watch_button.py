"""Watching from Discord: the Watch button on a race message, through the fakes (Discord's
rules enforced) against a real server: the standings and any racer's board with no
face-down card, the menu and Refresh, a ranked race held back by the server's delay,
and a racer's press refused in their language."""

from __future__ import annotations

from bot_setup import ServerClock
from discord.app_commands import Choice
from discord_fakes import Bot, FakeChannel, FakeInteraction, FakeMessage, FakeUser, press, until

import engine
from bot.cog import SolitaireCog
from bot.watch_buttons import WatchButton, watched_race_view
from server.services.wiring import now_ms

CARLA = FakeUser(901, "Carla")
DIETER = FakeUser(902, "Dieter", locale="de")
ED = FakeUser(903, "Ed")
KLONDIKE = Choice(name="Klondike", value="klondike")
KEYCAPS = tuple(f"{n}\ufe0f\u20e3" for n in range(1, 8))


def columns(board: str) -> list[str]:
    """The column lines of a board's text (they start with the column's keycap)."""
    return [line for line in board.splitlines() if line.startswith(KEYCAPS)]


async def running_race(bot: Bot, channel: FakeChannel, deal: str | None) -> FakeMessage:
    """Carla opens a race (on ``deal``, or a secret one: ranked), Dieter joins, it starts."""
    opening = FakeInteraction(bot.fake, CARLA, channel=channel)
    await SolitaireCog.race.callback(  # type: ignore[arg-type]
        bot.cog, opening, variant=KLONDIKE, countdown=0, deal=deal, thread=False
    )
    [message] = opening.sent
    assert "Watch" not in message.labels()  # nothing to watch in the lobby
    await press(bot.fake, DIETER, message, "Join", channel=channel)
    await press(bot.fake, CARLA, message, "Start", channel=channel)
    await until(lambda: "Watch" in message.labels(), "Watch offered once the race runs")
    return message


async def play(bot: Bot, user: FakeUser, move: str) -> None:
    typed = FakeInteraction(bot.fake, user)
    await SolitaireCog.move.callback(bot.cog, typed, move=move)  # type: ignore[arg-type]


async def test_a_watcher_sees_the_standings_and_any_racers_board(bot: Bot) -> None:
    channel = FakeChannel()
    message = await running_race(bot, channel, engine.deal_code(5))
    own = await press(bot.fake, CARLA, message, "Open my board", channel=channel)
    carla_board = own.sent[-1].content

    watched = await press(bot.fake, ED, message, "Watch", channel=channel)
    [shown] = watched.sent
    assert shown.ephemeral and shown.v2
    lines = shown.content.splitlines()
    assert lines[0].startswith("**👀 Race #") and lines[0].endswith(": Klondike · draw 1**")
    assert lines[1] == "Live: no delay (an unranked race)."
    assert "Carla: 0 cards home, 0 moves" in lines and "Dieter: 0 cards home, 0 moves" in lines
    first = next(line for line in lines if line.startswith("Board of"))
    assert first in ("Board of **Carla**:", "Board of **Dieter**:")
    # The board is the racer's own, face-down cards as the racer sees them: only counted.
    assert columns(shown.content) == columns(carla_board)
    assert "🟦" in shown.content and "Stock 24" in shown.content
    assert shown.labels() == ["Refresh"]

    chosen = await press(bot.fake, ED, shown, "select", value=str(_player(shown, "Dieter")))
    assert chosen.calls[0] == "defer" and chosen.sent == []  # the same message, edited
    assert "Board of **Dieter**:" in shown.content

    await play(bot, DIETER, "d")
    await press(bot.fake, ED, shown, "Refresh")
    assert "Dieter: 0 cards home, 1 move" in shown.content
    assert "Stock 23" in shown.content and "Moves 1" in shown.content


def _player(message: FakeMessage, name: str) -> int:
    """The racer id the watcher's menu gives ``name``."""
    menu = message.find("select").item
    return int(next(o.value for o in menu.options if o.label == name))


async def test_a_racer_is_told_why_in_their_language(bot: Bot) -> None:
    channel = FakeChannel()
    message = await running_race(bot, channel, engine.deal_code(6))
    carla = await press(bot.fake, CARLA, message, "Watch", channel=channel)
    [refusal] = carla.sent
    assert refusal.ephemeral and refusal.content.startswith("⚠️ ")
    dieter = await press(bot.fake, DIETER, message, "Watch", locale="de", channel=channel)
    [german] = dieter.sent
    assert german.ephemeral and german.content.startswith("⚠️ ")
    assert german.content != refusal.content  # the same refusal, in each one's language
    # Their own board is where it was: the race goes on for them.
    opened = await press(bot.fake, CARLA, message, "Open my board", channel=channel)
    assert "Stock 24" in opened.sent[-1].content


async def test_a_ranked_race_is_shown_late(bot: Bot, server_clock: ServerClock) -> None:
    channel = FakeChannel()
    message = await running_race(bot, channel, None)
    await press(bot.fake, CARLA, message, "Open my board", channel=channel)
    await play(bot, CARLA, "d")
    watched = await press(bot.fake, ED, message, "Watch", channel=channel)
    [shown] = watched.sent
    assert "Shown 15 s late, so that nobody can coach a racer." in shown.content
    # Fifteen seconds ago the race had no racer yet: the watcher sees none.
    assert shown.content.endswith("Nobody races yet.") and "Board of" not in shown.content
    # Twenty seconds on, the watcher sees the race as it was five seconds after now:
    # Carla's draw is shown.
    server_clock.now = now_ms() + 20_000
    await press(bot.fake, ED, shown, "Refresh")
    assert "Carla: 0 cards home, 1 move" in shown.content
    assert "Dieter: 0 cards home, 0 moves" in shown.content and "Board of **" in shown.content


def test_watch_is_offered_only_while_there_is_something_to_see() -> None:
    for state, offered in (("lobby", False), ("countdown", True), ("running", True)):
        ui = watched_race_view(4, state, "de", "manual")
        assert ui is not None
        watch = [c for c in ui.children if isinstance(c, WatchButton)]
        assert bool(watch) is offered, state
        if watch:
            assert watch[0].item.label == "Zuschauen" and watch[0].item.custom_id == "sa|w|4|0|new"
    finished = watched_race_view(4, "finished", "en", "manual")
    assert finished is not None
    assert not [c for c in finished.children if isinstance(c, WatchButton)]
