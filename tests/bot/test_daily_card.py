"""The card a daily attempt's end posts for everyone: a picture and a spoiler-free line."""

from __future__ import annotations

import io

from board_sweep import won_line
from discord.app_commands import Choice
from discord_fakes import Bot, FakeInteraction, FakeMessage, FakeUser, press
from PIL import Image

import engine
from bot.cog import SolitaireCog
from bot.daily_card import DailyEnd, daily_grid, daily_png
from bot.render import card_text

KLONDIKE = Choice(name="Klondike", value="klondike")


def won_view() -> dict[str, object]:
    """The final view of the solver's win of Klondike deal 1, as the server sends it."""
    game = engine.new_game("klondike", seed=1)
    for move in won_line("klondike", 1):
        game.play(engine.Move.from_notation(move))
    view = game.view()
    view.update(status="won", started_at=1_000, finished_at=184_000)
    return view


def test_a_won_daily_card_names_the_day_the_result_and_the_place_and_no_card() -> None:
    end = DailyEnd("2026-12-04", won_view(), rank=3, players=17)
    line = daily_grid(end, "en")
    assert line.splitlines() == [
        "Solitaire Arena · daily Klondike · draw 1 2026-12-04 · won in 3:03, 176 moves",
        "🏆 place 3 of 17 today",
        "🟩" * 10,
    ]
    german = daily_grid(end, "de")
    assert "Tagesspiel" in german and "Platz 3 von 17 heute" in german
    picture = Image.open(io.BytesIO(daily_png(end, "en")))
    assert picture.format == "PNG" and picture.size == (800, 360)
    # the four Kings on their foundations are drawn: light card faces on the dark card
    assert picture.getpixel((40, 200)) == (242, 243, 245)


def test_a_resigned_attempt_shows_its_cards_home_and_a_practice_one_says_so() -> None:
    game = engine.new_game("klondike", seed=1)
    view = game.view()
    view["status"] = "resigned"
    end = DailyEnd("2026-12-04", view, ranked=False)
    line = daily_grid(end, "en")
    assert "0 cards home, 0 moves" in line and "practice, not ranked" in line
    assert line.endswith("⬛" * 10)
    # Nothing of the deal: no card of the columns is named.
    for column in view["tableau"]:  # type: ignore[attr-defined]
        for card in column["up"]:
            assert card_text(card) not in line


async def test_the_end_of_a_daily_posts_its_card_for_everyone_once(bot: Bot) -> None:
    user = FakeUser(8_801, "Wiebke")
    for _ in range(5):  # a busy machine may need more than one try to prove the deal
        started = FakeInteraction(bot.fake, user)
        await SolitaireCog.daily.callback(bot.cog, started, variant=KLONDIKE)  # type: ignore[arg-type]
        [board] = started.sent
        if "still being prepared" not in board.content:
            break
    assert board.ephemeral
    await press(bot.fake, user, board, "Draw")
    assert cards_posted(board) == []  # still playing: no card
    await press(bot.fake, user, board, "Resign")
    done = await press(bot.fake, user, board, "Resign")  # confirmed
    [card] = [m for m in done.sent if m.files]
    assert not card.ephemeral  # for everyone in the channel
    lines = card.content.splitlines()
    assert lines[0].startswith("Solitaire Arena · daily Klondike · draw 1 ")
    assert "0 cards home, 1 move" in lines[0]
    assert lines[2] == "⬛" * 10
    [(name, data)] = card.files
    assert name.startswith("daily-") and Image.open(io.BytesIO(data)).format == "PNG"
    # Pressing on the ended board again posts no second card.
    again = await press(bot.fake, user, board, "Undo") if "Undo" in board.labels() else None
    assert again is None or not [m for m in again.sent if m.files]


def cards_posted(board: FakeMessage) -> list[FakeMessage]:
    """The public messages with a picture in the board's channel."""
    return [m for m in board.channel.messages.values() if m.files] if board.channel else []
