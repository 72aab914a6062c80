"""A small real WebSocket client for tests of the race server.

Numbered requests, replies matched by id, events kept in order of arrival. Its own
module (not conftest) so test files can import it by a name no other folder uses.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from websockets.asyncio.client import ClientConnection

SERVICE_TOKEN = "test-service-token"

# Every test client comes from one loopback address, many players at a machine's pace:
# the limits per client address (docs/operations.md) would hold them back, so servers
# of tests that are not about those limits lift them (tests/server/test_address_limits.py
# holds the limits themselves).
OPEN_ADDRESS_LIMITS: dict[str, Any] = {
    "address_rate_per_second": 1e6,
    "address_rate_burst": 1_000_000,
    "address_connections_per_second": 1e6,
    "address_connection_burst": 1_000_000,
    "address_guests_per_minute": 1e6,
    "address_guest_burst": 1_000_000,
}

Message = dict[str, Any]


# Seconds to wait for the reply to a request that may wait for the solver (the replay of
# a practice game comes with the solver's win): its budget and the grace for a solver pool
# whose first worker starts on a loaded machine (server/services/solving.py).
SOLVER_WAIT = 30.0


class Client:
    """A test's WebSocket client: numbered requests, replies matched by id, events kept."""

    def __init__(self, websocket: ClientConnection) -> None:
        self.websocket = websocket
        self.next_id = 0
        self.events: list[Message] = []
        self.received: list[Message] = []
        self.welcome: Message = {}

    async def receive(self, timeout: float = 10.0) -> Message:
        """The next message from the server (every one is kept in ``received``)."""
        frame = await asyncio.wait_for(self.websocket.recv(), timeout)
        message: Message = json.loads(frame)
        self.received.append(message)
        if message["type"] == "event":
            self.events.append(message)
        return message

    async def send_raw(self, frame: str | bytes) -> None:
        """Send a frame as is."""
        await self.websocket.send(frame)

    async def request(self, kind: str, *, wait: float = 10.0, **fields: Any) -> Message:
        """Send a request and return its reply (an error reply included), waiting up to
        ``wait`` seconds for each message."""
        self.next_id += 1
        request_id = self.next_id
        await self.websocket.send(json.dumps({"type": kind, "id": request_id, **fields}))
        while True:
            message = await self.receive(wait)
            if message["type"] != "event" and message.get("id") == request_id:
                return message

    async def ok(self, kind: str, *, wait: float = 10.0, **fields: Any) -> Message:
        """A request that must succeed."""
        reply = await self.request(kind, wait=wait, **fields)
        assert reply["type"] != "error", reply
        return reply

    async def error(self, kind: str, code: str, **fields: Any) -> Message:
        """A request that must fail with ``code``."""
        reply = await self.request(kind, **fields)
        assert reply["type"] == "error", reply
        assert reply["code"] == code, reply
        return reply

    async def event(
        self, kind: str, race: int | None = None, predicate: Callable[[Message], bool] | None = None
    ) -> Message:
        """The first event of ``kind`` (already received or next) that matches."""
        index = 0
        while True:
            while index < len(self.events):
                event = self.events[index]
                index += 1
                if event["event"]["kind"] != kind or (race is not None and event["race"] != race):
                    continue
                if predicate is None or predicate(event):
                    return event
            await self.receive()

    async def close(self) -> None:
        """Close the connection."""
        await self.websocket.close()


# What the ``connect`` fixture (tests/server/conftest.py) hands a test: it opens clients.
# Kept here, not in the conftest, because ``from conftest import`` finds whichever folder's
# conftest was imported first.
Connect = Callable[..., Awaitable[Client]]
