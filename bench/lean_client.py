"""A lean WebSocket client for the load generator: the least a client does per message.

bench/load.py measures one host's capacity with its simulated players on the same two
cores as the server. With websockets' client each player's move cost the generator
about 120 µs of CPU (its send, its reply and the four progress events a racer of eight
receives each second, each frame parsed into objects and queued), CPU the server's
processes then could not have. Real players bring their own machines, so the generator
should take as little of the host as it can: this client does the same protocol work
(the HTTP upgrade checked, every frame masked with a fresh key as RFC 6455 5.3 asks,
pings answered, the close handshake) on an ``asyncio.Protocol``, and drops the race
events nobody counts as they come, before they are decoded.

It speaks only what the race server sends: whole text frames, control frames, and
fragmented messages assembled; no extensions are offered.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import struct
from collections import deque
from urllib.parse import urlsplit

try:
    from websockets.speedups import apply_mask  # compiled, in websockets' wheels
except ImportError:  # pragma: no cover - a build of websockets without its C part
    from websockets.utils import apply_mask

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455 1.3
EVENT = b'{"type":"event"'  # how every race event begins (server/protocol/wire.py)
TEXT, CLOSE, PING, PONG = 0x1, 0x8, 0x9, 0xA


class Closed(Exception):
    """The connection is over: no more messages will come."""


class LeanWebSocket(asyncio.Protocol):
    """One client connection. ``drop_events``: race events are thrown away unread."""

    def __init__(self, host: str, path: str) -> None:
        self.drop_events = True
        self._request = (host, path)
        self._transport: asyncio.Transport | None = None
        self._buffer = b""
        self._open = False
        self._opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._messages: deque[bytes] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._fragments: list[bytes] | None = None
        self._closed = False
        self._key = base64.b64encode(os.urandom(16))

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Ask for the upgrade (RFC 6455 4.1)."""
        self._transport = transport  # type: ignore[assignment]  # uvloop's is its own class
        host, path = self._request
        self._transport.write(
            f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {self._key.decode()}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )

    def data_received(self, data: bytes) -> None:
        buffer = self._buffer + data if self._buffer else data
        if not self._open:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                self._buffer = buffer
                return
            self._accept(buffer[:end])
            buffer = buffer[end + 4 :]
            if self._opened.done():
                return  # refused
        at, size = 0, len(buffer)
        while size - at >= 2:
            first, length, head = buffer[at], buffer[at + 1] & 0x7F, 2
            if length == 126:
                if size - at < 4:
                    break
                length, head = struct.unpack_from("!H", buffer, at + 2)[0], 4
            elif length == 127:
                if size - at < 10:
                    break
                length, head = struct.unpack_from("!Q", buffer, at + 2)[0], 10
            end = at + head + length
            if end > size:
                break
            self._frame(first, buffer[at + head : end])
            at = end
        self._buffer = buffer[at:]

    def _accept(self, head: bytes) -> None:
        """Check the server's answer to the upgrade (status 101, the key's accept)."""
        lines = head.decode("latin-1").split("\r\n")
        accept = base64.b64encode(hashlib.sha1(self._key + GUID).digest()).decode()
        fields = dict(
            (name.strip().lower(), value.strip())
            for name, _, value in (line.partition(":") for line in lines[1:])
        )
        if lines[0].split(" ")[1:2] != ["101"] or fields.get("sec-websocket-accept") != accept:
            self._opened.set_exception(ConnectionError(f"upgrade refused: {lines[0]}"))
            assert self._transport is not None
            self._transport.close()
            return
        self._open = True
        self._opened.set_result(None)

    def _frame(self, first: int, payload: bytes) -> None:
        opcode, fin = first & 0x0F, first & 0x80
        if opcode >= CLOSE:
            if opcode == PING:
                self._write(PONG, payload)
            elif opcode == CLOSE and not self._closed:
                self._write(CLOSE, payload[:2])
                self._lost()
            return
        if opcode != 0:  # the first frame of a message
            if fin:
                self._message(payload)
                return
            self._fragments = [payload]
        elif self._fragments is not None:
            self._fragments.append(payload)
            if fin:
                self._message(b"".join(self._fragments))
                self._fragments = None

    def _message(self, payload: bytes) -> None:
        if self.drop_events and payload.startswith(EVENT):
            return
        self._messages.append(payload)
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def _write(self, opcode: int, payload: bytes) -> None:
        """Write one whole frame, masked with a fresh key (RFC 6455 5.3)."""
        if self._transport is None or self._transport.is_closing():
            return
        mask, length = os.urandom(4), len(payload)
        if length < 126:
            head = bytes((0x80 | opcode, 0x80 | length))
        elif length < 65536:
            head = struct.pack("!BBH", 0x80 | opcode, 0xFE, length)
        else:
            head = struct.pack("!BBQ", 0x80 | opcode, 0xFF, length)
        self._transport.write(head + mask + apply_mask(payload, mask))

    def _lost(self) -> None:
        self._closed = True
        if self._transport is not None:
            self._transport.close()
        if not self._opened.done():
            self._opened.set_exception(ConnectionError("connection lost during the upgrade"))
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        self._lost()

    async def send(self, message: bytes | str) -> None:
        """Send one text message."""
        if self._closed:
            raise Closed
        self._write(TEXT, message.encode() if isinstance(message, str) else message)

    async def recv(self) -> bytes:
        """The next message kept (its UTF-8 bytes)."""
        while not self._messages:
            if self._closed:
                raise Closed
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._messages.popleft()

    async def close(self) -> None:
        """Start the close handshake and drop the connection (the server needs no wait)."""
        if not self._closed:
            self._write(CLOSE, struct.pack("!H", 1000))
            self._lost()


async def connect(url: str, local_addr: tuple[str, int] | None = None) -> LeanWebSocket:
    """A client connected to ``url`` (ws://host:port/path) with the upgrade done."""
    parts = urlsplit(url)
    loop = asyncio.get_running_loop()
    _, client = await loop.create_connection(
        lambda: LeanWebSocket(parts.netloc, parts.path or "/"),
        parts.hostname or "127.0.0.1",
        parts.port or 80,
        local_addr=local_addr,
    )
    await client._opened
    return client
