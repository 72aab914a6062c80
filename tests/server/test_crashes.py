"""What a killed or interrupted server leaves behind: no process, no traceback, no stuck
PostgreSQL; and a port that is taken is one line.

Every test runs ``solitaire serve`` as a real process and looks at the real process table
(/proc): a process counts as left behind while it runs (not a zombie) with the start time
it had when the server was alive, so a recycled process id is never mistaken for one.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from server_process import ROOT, free_port, open_client, wait_healthy

from server.store.database import HANDLE_LIST, forget_dead_users

SOLITAIRE = Path(sys.executable).with_name("solitaire")


@dataclass(frozen=True)
class Process:
    pid: int
    parent: int
    group: int
    started: int  # clock ticks after boot: with the id, names one process for good
    state: str
    command: str


def process_table() -> dict[int, Process]:
    """Every process of the machine, read from /proc."""
    table = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:  # ended while we looked
            continue
        fields = stat.rsplit(")", 1)[1].split()
        pid = int(entry.name)
        parent, group, started = int(fields[1]), int(fields[2]), int(fields[19])
        table[pid] = Process(pid, parent, group, started, fields[0], command)
    return table


def family(pid: int) -> list[Process]:
    """The processes whose chain of parents leads to ``pid``, and ``pid`` itself."""
    table = process_table()
    members = [table[pid]]
    for member in members:
        members.extend(p for p in table.values() if p.parent == member.pid)
    return members


def still_running(processes: list[Process]) -> list[Process]:
    table = process_table()
    return [
        p
        for p in processes
        if p.pid in table and table[p.pid].started == p.started and table[p.pid].state != "Z"
    ]


def group_left(group: int) -> list[Process]:
    """The processes of process group ``group`` still running."""
    return [p for p in process_table().values() if p.group == group and p.state != "Z"]


async def wait_all_gone(processes: list[Process], seconds: float = 30.0) -> None:
    for _ in range(int(seconds / 0.1)):
        if not still_running(processes):
            return
        await asyncio.sleep(0.1)
    left = [(p.pid, p.command[:100]) for p in still_running(processes)]
    raise AssertionError(f"left behind: {left}")


def serve_env(database_url: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "SOLITAIRE_DATABASE_URL"}
    env |= {
        "SOLITAIRE_LOG_JSON": "1",
        "SOLITAIRE_DAILY_PREPARE_AHEAD": "0",
        "SOLITAIRE_RACE_WINNABLE_SECONDS": "0.5",  # a deal search: the solver pool starts
        "SOLITAIRE_SHUTDOWN_TIMEOUT": "3",
    }
    if database_url is not None:
        env["SOLITAIRE_DATABASE_URL"] = database_url
    return env


@contextmanager
def solitaire_serve(
    database_url: str | None, port: int, log: Path, *options: str
) -> Iterator[subprocess.Popen[bytes]]:
    """``solitaire serve`` in a session of its own (as a terminal's foreground job is)."""
    with log.open("ab") as sink:
        process = subprocess.Popen(
            [str(SOLITAIRE), "serve", "--port", str(port), *options],
            cwd=ROOT,
            env=serve_env(database_url),
            stdout=sink,
            stderr=sink,
            start_new_session=True,
        )
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()


async def deal_a_race_on_every_process(port: int, processes: int) -> None:
    """A race the server deals on each server process, so each has its solver worker."""
    for index in range(processes):
        client = await open_client(port, f"/?process={index}", name="Ann")
        await client.ok("create_race", variant="klondike")
        await client.close()


def assert_json_lines(log: Path) -> None:
    for line in log.read_text().splitlines():
        assert isinstance(json.loads(line), dict), line


@pytest.mark.parametrize("processes", [1, 2])
async def test_a_killed_server_leaves_no_process_behind(
    database_url: str, tmp_path: Path, processes: int
) -> None:
    port = free_port()
    log = tmp_path / "server.log"
    options = ("--processes", str(processes)) if processes > 1 else ()
    with solitaire_serve(database_url, port, log, *options) as server:
        await wait_healthy(port)
        await deal_a_race_on_every_process(port, processes)
        ours = family(server.pid)
        commands = [p.command for p in ours]
        # What was once left behind: solver workers (one per server process, spawned by
        # multiprocessing like the server workers of --processes) and the resource tracker.
        server_workers = processes if processes > 1 else 0
        spawned = [c for c in commands if "spawn_main" in c]
        assert len(spawned) == server_workers + processes, commands
        assert any("resource_tracker" in c for c in commands), commands
        server.kill()
        server.wait()
        await wait_all_gone(ours)
    # Nor any word that is no JSON: the resource tracker cleans up quietly.
    assert_json_lines(log)


@pytest.mark.parametrize("processes", [1, 2])
async def test_ctrl_c_stops_every_process_without_a_traceback(
    database_url: str, tmp_path: Path, processes: int
) -> None:
    port = free_port()
    log = tmp_path / "server.log"
    options = ("--processes", str(processes)) if processes > 1 else ()
    with solitaire_serve(database_url, port, log, *options) as server:
        await wait_healthy(port)
        await deal_a_race_on_every_process(port, processes)
        ours = family(server.pid)
        os.killpg(server.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        assert await asyncio.to_thread(server.wait, 60) == 0
        await wait_all_gone(ours)
    assert "Traceback" not in log.read_text()
    assert_json_lines(log)
    assert json.loads(log.read_text().splitlines()[-1])["event"] == "stopped"


@pytest.mark.parametrize("started", [1, 2])
async def test_ctrl_c_while_server_workers_start_prints_no_traceback(
    database_url: str, tmp_path: Path, started: int
) -> None:
    # A worker imports for a second or so before its own handling is set up.
    log = tmp_path / "server.log"
    with solitaire_serve(database_url, free_port(), log, "--processes", "2") as server:
        await wait_spawned(server.pid, started)
        os.killpg(server.pid, signal.SIGINT)
        assert await asyncio.to_thread(server.wait, 60) == 0
    await wait_all_gone(group_left(server.pid))
    assert "Traceback" not in log.read_text(), log.read_text()
    assert_json_lines(log)


async def wait_spawned(pid: int, count: int) -> None:
    """Until ``count`` processes below ``pid`` were spawned by multiprocessing."""
    for _ in range(1200):
        if sum("spawn_main" in p.command for p in family(pid)) >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"not {count} spawned processes below {pid}")


async def test_ctrl_c_while_a_solver_worker_starts_prints_no_traceback(
    database_url: str, tmp_path: Path
) -> None:
    port = free_port()
    log = tmp_path / "server.log"
    with solitaire_serve(database_url, port, log) as server:
        await wait_healthy(port)
        client = await open_client(port, name="Ann")
        await client.send_raw(json.dumps({"type": "create_race", "variant": "klondike"}))
        await wait_spawned(server.pid, 1)  # the solver pool's worker
        os.killpg(server.pid, signal.SIGINT)
        assert await asyncio.to_thread(server.wait, 60) == 0
        await client.close()
    await wait_all_gone(group_left(server.pid))
    assert "Traceback" not in log.read_text(), log.read_text()
    assert_json_lines(log)


@pytest.mark.parametrize("processes", [1, 2])
async def test_a_taken_port_is_one_line(database_url: str, processes: int) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        options = ("--processes", str(processes)) if processes > 1 else ()
        result = await asyncio.to_thread(
            subprocess.run,
            [str(SOLITAIRE), "serve", "--port", str(port), *options],
            env=serve_env(database_url),
            capture_output=True,
            timeout=120,
        )
    assert result.returncode == 1
    assert result.stderr.decode() == (
        f"solitaire serve: cannot listen on 127.0.0.1:{port}: the address is already in use\n"
    )


def test_dead_users_are_struck_off_an_embedded_postgres_list(tmp_path: Path) -> None:
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()  # reaped: its id names no process now
    (tmp_path / HANDLE_LIST).write_text(json.dumps([ended.pid, os.getpid()]))
    assert forget_dead_users(tmp_path) == [ended.pid]
    assert json.loads((tmp_path / HANDLE_LIST).read_text()) == [os.getpid()]
    assert forget_dead_users(tmp_path) == []


async def wait_serving(port: int, log: Path) -> None:
    """Until the server says it serves: a first start runs initdb, which takes a while."""
    for _ in range(1200):
        if any(json.loads(line)["event"] == "serving" for line in log.read_text().splitlines()):
            await wait_healthy(port)
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"the server did not come up: {log.read_text()}")


def postmaster(data_dir: Path) -> int:
    """The running embedded PostgreSQL's process id (first line of postmaster.pid)."""
    return int((data_dir / "postmaster.pid").read_text().split()[0])


async def test_the_embedded_postgres_stops_cleanly_after_a_killed_server(
    tmp_path: Path, embedded_data_dir: Path
) -> None:
    data_dir = embedded_data_dir
    port = free_port()
    log = tmp_path / "server.log"
    options = ("--data-dir", str(data_dir))
    with solitaire_serve(None, port, log, *options) as killed:
        await wait_serving(port, log)
        postgres = process_table()[postmaster(data_dir)]
        ours = family(killed.pid)
        killed.kill()
        killed.wait()
        await wait_all_gone(ours)
    # PostgreSQL runs on (it is shared by whoever uses the folder), with the dead id listed.
    assert still_running([postgres]) == [postgres]
    assert killed.pid in json.loads((data_dir / HANDLE_LIST).read_text())

    # The next server picks it up, and its clean stop is the last one: PostgreSQL stops.
    log.write_text("")
    with solitaire_serve(None, port, log, *options) as server:
        await wait_serving(port, log)
        assert postmaster(data_dir) == postgres.pid
        server.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(server.wait, 60) == 0
    await wait_all_gone([postgres])
    assert json.loads((data_dir / HANDLE_LIST).read_text()) == []
    assert_json_lines(log)
