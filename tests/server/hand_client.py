"""A WebSocket client driven by hand: the test decides how its bytes are cut and sent,
and when (if ever) the pongs and closing frames its protocol owes are sent."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

from websockets.client import ClientProtocol
from websockets.frames import Close, Frame, Opcode
from websockets.uri import parse_uri


class HandClient:
    """A WebSocket client whose bytes the test cuts and sends as it likes."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.protocol: ClientProtocol
        self.frames: list[Frame] = []

    @classmethod
    async def open(cls, url: str, early: bytes = b"") -> HandClient:
        """A client through the handshake; ``early`` is sent with its request, before the
        server's answer (frames a hurried client sends at once)."""
        uri = parse_uri(url)
        client = cls(*await asyncio.open_connection(uri.host, uri.port))
        client.protocol = ClientProtocol(uri)
        client.protocol.send_request(client.protocol.connect())
        await client.send(client.outgoing() + early)
        while client.protocol.state.name == "CONNECTING":
            await client.read()
        assert client.protocol.state.name == "OPEN"
        return client

    def outgoing(self) -> bytes:
        """What the client protocol has to send, as one piece (frames masked)."""
        return b"".join(self.protocol.data_to_send())

    async def send(self, data: bytes, piece: int | None = None) -> None:
        """Send ``data``, in pieces of up to ``piece`` bytes (random sizes), each a write."""
        rng = random.Random(len(data))
        while data:
            cut = len(data) if piece is None else rng.randint(1, piece)
            self.writer.write(data[:cut])
            await self.writer.drain()
            data = data[cut:]

    async def read(self) -> None:
        data = await asyncio.wait_for(self.reader.read(65536), 10)
        if data:
            self.protocol.receive_data(data)
        else:
            self.protocol.receive_eof()
        for event in self.protocol.events_received():
            if isinstance(event, Frame):
                self.frames.append(event)

    async def replies(self, count: int) -> list[dict[str, Any]]:
        """The first ``count`` text messages the server sent."""
        while len(self.texts()) < count:
            await self.read()
        return self.texts()[:count]

    def texts(self) -> list[dict[str, Any]]:
        return [json.loads(f.data) for f in self.frames if f.opcode is Opcode.TEXT]

    async def close_code(self) -> int:
        """The code of the close frame the server sends."""
        while True:
            for frame in self.frames:
                if frame.opcode is Opcode.CLOSE:
                    return Close.parse(frame.data).code
            await self.read()


def request(request_id: int, kind: str = "my_games", **fields: Any) -> bytes:
    """A request's text (by default ``my_games``, which any player may ask)."""
    return json.dumps({"type": kind, "id": request_id, **fields}).encode()
