"""A real server as its own process (``python -m server``), and clients for it."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from arena_client import OPEN_ADDRESS_LIMITS, Client
from websockets.asyncio.client import connect as ws_connect

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def server_process(
    database_url: str, port: int, log: Path, *options: str, **settings: str
) -> Iterator[subprocess.Popen[bytes]]:
    """``python -m server`` (with ``options``, and ``settings`` as SOLITAIRE_<NAME>
    variables) as its own process, logging JSON to ``log``."""
    env = {
        **os.environ,
        "SOLITAIRE_DATABASE_URL": database_url,
        "SOLITAIRE_LOG_JSON": "1",
        "SOLITAIRE_DAILY_PREPARE_AHEAD": "0",
        # Every test client is on one loopback address (arena_client.OPEN_ADDRESS_LIMITS).
        **{f"SOLITAIRE_{name.upper()}": str(value) for name, value in OPEN_ADDRESS_LIMITS.items()},
        **{f"SOLITAIRE_{name.upper()}": value for name, value in settings.items()},
    }
    with log.open("ab") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "server", "--port", str(port), "--rate-burst", "1000", *options],
            cwd=ROOT,
            env=env,
            stdout=sink,
            stderr=sink,
        )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()


async def wait_healthy(port: int) -> None:
    def probe() -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as answer:
                return bool(answer.status == 200)
        except OSError:
            return False

    # Up to about 30 s: a loaded machine (CI's two cores under four test workers) can
    # take several seconds to start a server process.
    for _ in range(600):
        if await asyncio.to_thread(probe):
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the server did not come up")


async def open_client(port: int, path: str = "/", **hello: Any) -> Client:
    """A client on ``path`` that has said hello (with ``hello``'s fields)."""
    client = Client(await ws_connect(f"ws://127.0.0.1:{port}{path}", max_queue=None))
    client.welcome = await client.ok("hello", **hello)
    return client
