"""A client that stops reading: a bounded queue, then dropped with 4001, then it resumes.

The slow client here is a real socket that says hello, joins a race and then never
reads again (a small receive buffer, so the kernel holds little for it). Its racing
partner goes on moving; every progress event is queued for the slow client too, until
its queue passes ``send_queue_bytes`` and the server closes it with 4001. Nobody else
notices: every move is acknowledged, and a third player watching sees every event.
The slow client then reads what was queued, finds the close code, reconnects and
``resume``s from the last event it saw, missing none.
"""

from __future__ import annotations

import asyncio
import json
import socket
import urllib.request
from typing import Any

import pytest
from arena_client import OPEN_ADDRESS_LIMITS
from websockets.client import ClientProtocol
from websockets.frames import Close, Frame, Opcode
from websockets.uri import parse_uri

from server.ops.config import ServerConfig
from server.transport.app import ArenaServer

QUEUE_BYTES = 64 * 1024


@pytest.fixture
def server_config() -> ServerConfig:
    return ServerConfig(
        port=0,
        rate_per_second=1000,
        rate_burst=1000,
        progress_interval_ms=0,  # one progress event per move
        send_queue_bytes=QUEUE_BYTES,
        resume_window=100_000,
        daily_prepare_ahead=False,
        **OPEN_ADDRESS_LIMITS,
    )


class RawClient:
    """A WebSocket client on a plain socket, driven by hand: it reads only when told."""

    def __init__(self, sock: socket.socket, protocol: ClientProtocol) -> None:
        self.sock = sock
        self.protocol = protocol
        self.loop = asyncio.get_running_loop()
        self.frames: list[dict[str, Any]] = []
        self.received_bytes = 0
        self.close: Close | None = None

    @classmethod
    async def open(cls, url: str) -> RawClient:
        sock = socket.socket()
        # A small receive buffer: what the client does not read stays with the server.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        uri = parse_uri(url)
        await asyncio.get_running_loop().sock_connect(sock, (uri.host, uri.port))
        client = cls(sock, ClientProtocol(uri))
        client.protocol.send_request(client.protocol.connect())
        await client.flush()
        while client.protocol.handshake_exc is None and client.protocol.state.name == "CONNECTING":
            await client.read_some()
        assert client.protocol.state.name == "OPEN"
        return client

    async def flush(self) -> None:
        for data in self.protocol.data_to_send():
            if data:
                await self.loop.sock_sendall(self.sock, data)

    async def read_some(self) -> bool:
        """Read once from the socket; False at its end."""
        data = await asyncio.wait_for(self.loop.sock_recv(self.sock, 65536), 30)
        self.received_bytes += len(data)
        if not data:
            self.protocol.receive_eof()
        else:
            self.protocol.receive_data(data)
        for event in self.protocol.events_received():
            if isinstance(event, Frame) and event.opcode is Opcode.TEXT:
                self.frames.append(json.loads(event.data))
            elif isinstance(event, Frame) and event.opcode is Opcode.CLOSE:
                self.close = Close.parse(event.data)
        await self.flush()  # answers pings and the close
        return bool(data)

    async def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.protocol.send_text(json.dumps({"type": kind, "id": kind, **fields}).encode())
        await self.flush()
        while True:
            for frame in self.frames:
                if frame.get("id") == kind:
                    return frame
            assert await self.read_some(), "closed before the reply"

    def events(self) -> list[dict[str, Any]]:
        return [f for f in self.frames if f["type"] == "event"]


def send_queue_drops(server: ArenaServer) -> int:
    with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/metrics", timeout=10) as answer:
        for line in answer.read().decode().splitlines():
            if line.startswith('solitaire_errors_total{code="send_queue_full"}'):
                return int(float(line.rsplit(" ", 1)[1]))
    return 0


@pytest.mark.timeout(180)
async def test_a_client_that_stops_reading_is_dropped_alone_and_resumes(
    server: ArenaServer, connect: Any
) -> None:
    ann = await connect(name="Ann")
    cara = await connect(name="Cara")  # watches the race and reads everything
    created = await ann.ok("create_race", variant="klondike", seed=8, countdown_s=0)
    race, game = created["race"]["race"], created["race"]["your_game"]
    await cara.ok("get_race", race=race)

    slow = await RawClient.open(server.url)
    welcome = await slow.request("hello", name="Slow")
    joined = await slow.request("join_race", race=race)
    assert joined["type"] == "race"
    read_before = slow.received_bytes
    await ann.ok("start_race", race=race)

    # From here on the slow client reads nothing; Ann plays on.
    moves = 0
    while await asyncio.to_thread(send_queue_drops, server) == 0:
        for _ in range(50):
            await ann.ok("move", game=game, text="d")
            moves += 1
        assert moves < 5000, "the slow client was never dropped"
    # After the drop Ann's moves are still acknowledged, and Cara sees every event.
    for _ in range(20):
        await ann.ok("move", game=game, text="d")
        moves += 1
    last = await cara.event(
        "progress", race, lambda e: e["event"]["standings"][0]["moves"] == moves
    )
    seen = [e["seq"] for e in cara.events]
    assert seen == list(range(seen[0], last["seq"] + 1))
    assert ann.websocket.close_code is None and cara.websocket.close_code is None

    # The slow client reads at last: what was queued for it (a bounded share of the
    # events), then the close frame that says why.
    while slow.close is None:
        assert await slow.read_some(), "closed without a close frame"
    assert slow.close.code == 4001
    assert slow.close.reason == "send queue full"
    got = [e["seq"] for e in slow.events()]
    assert got == list(range(got[0], got[-1] + 1))  # in order, nothing skipped
    assert got[-1] < last["seq"]  # it missed the rest
    # Bounded: our queue, the kernel's send buffer (twice ``send_queue_bytes``) and the
    # client's small receive buffer; left to itself the kernel alone holds megabytes.
    assert slow.received_bytes - read_before < 4 * QUEUE_BYTES
    slow.sock.close()

    # It comes back with its token and catches up on exactly what it missed.
    back = await connect(token=welcome["token"])
    caught_up = await back.ok("resume", race=race, last_seq=got[-1])
    assert caught_up["type"] == "events"
    missed = [e["seq"] for e in caught_up["events"]]
    assert missed == list(range(got[-1] + 1, last["seq"] + 1))
    await ann.ok("move", game=game, text="d")
    live = await back.event("progress", race)
    assert live["seq"] == last["seq"] + 1
