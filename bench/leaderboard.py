"""Leaderboard latency: a daily page, "around me" and a player's all-time figures.

Fills a throwaway database with one million daily attempts over 90 days and six
variants by 100,000 players (about 1,850 attempts per variant and day, one in
twenty a practice attempt, four in five from one of 500 guilds), then times the
server's own read paths (server.services.leaderboard.Leaderboard) one after another and
prints p50/p99 per query, followed by the EXPLAIN (ANALYZE, BUFFERS) plans of the
statements behind them. The database is dropped at the end.

    .venv/bin/python bench/leaderboard.py [--admin-url URL] [--entries N] [--players N]
        [--days N] [--samples N]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from datetime import date, timedelta
from pathlib import Path

# Run as a script, this file's folder comes first on the path; the repository root goes there.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import asyncpg  # noqa: E402

from server.core.calendar import day_start_ms  # noqa: E402
from server.services.daily import DAILY_VARIANTS  # noqa: E402
from server.services.leaderboard import Leaderboard  # noqa: E402
from server.store.boards import STATS_SQL, WON_DAYS_SQL, BoardStore  # noqa: E402
from server.store.daily_board import Board  # noqa: E402
from server.store.database import LOCAL_SERVER_URL, temporary_database  # noqa: E402
from server.store.migrations import migrate  # noqa: E402

LAST_DAY = date(2026, 6, 30)

FILL = """
create temporary table plan as
select g as id,
       $3::date - (g % $4) as day,
       (array['klondike','klondike-3','spider-1','spider-2','spider-4','yukon'])
           [1 + (g / $4) % 6] as variant,
       -- every player the same number of attempts, and one per variant and day: g and
       -- g + 540k (same variant and day) land on different players, as 7919 is prime
       -- to the player count
       1 + (g::bigint * 7919) % $2 as player_id,
       g % 20 <> 0 as ranked,
       random() as luck,
       random() as speed
from generate_series(0, $1 - 1) g
"""

ENTRIES = """
insert into entries (id, player_id, variant, seed, guild_id, status, created_at, finished_at)
select id + 1, player_id, variant, id, guild_id,
       case when luck < 0.7 then 'won' else 'resigned' end,
       day + time '09:00', day + time '09:30'
from (select *, case when player_id % 5 <> 0 then 'guild-' || (player_id % 500) end as guild_id
      from plan) p
"""

ATTEMPTS = """
insert into daily_entries (entry_id, variant, day, player_id, guild_id, ranked, started_at,
    deadline, status, time_ms, moves, undos, hints, finished_at)
select e.id, p.variant, p.day, p.player_id, e.guild_id, p.ranked, e.created_at,
       e.created_at + interval '1 hour',
       case when p.luck < 0.7 then 'won' when p.luck < 0.95 then 'resigned'
            else 'out_of_time' end,
       case when p.luck < 0.95 then (30000 + p.speed * 3570000)::bigint else 3600000 end,
       80 + (p.speed * 200)::int, (p.luck * 10)::int % 4, (p.speed * 10)::int % 3,
       e.finished_at
from plan p join entries e on e.id = p.id + 1
"""


async def fill(pool: asyncpg.Pool, entries: int, players: int, days: int) -> None:
    """Players, deals and attempts, generated in the database."""
    async with pool.acquire() as conn:
        await conn.execute("select setseed(0.42)")
        await conn.execute(
            "insert into players (principal, display_name) "
            "select 'guest:bench' || g, 'Player ' || g from generate_series(1, $1) g",
            players,
        )
        await conn.execute(
            "insert into daily_deals (variant, day, seed, candidate, salt, commitment, verdict, "
            "solution_length, solver_nodes, solver_ms) "
            "select v, $1::date - d, d, 0, 's', 'c', 'winnable', 100, 1, 1 "
            "from unnest($2::text[]) v, generate_series(0, $3 - 1) d",
            LAST_DAY,
            list(DAILY_VARIANTS),
            days,
        )
        await conn.execute(FILL, entries, players, LAST_DAY, days)
        await conn.execute(ENTRIES)
        await conn.execute("select setval('entries_id_seq', (select max(id) from entries))")
        await conn.execute(ATTEMPTS)
        await conn.execute("vacuum analyze")


def percentiles(samples: list[float]) -> tuple[float, float]:
    """p50 and p99 of ``samples`` (seconds) in milliseconds."""
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return cuts[49] * 1000, cuts[98] * 1000


async def timed(count: int, query: Callable[[int], Awaitable[object]]) -> tuple[float, float]:
    """Run ``query(i)`` ``count`` times one after another; p50/p99 in ms."""
    samples = []
    for i in range(count):
        began = time.perf_counter()
        await query(i)
        samples.append(time.perf_counter() - began)
    return percentiles(samples)


async def explain(pool: asyncpg.Pool, sql: str, *args: object) -> str:
    rows = await pool.fetch("explain (analyze, buffers, costs off) " + sql, *args)
    return "\n".join(r[0] for r in rows)


async def measure(url: str, args: argparse.Namespace) -> None:
    rng = random.Random(7)
    async with asyncpg.create_pool(url, min_size=2, max_size=2) as pool:
        began = time.perf_counter()
        await fill(pool, args.entries, args.players, args.days)
        print(f"filled {args.entries:,} attempts in {time.perf_counter() - began:.1f} s")
        now = day_start_ms(LAST_DAY) + 12 * 3_600_000
        boards = Leaderboard(BoardStore(pool), lambda: now, 3_600_000)
        ranked = await pool.fetch(
            "select player_id, variant, day, guild_id from daily_entries where ranked "
            "order by random() limit $1",
            args.samples,
        )

        def board(i: int, guild: bool = False) -> Board:
            variant = DAILY_VARIANTS[i % len(DAILY_VARIANTS)]
            day = LAST_DAY - timedelta(days=rng.randrange(args.days))
            return Board(variant, day, f"guild-{rng.randrange(500)}" if guild else None)

        async def page(i: int) -> object:
            return await boards.page(board(i), 1 + rng.randrange(20), 20)

        async def guild_page(i: int) -> object:
            return await boards.page(board(i, guild=True), 1, 20)

        async def around(i: int) -> object:
            row = ranked[i % len(ranked)]
            return await boards.around(Board(row["variant"], row["day"]), row["player_id"], 5)

        async def stats(i: int) -> object:
            return await boards.stats(ranked[i % len(ranked)]["player_id"])

        for name, query in (
            ("daily page (global, pages 1-20 of 20)", page),
            ("daily page (one guild)", guild_page),
            ('"around me" (global, 5 above and below)', around),
            ("all-time stats of a player", stats),
        ):
            await timed(50, query)  # warm the cache and the prepared statements
            p50, p99 = await timed(args.samples, query)
            print(f"{name:45s} p50 {p50:6.2f} ms   p99 {p99:6.2f} ms   ({args.samples} runs)")

        row = next(r for r in ranked if r["guild_id"] is not None)
        middle = Board(row["variant"], row["day"])
        guild = Board(row["variant"], row["day"], row["guild_id"])
        plans = {
            "page 10": (middle.page_sql(), (*middle.args, 20, 180)),
            "guild page 1": (guild.page_sql(), (*guild.args, 20, 0)),
            "around me (5 above and below)": (
                middle.around_sql(),
                (*middle.args, row["player_id"], 5),
            ),
            "all-time figures": (STATS_SQL, (row["player_id"], None)),
            "streak days": (WON_DAYS_SQL, (row["player_id"], None)),
        }
        for title, (sql, params) in plans.items():
            print(f"\n-- {title}\n{await explain(pool, sql, *params)}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--admin-url", default=LOCAL_SERVER_URL)
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--samples", type=int, default=2000)
    args = parser.parse_args()
    async with temporary_database(args.admin_url, prefix="solitaire_bench_leaderboard") as url:
        await migrate(url)
        await measure(url, args)


if __name__ == "__main__":
    asyncio.run(main())
