"""Boards that Discord would refuse, along solver-won games of every variant.

Draws every board a player can bring up at every position of the solver's wins of a
few fixed deals (tests/bot/board_sweep.py: each source tapped, each card of a column
chosen, each target that needs its card chosen, Resign confirmed, a lost game's
Jump back) and counts the boards that break one of Discord's message limits
(tests/bot/discord_rules.py), with the most common break; and the presses per move
the board needs to play those wins (a tap on the pile, or a choice in the menu of other
moves, else Choose, the source, the target and the card when several reach the
target; Draw or Deal one press).

    .venv/bin/python bench/board_rules.py [--stride 1]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

# Run as a script, this file's folder comes first on the path; the repository root
# and the bot's test helpers go there instead so they import.
ROOT = Path(__file__).resolve().parent.parent
sys.path[0:1] = [str(ROOT), str(ROOT / "tests" / "bot")]

from board_sweep import WON_SEEDS, board_table, presses_along, sweep  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stride", type=int, default=1, help="every n-th position")
    args = parser.parse_args()
    table = board_table()
    print(
        f"{'variant':<11} {'boards':>7} {'broken':>7} {'share':>7} "
        f"{'taps':>6} {'broken':>7} {'share':>7} {'wrong':>6} {'press/move':>10} {'s':>6}"
        "  most common"
    )
    for variant, seeds in WON_SEEDS.items():
        started = time.perf_counter()
        boards = broken = wrong = taps = broken_taps = presses = moves = 0
        kinds: Counter[str] = Counter()
        for seed in seeds:
            seen = sweep(variant, seed, stride=args.stride, table=table)
            boards += seen.boards
            broken += len(seen.broken)
            wrong += len(seen.wrong)
            taps += seen.taps
            pressed, played = presses_along(variant, seed, table)
            presses += pressed
            moves += played
            broken_taps += seen.broken_taps
            for _, _, breaks in seen.broken:
                kinds.update(b.split("'")[0].strip() for b in breaks)
        spent = time.perf_counter() - started
        common = kinds.most_common(1)[0][0] if kinds else "-"
        share = 100 * broken / max(boards, 1)
        tap_share = 100 * broken_taps / max(taps, 1)
        print(
            f"{variant:<11} {boards:>7} {broken:>7} {share:>6.1f}% {taps:>6} {broken_taps:>7} "
            f"{tap_share:>6.1f}% {wrong:>6} {presses / moves:>10.2f} {spent:>6.1f}  {common}"
        )


if __name__ == "__main__":
    main()
