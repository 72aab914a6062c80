"""Fuzzing benchmark: 100,000 generated and hostile frames against a live server.

Runs a real server subprocess (``python -m server``, JSON logs) on a throwaway
PostgreSQL database and sends it the frames of tests/server/fuzzing.py (messages
drawn from docs/protocol.schema.json, the same with one field made hostile, raw
bytes, type confusion, deep nesting, numbers past 64 bits, NULs and odd Unicode) on a
few connections, one frame at a time each, waiting for every answer.

Prints the frames sent by kind, the answers by type, the errors by code, the closes by
code, the server's resident memory (after start, after the first tenth of the frames,
at the end) and the log lines that are no JSON; exits 1 when a frame went unanswered,
an answer was ``internal``, a connection closed with 1011 or with a code the protocol
does not document, or the log holds a line that is no JSON object.

Usage: ``.venv/bin/python bench/fuzz.py --messages 100000``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "server"))

from fuzzing import DOCUMENTED_CLOSES, SERVICE_TOKEN, Fuzzer, Score  # noqa: E402
from server_process import free_port, server_process, wait_healthy  # noqa: E402

from server.store.database import LOCAL_SERVER_URL, locate_postgres, temporary_database  # noqa: E402


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def merged(first: Score, second: Score) -> Score:
    total = Score()
    for part in (first, second):
        total.sent += part.sent
        total.answered += part.answered
        total.kinds.update(part.kinds)
        total.replies.update(part.replies)
        total.errors.update(part.errors)
        total.closes.update(part.closes)
        total.unanswered.extend(part.unanswered)
        total.internal.extend(part.internal)
    return total


async def run(args: argparse.Namespace) -> int:
    url = os.environ.get("SOLITAIRE_DATABASE_URL") or None
    with tempfile.TemporaryDirectory(prefix="solitaire-fuzz-") as folder:
        location = await locate_postgres(url, LOCAL_SERVER_URL, Path(folder) / "pg")
        try:
            async with temporary_database(location.admin_url, "solitaire_fuzz") as database:
                return await fuzz(args, database, Path(folder) / "server.log")
        finally:
            if location.embedded is not None:
                location.embedded.stop()


async def fuzz(args: argparse.Namespace, database: str, log: Path) -> int:
    port = free_port()
    server = server_process(
        database,
        port,
        log,
        "--rate-burst",
        "100000",
        rate_per_second="100000",
        service_tokens=SERVICE_TOKEN,
        race_winnable_seconds="0.2",
        solver_help_seconds="0.2",
    )
    with server as process:
        await wait_healthy(port)
        rss_start = rss_mib(process.pid)
        started = time.perf_counter()
        warm_up = args.messages // 10
        first = await Fuzzer(port, args.seed, args.connections).run(warm_up)
        rss_warm = rss_mib(process.pid)
        rest = await Fuzzer(port, args.seed + 1, args.connections).run(args.messages - warm_up)
        seconds = time.perf_counter() - started
        rss_end = rss_mib(process.pid)
        alive = process.poll() is None
    score = merged(first, rest)
    lines = log.read_text(errors="replace").splitlines()
    not_json = [line for line in lines if not _json_object(line)]

    print(f"frames sent: {score.sent:,} in {seconds:.0f} s ({score.sent / seconds:,.0f}/s)")
    print(f"  by kind: {dict(score.kinds.most_common())}")
    print(f"answered: {score.answered:,}; by type: {dict(score.replies.most_common())}")
    print(f"errors by code: {dict(score.errors.most_common())}")
    print(f"closes by code: {dict(sorted(score.closes.items()))}")
    print(f"unanswered: {len(score.unanswered)}; internal: {len(score.internal)}")
    print(
        f"server RSS: {rss_start:.1f} MiB after start, {rss_warm:.1f} MiB after "
        f"{warm_up:,} frames, {rss_end:.1f} MiB after {score.sent:,}"
    )
    print(f"log lines: {len(lines):,}, not JSON: {len(not_json)}; server still up: {alive}")
    for line in (score.unanswered + score.internal + not_json)[:10]:
        print("  ", line[:200])
    failed = (
        score.unanswered
        or score.internal
        or not_json
        or not alive
        or not set(score.closes) <= DOCUMENTED_CLOSES
    )
    return 1 if failed else 0


def _json_object(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=100_000, help="frames to send")
    parser.add_argument("--connections", type=int, default=4, help="connections at once")
    parser.add_argument("--seed", type=int, default=1, help="seed of the frames")
    sys.exit(asyncio.run(run(parser.parse_args())))


if __name__ == "__main__":
    main()
