"""Saturation with 1, 2 and 3 hosts behind the real HAProxy, and what one PostgreSQL pays.

For each host count, the hosts (``python -m server`` on 127.0.0.2.., as in
tests/server/proxy_hosts.py; with fewer than three the proxy finds the others down)
share one throwaway database. ``--races`` races of ``--per-race`` players are made
through the proxy (so players land on any host, the race's owner or a mirror), then
every player draws from the stock as fast as its moves are acknowledged for
``--seconds``. Printed per host count:

- acknowledged moves per second, and the errors met (a false ``conflict`` would show);
- CPU per acknowledged move (user + system, in microseconds): each host, HAProxy, the
  load generator (this process), and the proxy's share of the servers' and proxy's;
- PostgreSQL: commits per second and per move in the bench's database
  (``pg_stat_database``), and WAL bytes per move (``pg_current_wal_lsn`` before and
  after, less the WAL written in as long an idle moment just before: the server is
  shared, so others' writes are subtracted as far as they are steady).

Everything shares this machine's cores, the load generator too: the figures are for
comparing the host counts within one run, not capacity of separate machines.

Usage: ``.venv/bin/python bench/saturation_hosts.py --races 6 --per-race 4 --seconds 8``
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import asyncpg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "server"))
sys.path.insert(0, str(ROOT / "bench"))

from arena_client import Client  # noqa: E402
from load import ProcessStats  # noqa: E402
from proxy_hosts import Cluster, hosts_behind_proxy  # noqa: E402

from server.store.database import (  # noqa: E402
    LOCAL_SERVER_URL,
    locate_postgres,
    temporary_database,
)

WAL = "select pg_current_wal_lsn()"
WAL_DIFF = "select pg_wal_lsn_diff($1, $2)::bigint"
COMMITS = "select xact_commit from pg_stat_database where datname = current_database()"


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def wal_bytes(conn: asyncpg.Connection, seconds: float) -> int:
    """WAL the whole PostgreSQL server writes in ``seconds`` (others' work included)."""
    before = await conn.fetchval(WAL)
    await asyncio.sleep(seconds)
    return int(await conn.fetchval(WAL_DIFF, await conn.fetchval(WAL), before))


async def players_in_races(cluster: Cluster, args: argparse.Namespace) -> list[tuple[Client, int]]:
    players: list[tuple[Client, int]] = []
    for number in range(args.races):
        creator, _ = await cluster.connect(name=f"C{number}")
        created = await creator.ok("create_race", variant="klondike", seed=8, countdown_s=0)
        race = created["race"]["race"]
        players.append((creator, created["race"]["your_game"]))
        for seat in range(args.per_race - 1):
            player, _ = await cluster.connect(name=f"P{number}x{seat}")
            joined = await player.ok("join_race", race=race)
            players.append((player, joined["race"]["your_game"]))
        await creator.ok("start_race", race=race)
    return players


# Each player draws as fast as its moves are acknowledged, far past a person's pace and
# the default 20 messages a second per connection: the bench measures the servers, not
# the rate limit (which refused 37,516 moves in one run at the defaults).
UNLIMITED = {"rate_per_second": "1000000", "rate_burst": "1000000"}


async def saturate(cluster: Cluster, database: str, args: argparse.Namespace) -> dict[str, object]:
    players = await players_in_races(cluster, args)
    conn = await asyncpg.connect(database)
    idle_wal = await wal_bytes(conn, args.seconds / 4) * 4  # others' steady writes
    acked = 0
    errors: collections.Counter[str] = collections.Counter()
    stop = False

    async def mover(client: Client, game: int) -> None:
        nonlocal acked
        while not stop:
            reply = await client.request("move", game=game, text="d")
            if reply["type"] == "error":
                errors[reply["code"]] += 1
            else:
                acked += 1
            client.events.clear()  # the race's events: not what is measured here

    tasks = [asyncio.create_task(mover(c, g)) for c, g in players]
    await asyncio.sleep(1.0)  # warm up
    pids = [h.process.pid for h in cluster.hosts] + [cluster.proxy_pid]
    stats = [ProcessStats(pid) for pid in pids]
    cpu_before = [stat.cpu_seconds() for stat in stats]
    own_before, acked_before = own_cpu(), acked
    wal_before, commits_before = await conn.fetchval(WAL), await conn.fetchval(COMMITS)
    started = time.perf_counter()
    await asyncio.sleep(args.seconds)
    elapsed = time.perf_counter() - started
    moves = acked - acked_before
    cpu = [stat.cpu_seconds() - before for stat, before in zip(stats, cpu_before, strict=True)]
    own = own_cpu() - own_before
    wal = int(await conn.fetchval(WAL_DIFF, await conn.fetchval(WAL), wal_before))
    commits = await conn.fetchval(COMMITS) - commits_before
    stop = True
    await asyncio.gather(*tasks)
    await conn.close()
    for client, _ in players:
        await client.close()
    per_move = [round(seconds / moves * 1e6) for seconds in cpu]
    return {
        "moves/s": round(moves / elapsed),
        "errors": dict(errors),
        "CPU us per move, hosts": per_move[:-1],
        "CPU us per move, HAProxy": per_move[-1],
        "CPU us per move, load generator": round(own / moves * 1e6),
        "proxy's share of servers + proxy CPU": f"{cpu[-1] / sum(cpu):.1%}",
        "commits/s (bench database)": round(commits / elapsed),
        "commits per move": round(commits / moves, 3),
        "WAL bytes per move (less idle)": round((wal - idle_wal * elapsed / args.seconds) / moves),
        "WAL bytes per move (raw)": round(wal / moves),
    }


async def run(args: argparse.Namespace) -> None:
    url = os.environ.get("SOLITAIRE_DATABASE_URL") or None
    with tempfile.TemporaryDirectory(prefix="solitaire-saturation-") as folder:
        location = await locate_postgres(url, LOCAL_SERVER_URL, Path(folder) / "pg")
        try:
            for count in args.hosts:
                logs = Path(folder) / f"hosts{count}"
                logs.mkdir()
                async with (
                    temporary_database(location.admin_url, f"solitaire_sat{count}") as database,
                    hosts_behind_proxy(database, logs, count=count, **UNLIMITED) as cluster,
                ):
                    await asyncio.sleep(1.5)  # the proxy finds absent hosts down
                    figures = await saturate(cluster, database, args)
                print(f"{count} host(s), {args.races * args.per_race} players:")
                for key, value in figures.items():
                    print(f"  {key}: {value}")
        finally:
            if location.embedded is not None:
                location.embedded.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--races", type=int, default=6)
    parser.add_argument("--per-race", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--hosts", type=int, nargs="+", default=[1, 2, 3])
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
