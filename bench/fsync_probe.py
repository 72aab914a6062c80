"""How long this machine's disk takes to flush a write: the floor under every commit.

A move is acknowledged only once its commit is on disk, so each acknowledgement waits
for at least one flush (``fdatasync`` of PostgreSQL's write-ahead log). This writes 8
KiB and flushes it, ``--rate`` times a second for ``--seconds``, in a file next to the
data (``--directory``), and prints the flush times: median, p99, the worst, and every
flush over ``--slow-ms``. A disk whose flushes sometimes take hundreds of
milliseconds puts those stalls into the latency tail of bench/load.py, whatever the
server does; run this beside it to tell the two apart.

Usage: ``.venv/bin/python bench/fsync_probe.py --directory /var/lib/postgresql``
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--directory", default=tempfile.gettempdir(), help="on the disk to test")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--rate", type=float, default=500.0, help="flushes a second (at most)")
    parser.add_argument("--slow-ms", type=float, default=20.0, help="list flushes over this")
    args = parser.parse_args()
    times: list[float] = []
    slow: list[tuple[float, float]] = []
    gap = 1.0 / args.rate
    with tempfile.NamedTemporaryFile(dir=args.directory, prefix="fsync-probe-") as probe:
        block = b"\0" * 8192
        started = time.perf_counter()
        while (now := time.perf_counter()) - started < args.seconds:
            os.pwrite(probe.fileno(), block, 0)
            os.fdatasync(probe.fileno())
            took = time.perf_counter() - now
            times.append(took)
            if took * 1000 > args.slow_ms:
                slow.append((now - started, took))
            time.sleep(max(0.0, gap - took))
    times.sort()
    print(f"disk flushes in {args.directory}: {len(times)} in {args.seconds:.0f} s")
    print(
        f"  flush ms            : p50 {times[len(times) // 2] * 1000:.2f}"
        f"  p99 {times[int(len(times) * 0.99)] * 1000:.2f}  max {times[-1] * 1000:.1f}"
    )
    listed = ", ".join(f"{ms * 1000:.0f} ms at {at:.1f} s" for at, ms in slow)
    print(f"  over {args.slow_ms:.0f} ms          : {len(slow)}" + (f" ({listed})" if slow else ""))


if __name__ == "__main__":
    main()
