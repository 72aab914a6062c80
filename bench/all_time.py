"""All-time board latency: a page, a guild's page and "around me" of a variant.

Fills a throwaway database the way bench/leaderboard.py does (one million daily
attempts over 90 days and six variants by 100,000 players by default), gives every
player a rating in each variant's default pool (``--provisional`` of them still
provisional), then times the server's own read path (``Leaderboard.all_time``) one
request after another and prints p50/p99 per query: first computing the board afresh
for every request, then from the board kept in memory (as within its ttl), followed by
the EXPLAIN (ANALYZE, BUFFERS) plan of a variant's rating board. The database is
dropped at the end.

    .venv/bin/python bench/all_time.py [--admin-url URL] [--entries N] [--players N]
        [--days N] [--samples N] [--provisional SHARE]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from pathlib import Path

# Run as a script, this file's folder comes first on the path; the repository root goes there.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import asyncpg  # noqa: E402

from bench.leaderboard import LAST_DAY, explain, fill, timed  # noqa: E402
from server import protocol as p  # noqa: E402
from server.core.calendar import day_start_ms  # noqa: E402
from server.core.identity import Principal  # noqa: E402
from server.core.ratings import PROVISIONAL_SIGMA, pool_options  # noqa: E402
from server.services.daily import DAILY_VARIANTS  # noqa: E402
from server.services.leaderboard import Leaderboard  # noqa: E402
from server.store.boards import RATING_BOARD_SQL, BoardStore  # noqa: E402
from server.store.database import LOCAL_SERVER_URL, temporary_database  # noqa: E402
from server.store.migrations import migrate  # noqa: E402


async def measure(url: str, args: argparse.Namespace) -> None:
    rng = random.Random(7)
    async with asyncpg.create_pool(url, min_size=2, max_size=2) as pool:
        began = time.perf_counter()
        await fill(pool, args.entries, args.players, args.days)
        print(f"filled {args.entries:,} attempts in {time.perf_counter() - began:.1f} s")
        for name in DAILY_VARIANTS:
            await pool.execute(
                "insert into ratings (variant, options, player_id, mu, sigma, games, rated_at) "
                "select $1, $2, id, 10 + random() * 30, "
                "case when random() < $3 then 7.5 else 1 + random() * 5 end, 20, now() "
                "from players",
                name,
                pool_options(name, {}),
                args.provisional,
            )
        await pool.execute("analyze ratings")
        now = day_start_ms(LAST_DAY) + 12 * 3_600_000
        boards = Leaderboard(BoardStore(pool), lambda: now, 3_600_000)
        cached = boards.all_time_boards
        cached.ttl_ms = 0  # first every request computes its board afresh

        def asker() -> Principal:
            player = 1 + rng.randrange(args.players)
            return Principal(player, f"guest:bench{player}", f"Player {player}")

        def variant(i: int) -> str:
            return DAILY_VARIANTS[i % len(DAILY_VARIANTS)]

        async def page(i: int) -> object:
            message = p.AllTimeBoard(variant=variant(i), page=1 + rng.randrange(20))
            return await boards.all_time(asker(), message)

        async def guild_page(i: int) -> object:
            message = p.AllTimeBoard(variant=variant(i), guild_id=f"guild-{rng.randrange(500)}")
            return await boards.all_time(asker(), message)

        async def around(i: int) -> object:
            message = p.AllTimeBoard(variant=variant(i), around_me=True, span=5)
            return await boards.all_time(asker(), message)

        for name, query in (
            ("all-time page (global, pages 1-20)", page),
            ("all-time page (one guild)", guild_page),
            ('all-time "around me" (5 above and below)', around),
        ):
            await timed(5, query)  # warm the cache and the prepared statements
            p50, p99 = await timed(args.samples, query)
            print(f"{name:45s} p50 {p50:7.2f} ms   p99 {p99:7.2f} ms   ({args.samples} runs)")

        cached.ttl_ms = 3_600_000  # then from memory, as within the ttl
        for name, query in (
            ("all-time page (global, cached)", page),
            ('all-time "around me" (cached)', around),
        ):
            p50, p99 = await timed(args.samples, query)
            print(f"{name:45s} p50 {p50:7.2f} ms   p99 {p99:7.2f} ms   ({args.samples} runs)")

        options = pool_options("klondike", {})
        plan = await explain(pool, RATING_BOARD_SQL, "klondike", None, options, PROVISIONAL_SIGMA)
        print(f"\n-- a variant's rating board (global)\n{plan}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--admin-url", default=LOCAL_SERVER_URL)
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--samples", type=int, default=60)
    parser.add_argument("--provisional", type=float, default=0.3, help="share provisional")
    args = parser.parse_args()
    async with temporary_database(args.admin_url, prefix="solitaire_bench_all_time") as url:
        await migrate(url)
        await measure(url, args)


if __name__ == "__main__":
    asyncio.run(main())
