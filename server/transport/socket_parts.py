"""What a connection's socket needs below the protocol: its text frames written whole,
the wait for the next frame bounded, and the client's address for its limits.

Kept apart from server/transport/connection.py, which speaks the protocol.
"""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Callable

from server.core.limits import AddressLimits
from server.transport.inbox import ArenaConnection


def text_frame(payload: bytes) -> bytes:
    """A whole, final, unmasked WebSocket text frame carrying ``payload`` (UTF-8 JSON):
    the header of RFC 6455 5.2 (FIN and opcode 1, then the length in 7, 16 or 64
    bits), then the payload."""
    length = len(payload)
    if length < 126:
        return bytes((0x81, length)) + payload
    if length < 65536:
        return struct.pack("!BBH", 0x81, 126, length) + payload
    return struct.pack("!BBQ", 0x81, 127, length) + payload


class IdleTimer:
    """Ends a connection's wait for its next frame once the wait has lasted too long,
    or at once when the connection is to close (``interrupt``).

    ``asyncio.timeout`` around each ``recv`` would set and cancel a timer per message;
    this one notes when each wait starts and looks only when its one timer fires,
    setting it again for the time left. ``limit`` is asked each time (a connection
    becomes a service connection at hello); None means no limit.
    """

    def __init__(self, limit: Callable[[], float | None]) -> None:
        self._limit = limit
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        self._since = self._loop.time()
        self._waiting = False
        self._expired = False
        self._timer: asyncio.TimerHandle | None = None
        self._check()

    async def recv(self, websocket: ArenaConnection) -> str | bytes | None:
        """The next message, or None when none came within the limit."""
        self._since = self._loop.time()
        self._waiting = True
        try:
            return await websocket.next_message()
        except asyncio.CancelledError:
            assert self._task is not None
            if self._expired and self._task.uncancel() == 0:
                return None  # cancelled by this timer alone
            raise
        finally:
            self._waiting = False

    def interrupt(self) -> None:
        """End the wait for the next frame now, if the connection is waiting for one
        (``recv`` then returns None); otherwise the caller looks before its next wait."""
        if self._waiting and not self._expired and self._task is not None:
            self._expired = True
            self._task.cancel()

    def stop(self) -> None:
        """Cancel the timer (the connection is over)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _check(self) -> None:
        self._timer = None
        limit = self._limit()
        if limit is None or self._task is None or self._expired:
            return
        now = self._loop.time()
        due = self._since + limit if self._waiting else now + limit
        if self._waiting and now >= due:
            self._expired = True
            self._task.cancel()
            return
        self._timer = self._loop.call_at(due, self._check)


def client_address_of(websocket: ArenaConnection, limits: AddressLimits) -> str:
    """The address a connection's client has, for its limits (server/core/limits.py)."""
    remote = websocket.remote_address
    peer = str(remote[0]) if remote else None
    request = websocket.request
    forwarded = request.headers.get_all("X-Forwarded-For") if request is not None else []
    return limits.address_of(peer, forwarded)
