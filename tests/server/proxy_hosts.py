"""Three server hosts on their own loopback addresses behind the real HAProxy.

Each host is ``python -m server`` on 127.0.0.2, 127.0.0.3 and 127.0.0.4 (Linux routes
all of 127.0.0.0/8 to the loopback device), told it is host 0, 1 or 2 of three; HAProxy
runs the repository's own deploy/haproxy.cfg, its addresses given in the environment.
Everything shares the test's PostgreSQL database and one NATS (the test's, else one
started for the hosts).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import urllib.request
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, ExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena_client import Client
from server_process import ROOT, free_port, server_process
from websockets.asyncio.client import connect as ws_connect

from server.transport.broker import nats_server

CONFIG = ROOT / "deploy" / "haproxy.cfg"
HOSTS = 3


def haproxy() -> str:
    """The haproxy binary (Debian's package; `make test` installs it when missing)."""
    found = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/sbin")
    if found is None:
        raise AssertionError("haproxy is not installed: apt-get install haproxy (make test does)")
    return found


@dataclass
class Host:
    """One server host: its index, address and process."""

    index: int
    address: str
    port: int
    process: subprocess.Popen[bytes]

    @property
    def name(self) -> str:
        """Its name in deploy/haproxy.cfg."""
        return f"host{self.index}"


@dataclass
class Cluster:
    """The hosts and the proxy in front of them."""

    hosts: list[Host]
    proxy_port: int
    proxy_pid: int = 0  # HAProxy's process (bench/saturation_hosts.py reads its CPU)

    async def connect(self, path: str = "/", **hello: Any) -> tuple[Client, str]:
        """A client through the proxy that has said hello; and the host it landed on."""
        websocket = await ws_connect(f"ws://127.0.0.1:{self.proxy_port}{path}", max_queue=None)
        client = Client(websocket)
        client.welcome = await client.ok("hello", **hello)
        assert websocket.response is not None
        return client, websocket.response.headers["X-Solitaire-Host"]

    async def connect_only(self, path: str = "/") -> Client:
        """A client through the proxy that has said nothing yet (no database needed)."""
        websocket = await ws_connect(f"ws://127.0.0.1:{self.proxy_port}{path}", max_queue=None)
        return Client(websocket)

    def kill(self, name: str) -> None:
        """SIGKILL a host, as a machine that dies."""
        host = next(h for h in self.hosts if h.name == name)
        host.process.send_signal(signal.SIGKILL)
        host.process.wait()


def healthy(address: str, port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://{address}:{port}/healthz", timeout=1) as answer:
            return bool(answer.status == 200)
    except OSError:
        return False


async def wait_until_healthy(address: str, port: int) -> None:
    for _ in range(300):
        if await asyncio.to_thread(healthy, address, port):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{address}:{port} did not come up")


@asynccontextmanager
async def hosts_behind_proxy(
    database_url: str,
    logs: Path,
    lease_seconds: float = 2.0,
    count: int = HOSTS,
    nats_url: str | None = None,
    **settings: str,
) -> AsyncIterator[Cluster]:
    """Start three hosts (``settings`` as SOLITAIRE_<NAME> variables), then HAProxy
    once they answer; stop them all afterwards. With ``count`` below three, only that
    many hosts run (told there are that many) and the proxy finds the others down."""
    async with AsyncExitStack() as nats:
        if nats_url is None:
            nats_url = await nats.enter_async_context(nats_server())
        async with _hosts(database_url, logs, lease_seconds, count, nats_url, settings) as cluster:
            yield cluster


@asynccontextmanager
async def _hosts(
    database_url: str,
    logs: Path,
    lease_seconds: float,
    count: int,
    nats_url: str,
    settings: dict[str, str],
) -> AsyncIterator[Cluster]:
    with ExitStack() as stack:
        hosts = []
        for index in range(count):
            address, port = f"127.0.0.{index + 2}", free_port()
            process = stack.enter_context(
                server_process(
                    database_url,
                    port,
                    logs / f"host{index}.log",
                    "--host",
                    address,
                    hosts=str(count),
                    host_index=str(index),
                    lease_seconds=str(lease_seconds),
                    nats_url=nats_url,
                    **settings,
                )
            )
            hosts.append(Host(index, address, port, process))
        for host in hosts:
            await wait_until_healthy(host.address, host.port)
        proxy_port = free_port()
        env = {
            **os.environ,
            "SOLITAIRE_PROXY_BIND": f"127.0.0.1:{proxy_port}",
            **{f"SOLITAIRE_HOST{i}": f"127.0.0.{i + 2}:{free_port()}" for i in range(HOSTS)},
            **{f"SOLITAIRE_HOST{h.index}": f"{h.address}:{h.port}" for h in hosts},
        }
        with (logs / "haproxy.log").open("ab") as sink:
            proxy = subprocess.Popen(
                [haproxy(), "-db", "-f", str(CONFIG)], env=env, stdout=sink, stderr=sink
            )
        stack.callback(_stop, proxy)
        await wait_until_healthy("127.0.0.1", proxy_port)
        yield Cluster(hosts, proxy_port, proxy.pid)


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
