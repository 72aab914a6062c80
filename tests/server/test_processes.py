"""Several server processes behind one port: a race's players meet on its home process."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import urllib.request
from pathlib import Path

import pytest
from server_process import free_port, open_client, server_process, wait_healthy
from websockets.exceptions import ConnectionClosed

from server.core.place import Place
from server.transport.routing import chosen_process


def test_a_race_address_leads_to_the_race_home() -> None:
    assert chosen_process(b"GET /races/7 HTTP/1.1\r", 3, turn=0) == 1
    assert chosen_process(b"GET /races/9/ HTTP/1.1", 3, turn=2) == 0
    assert chosen_process(b"GET /races/8?x=1 HTTP/1.1", 2, turn=1) == 0


def test_a_process_can_be_asked_for_and_the_rest_take_turns() -> None:
    assert chosen_process(b"GET /metrics?process=2 HTTP/1.1", 3, turn=0) == 2
    assert chosen_process(b"GET /metrics?a=b&process=1 HTTP/1.1", 3, turn=0) == 1
    assert chosen_process(b"GET /metrics?process=5 HTTP/1.1", 3, turn=4) == 1  # no such one
    assert chosen_process(b"GET / HTTP/1.1", 3, turn=5) == 2
    assert chosen_process(b"GET /racesX/4 HTTP/1.1", 3, turn=0) == 0
    assert chosen_process(b"\x16\x03\x01 garbage", 3, turn=1) == 1


def test_a_place_owns_the_races_whose_ids_it_hands_out() -> None:
    second = Place(1, 2)
    assert second.owns(5) and not second.owns(6)
    assert Place().owns(6)


def metric(port: int, process: int, name: str) -> float:
    url = f"http://127.0.0.1:{port}/metrics?process={process}"
    with urllib.request.urlopen(url, timeout=5) as answer:
        for line in answer.read().decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
    raise AssertionError(f"no {name} in {url}")


def workers_of(pid: int) -> list[int]:
    """The worker processes the front started (not multiprocessing's helpers)."""
    kids = [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    return [k for k in kids if b"spawn_main" in Path(f"/proc/{k}/cmdline").read_bytes()]


async def test_a_race_is_played_on_the_process_that_created_it(
    database_url: str, tmp_path: Path
) -> None:
    port = free_port()
    with server_process(database_url, port, tmp_path / "server.log", "--processes", "2") as front:
        await wait_healthy(port)
        workers = workers_of(front.pid)
        assert len(workers) == 2
        races = {}
        for home, name in ((0, "Dee"), (1, "Ann")):
            creator = await open_client(port, f"/?process={home}", name=name)
            created = await creator.ok("create_race", variant="klondike", seed=8, countdown_s=0)
            races[home] = (creator, created["race"])
        # Each race's id says which process created it ...
        assert [race["race"] % 2 for _, race in races.values()] == [0, 1]

        ann, race = races[1]
        bob = await open_client(port, f"/races/{race['race']}", name="Bob")
        cy = await open_client(port, f"/races/{race['race']}", name="Cy")
        # ... and the players who open its address land on that one.
        assert await asyncio.to_thread(metric, port, 1, "solitaire_connections") == 3
        assert await asyncio.to_thread(metric, port, 0, "solitaire_connections") == 1

        games = {"Ann": race["your_game"]}
        for player, name in ((bob, "Bob"), (cy, "Cy")):
            games[name] = (await player.ok("join_race", race=race["race"]))["race"]["your_game"]
        await ann.ok("start_race", race=race["race"])
        await ann.ok("move", game=games["Ann"], text="d")
        await ann.ok("move", game=games["Ann"], text="d")
        await bob.ok("move", game=games["Bob"], text="d")
        seen = await cy.event(
            "progress",
            race["race"],
            lambda e: {s["name"]: s["moves"] for s in e["event"]["standings"]}.get("Ann") == 2,
        )
        assert seen["race"] == race["race"]
        await cy.ok("resign", game=games["Cy"])
        await bob.ok("resign", game=games["Bob"])
        await ann.ok("resign", game=games["Ann"])
        end = await bob.event("end", race["race"])
        ranking = [line["name"] for line in end["event"]["ranking"]]
        assert ranking == ["Cy", "Bob", "Ann"]  # no cards out: fewest moves first

        # A request that is no WebSocket handshake is answered by a worker, and the
        # others play on; one that is no HTTP at all is dropped.
        with socket.create_connection(("127.0.0.1", port)) as raw:
            raw.sendall(f"GET /races/{race['race']} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            raw.settimeout(5)
            assert raw.recv(100).startswith(b"HTTP/1.1 426")
        with socket.create_connection(("127.0.0.1", port)) as raw:
            raw.sendall(b"NONSENSE\r\n\r\n")
            raw.settimeout(5)
            assert raw.recv(100) == b""
        other, _ = races[0]
        await other.ok("get_race", race=race["race"])
        for client in (ann, bob, cy, other):
            await client.close()

        front.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(front.wait, 30) == 0
        for pid in workers:
            await wait_gone(pid)


async def test_a_handed_over_connection_gets_the_same_settings(
    database_url: str, tmp_path: Path
) -> None:
    # Compression and the frame limit hold for connections the front hands over too.
    port = free_port()
    log = tmp_path / "server.log"
    with server_process(database_url, port, log, "--processes", "2", compression="1"):
        await wait_healthy(port)
        for home in (0, 1):
            client = await open_client(port, f"/?process={home}", name="Ann")
            extensions = client.websocket.protocol.extensions
            assert [type(e).__name__ for e in extensions] == ["PerMessageDeflate"]
            await client.send_raw("x" * (17 * 1024))  # past the 16 KiB default
            with pytest.raises(ConnectionClosed) as closed:
                await client.receive()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


async def test_when_a_worker_dies_the_whole_server_stops(database_url: str, tmp_path: Path) -> None:
    port = free_port()
    with server_process(database_url, port, tmp_path / "server.log", "--processes", "2") as front:
        await wait_healthy(port)
        workers = workers_of(front.pid)
        assert len(workers) == 2
        os.kill(workers[0], signal.SIGKILL)
        assert await asyncio.to_thread(front.wait, 30) == 1
        for pid in workers:
            await wait_gone(pid)


async def wait_gone(pid: int) -> None:
    for _ in range(200):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"process {pid} is still running")
