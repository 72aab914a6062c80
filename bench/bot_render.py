"""Boards in colour: how many keep the application's card emoji, over solver-won games.

At every position of the solver's wins of the fixed deals of every variant
(tests/bot/board_sweep.py), with the application's card emoji installed, draws the board
as the bot does (``Table.board``: a Components V2 message) and counts the boards that
fell back to the colourless text suit marks, the longest board's text (Discord allows
4,000 units) and the most components (40). "Before" draws the same positions as a plain
message (``render_board``, 2,000 units, which gave way to the text marks on a board too
long or too wide for a phone with them). Prints one line per variant.

    .venv/bin/python bench/bot_render.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

# Run as a script, this file's folder comes first on the path; the repository root
# and the bot's test helpers go there instead so they import.
ROOT = Path(__file__).resolve().parent.parent
sys.path[0:1] = [str(ROOT), str(ROOT / "tests" / "bot")]

from board_sweep import APP_SUITS, GAME, WON_SEEDS, board_table, views_along  # noqa: E402
from discord_rules import layout_text, utf16_units  # noqa: E402

from bot.layout import component_count  # noqa: E402
from bot.render import TEXT_SUITS, render_board  # noqa: E402


def colourless(shown: str) -> bool:
    """Whether a board shows its suits as the text marks."""
    return any(mark in shown for mark in TEXT_SUITS.values())


def main() -> None:
    table = board_table()
    table.suits = APP_SUITS
    print(
        f"{'variant':<11} {'positions':>9} {'colourless before':>18} {'after':>6}"
        f" {'longest text':>13} {'most components':>16} {'ms/board':>9}"
    )
    for variant, seeds in WON_SEEDS.items():
        positions = before = after = longest = most = 0
        spent = 0.0
        for seed in seeds:
            for view in views_along(variant, seed):
                reply = {"view": view}
                for sel in ["", *(s for s in view["legal_moves"] if s != "d")][:2]:
                    started = time.perf_counter()
                    ui = table.board(GAME, reply, "de", sel=sel)
                    spent += time.perf_counter() - started
                    shown = layout_text(ui)
                    positions += 1
                    after += colourless(shown)
                    longest = max(longest, utf16_units(shown))
                    most = max(most, component_count(ui))
                    plain = render_board(view, "de", selected=sel or None, suits=APP_SUITS)
                    before += colourless(plain)
        share = 100 * before / max(positions, 1)
        print(
            f"{variant:<11} {positions:>9,} {before:>9,} ({share:4.1f}%) {after:>6}"
            f" {longest:>13,} {most:>16} {1000 * spent / max(positions, 1):>9.2f}"
        )


if __name__ == "__main__":
    main()
