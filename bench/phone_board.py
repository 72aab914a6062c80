"""Boards on a 360 px phone, as Discord lays them out: heights and wrapped lines.

Draws every variant's opening, the position of its solver-won line with the longest
column, and Spider 4-suit at the middle of its won line (a column selected), with the
bot's own board builder, lays each out as Discord's phone app would
(tests/bot/phone_board.py) in Debian's chromium, and prints: the message's height with
its buttons, the column lines that wrapped (of all column lines), whether the counters
kept to one line, and the rows of buttons that wrapped. ``--shots DIR`` also saves a
screenshot of each (docs/discord/ keeps them), and of a race's channel messages: its
lobby, its running standings, its thread (the start's mention, the result card) and
the result card's picture; and a daily's card (``daily-card.png``).

    .venv/bin/python bench/phone_board.py [--shots docs/discord]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0:1] = [str(ROOT), str(ROOT / "tests" / "bot")]

from board_sweep import APP_SUITS, board_table, won_line  # noqa: E402
from phone_board import PHONE_WIDTH, boards_to_show, measure, page_html  # noqa: E402
from playwright.async_api import async_playwright  # noqa: E402

import engine  # noqa: E402
from bot.daily_card import DailyEnd, daily_grid, daily_png  # noqa: E402
from bot.i18n import text  # noqa: E402
from bot.race_buttons import race_view, start_view  # noqa: E402
from bot.races import RaceState, render_race, result_line  # noqa: E402
from bot.result_card import result_png, share_grid  # noqa: E402
from server import protocol as p  # noqa: E402

NAMES = ("Alice", "Bernd", "Cleo", "Dara")


def race_state(state: str) -> RaceState:
    """A four-player Klondike race in ``state`` (lobby, running, finished), as the desk
    holds it."""
    settings = p.RaceSettings(
        variant="klondike",
        options={},
        max_players=8,
        start="manual",
        countdown_s=10,
        time_limit_s=600,
        allow_undo=True,
        allow_hints=False,
    )
    homes = (52, 31, 17, 9) if state != "lobby" else (0, 0, 0, 0)
    players = [
        p.Standing(player=n + 1, name=name, foundation=homes[n], moves=40 + 20 * n)
        for n, name in enumerate(NAMES)
    ]
    ranking = None
    if state == "finished":
        ranking = [
            p.Ranked(
                player=n + 1,
                name=name,
                foundation=homes[n],
                moves=143 - 20 * n,
                finished=n == 0,
                time_ms=192_000 if n == 0 else None,
                resigned=n == 3,
                rank=n + 1,
            )
            for n, name in enumerate(NAMES)
        ]
    info = p.RaceInfo(
        race=12,
        state=state,
        seq=9,
        creator=1,
        settings=settings,
        commitment="3f9a" * 16,
        players=players,
        starts_at=1_796_060_861_150 if state != "lobby" else None,
        ends_at=1_796_061_461_150 if state != "lobby" else None,
        ranking=ranking,
        seed="43" if state == "finished" else None,
        salt="ab" if state == "finished" else None,
        order=[1, 2, 3, 4] if state == "running" else None,
    )
    return RaceState(info)


async def race_shots(page: object, shots: Path) -> None:
    """Screenshots of a race's channel messages, on the dark theme."""
    pages = []
    for state in ("lobby", "running", "finished"):
        race = race_state(state)
        ui = race_view(race.race, race.state, "en", race.info.settings.start)
        pages.append((f"race-{state}", render_race(race, "en"), ui, None))
    mention = text("en", "race_started_ping", race=12, mentions="@Alice @Bernd @Cleo @Dara")
    pages.append(("race-thread-start", mention, start_view(12, "en"), None))
    finished = race_state("finished")
    card = f"{result_line(finished, 'en')}\n{share_grid(finished, 'en')}"
    pages.append(("race-thread-result", card, None, result_png(finished, "en")))
    pages.append(("daily-card", daily_grid(won_daily(), "en"), None, daily_png(won_daily(), "en")))
    for name, content, ui, image in pages:
        html = page_html(content, ui, ephemeral=False, image=image)
        await page.set_content(html)  # type: ignore[attr-defined]
        await page.locator("#message").screenshot(path=str(shots / f"{name}.png"))  # type: ignore[attr-defined]
    (shots / "result-card.png").write_bytes(result_png(finished, "en"))


def won_daily() -> DailyEnd:
    """A won daily to show: the solver's win of Klondike deal 1, third of 17 that day."""
    game = engine.new_game("klondike", seed=1)
    for move in won_line("klondike", 1):
        game.play(engine.Move.from_notation(move))
    view = {**game.view(), "status": "won", "started_at": 0, "finished_at": 183_000}
    return DailyEnd("2026-12-04", view, rank=3, players=17)


CHROMIUM = "/usr/bin/chromium"


async def run(shots: Path | None) -> None:
    shown = boards_to_show(board_table(), APP_SUITS)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        page = await browser.new_page(viewport={"width": PHONE_WIDTH, "height": 900})
        print(
            f"{'board':<28} {'height':>6} {'fits':>5} {'wrapped columns':>16}"
            f" {'counters':>9} {'wrapped rows':>13}"
        )
        for board in shown:
            layout = await measure(page, board.content, board.view)
            counters = "wrap" if layout.counters_wrapped else "1 line"
            print(
                f"{board.name:<28} {layout.height:>6} {layout.fits_screen!s:>5}"
                f" {layout.wrapped_columns:>7} of {layout.columns:<6}"
                f" {counters:>9} {layout.wrapped_rows:>5} of {layout.button_rows}"
            )
            if shots is not None:
                shots.mkdir(parents=True, exist_ok=True)
                await page.set_content(page_html(board.content, board.view))
                await page.locator("#message").screenshot(path=str(shots / f"{board.name}.png"))
        if shots is not None:
            await race_shots(page, shots)
        await browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shots", type=Path, help="save a screenshot of each board here")
    asyncio.run(run(parser.parse_args().shots))


if __name__ == "__main__":
    main()
