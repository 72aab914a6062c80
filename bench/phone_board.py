"""Boards on a 360 px phone, as Discord lays them out: heights and wrapped lines.

Draws every variant's opening, the position of its solver-won line with the longest
column, and Spider 4-suit at the middle of its won line (a column selected), with the
bot's own board builder, lays each out as Discord's phone app would
(tests/bot/phone_board.py) in Debian's chromium, and prints: the message's height with
its buttons, the column lines that wrapped (of all column lines), whether the counters
kept to one line, and the rows of buttons that wrapped. ``--shots DIR`` also saves a
screenshot of each (docs/discord/ keeps them).

    .venv/bin/python bench/phone_board.py [--shots docs/discord]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0:1] = [str(ROOT), str(ROOT / "tests" / "bot")]

from board_sweep import APP_SUITS, board_table  # noqa: E402
from phone_board import PHONE_WIDTH, boards_to_show, measure, page_html  # noqa: E402
from playwright.async_api import async_playwright  # noqa: E402

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
        await browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shots", type=Path, help="save a screenshot of each board here")
    asyncio.run(run(parser.parse_args().shots))


if __name__ == "__main__":
    main()
