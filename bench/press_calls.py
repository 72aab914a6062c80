"""Discord calls per board press, along the solver's wins of every variant.

Plays the solver's win of one fixed deal of each variant (tests/bot/board_sweep.py)
through the bot's own board buttons, pressed as discord.py dispatches them (the test
fakes, tests/bot/discord_fakes.py), against a real race server over a throwaway
database of the local PostgreSQL, and counts the calls each press makes to Discord
(defer, edit, first response...). Prints presses, moves, presses per move and Discord
calls per press for each variant, how many moves were picked in the board's menu of
other moves (one choice, counted as one press: one Discord call, though a phone takes a
touch to open the menu and one to choose), and the calls seen: once for a player with
the board's defaults (a tap on a pile plays its most useful move, bot/taps.py; a move
no tap plays is picked in the menu, else Choose, the pile and the target), and once
with the one-tap option (``/solitaire options one_tap:true``: a tap plays wherever the
server's one-tap rule puts it; another move is picked in the menu, else the player
taps, presses Undo, which selects the pile again, and taps the target). ``--budget``
is how long a press waits for the server before it defers (0: always defer first).

    .venv/bin/python bench/press_calls.py [--budget 2.0]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0:1] = [str(ROOT), str(ROOT / "tests" / "bot"), str(ROOT / "bench")]

import load  # noqa: E402  (bench/load.py: the benchmarks' PostgreSQL)
from board_sweep import WON_SEEDS, won_line  # noqa: E402
from discord_fakes import FakeBot, FakeInteraction, FakeUser  # noqa: E402
from press_line import play_line  # noqa: E402

import engine  # noqa: E402
from bot.client import ArenaClient  # noqa: E402
from bot.desk import RaceDesk  # noqa: E402
from bot.fair_use import Cooldown  # noqa: E402
from bot.presses import Prefs  # noqa: E402
from bot.table import Table  # noqa: E402
from server.ops.config import ServerConfig  # noqa: E402
from server.store.database import temporary_database  # noqa: E402
from server.transport.app import ArenaServer  # noqa: E402

TOKEN = "bench-press-calls"


async def run(admin_url: str, budget: float) -> None:
    async with temporary_database(admin_url, prefix="solitaire_bench_press") as url:
        config = ServerConfig(
            host="127.0.0.1", port=0, service_tokens=(TOKEN,), daily_prepare_ahead=False
        )
        async with ArenaServer(config, url) as arena:
            client = ArenaClient(arena.url, TOKEN)
            await client.start(timeout=10)
            # The figure is Discord's calls, not fair use: no user is slowed here.
            table = Table(client, RaceDesk(), cooldown=Cooldown(rate=1e9, burst=10**9))
            table.answer_budget = budget
            fake = FakeBot(table)
            print(
                f"{'variant':<11} {'moves':>6} {'presses':>8} {'press/move':>10}"
                f" {'calls/press':>11} {'menu':>5} {'choose':>6} {'one-tap presses':>15}"
                f" {'press/move':>10} {'calls/press':>11} {'menu':>5} {'undo':>5}"
            )
            total: Counter[str] = Counter()
            total_presses = 0
            for number, (variant, seeds) in enumerate(WON_SEEDS.items()):
                seed = seeds[0]
                line = won_line(variant, seed)
                row = f"{variant:<11} {len(line):>6}"
                for mode, one_tap in enumerate((False, True)):
                    user = FakeUser(5000 + 2 * number + mode, f"Bench {variant}")
                    table.prefs[user.id] = Prefs(one_tap=one_tap)
                    start = FakeInteraction(fake, user)
                    await table.practice(start, variant, engine.deal_code(seed))
                    [board] = start.sent
                    calls: Counter[str] = Counter()
                    ways: Counter[str] = Counter()
                    game = engine.new_game(variant, seed=seed) if one_tap else None
                    presses = await play_line(fake, user, board, line, calls, game, ways)
                    assert board.labels() == ["Share"], board.content  # won
                    made = calls.total()
                    row += f" {presses:>{15 if one_tap else 8}} {presses / len(line):>10.2f}"
                    row += f" {made / presses:>11.2f} {ways['menu']:>5}"
                    row += f" {ways['undo']:>5}" if one_tap else f" {ways['choose']:>6}"
                    total.update(calls)
                    total_presses += presses
                print(row)
            await client.close()
    print(f"all: {total_presses} presses, calls {dict(total)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=2.0, help="seconds before a defer")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    started = time.perf_counter()

    async def go() -> None:
        async with load.postgres() as admin_url:
            await run(admin_url, args.budget)

    asyncio.run(go())
    print(f"{time.perf_counter() - started:.1f}s")


if __name__ == "__main__":
    main()
