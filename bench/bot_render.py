"""Board rendering: time per board and the longest board seen, per variant, one core.

Plays random legal games (a new deal when one ends or reaches 300 moves) and renders
every position as the bot does: the emoji text (``render_board``) for the player's
language with a source selected. Prints boards per second and the longest board
in Discord characters (the limit is 2,000).

    .venv/bin/python bench/bot_render.py [--seconds 2]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

# Run as a script, this file's folder comes first on the path; the repository root
# goes there instead so the packages import.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import engine  # noqa: E402
from bot.render import CONTENT_LIMIT, discord_length, render_board  # noqa: E402


def run(variant: str, seconds: float) -> tuple[float, int, int]:
    """Boards rendered per second, the longest board, and positions seen."""
    rng = random.Random(11)
    seed = 0
    game = engine.new_game(variant, seed=seed)
    rendered = longest = 0
    spent = 0.0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        moves = list(game.legal_moves)
        if not moves or len(game.actions) >= 300:
            seed += 1
            game = engine.new_game(variant, seed=seed)
            continue
        view = game.view()
        selected = rng.choice(list(view["legal_moves"]))
        start = time.perf_counter()
        board = render_board(view, "de", selected=selected, elapsed_ms=61_000)
        spent += time.perf_counter() - start
        rendered += 1
        longest = max(longest, discord_length(board))
        game.play(rng.choice(moves))
    return rendered / spent if spent else 0.0, longest, rendered


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per variant")
    args = parser.parse_args()
    header = f"{'variant':<12} {'boards/s':>10} {'longest':>8} {'positions':>10}"
    print(f"{header}  (limit {CONTENT_LIMIT})")
    for variant in sorted(engine.VARIANTS):
        rate, longest, seen = run(variant, args.seconds)
        print(f"{variant:<12} {rate:>10,.0f} {longest:>8} {seen:>10}")


if __name__ == "__main__":
    main()
