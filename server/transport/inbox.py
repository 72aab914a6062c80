"""What a client sends, taken off the socket with as little work as a message allows.

websockets turns every incoming frame into objects through a generator parser, queues
it in its message assembler and hands it to ``recv``; at the pace of a live race (a
move every millisecond or so per process, each on its own) that costs a server process
about 40 µs more a message than the least a WebSocket needs (bench/echo_pace.py): a
tenth of a move's CPU. Here the common frame (a whole, masked, uncompressed text
message within ``max_size``) is cut from the bytes as they come and put in the
connection's ``Inbox``; every other frame (control frames, fragments, binary or
compressed messages, anything malformed) is handed whole to websockets, which answers
pings, runs the close handshake and fails the connection with the right close code, as
before, and whose data messages land in the same inbox, in order.

websockets' parser is only ever given whole frames, so it is always at the start of
one when a frame reaches it; once it fails the connection (an unmasked or oversized
frame), everything after goes to it.

The keepalive ping goes only to a client that has sent nothing for a whole
``ping_interval``: a message is proof enough that the client is there, and a racer
sends several a second, so a live race pays for no pings and pongs at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import struct
from collections import deque

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode, Frame, Opcode
from websockets.protocol import State

from server.transport.request_body import BodyCutter

try:
    from websockets.speedups import apply_mask  # compiled, in websockets' wheels
except ImportError:  # pragma: no cover - a build of websockets without its C part
    from websockets.utils import apply_mask

TEXT_FRAME = 0x81  # FIN, no extension bits, opcode 1 (RFC 6455 5.2)
MASKED = 0x80


class Inbox:
    """The whole messages of one connection, in order, for the one task that serves it.

    Past ``high`` messages waiting, reading from the socket pauses until no more than
    ``low`` wait, as websockets' own queue does: a client that sends faster than it is
    served is held back by TCP, not by the server's memory.
    """

    def __init__(self, connection: ArenaConnection, high: int, low: int) -> None:
        self._connection = connection
        self._messages: deque[str | bytes] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._high = high
        self._low = low
        self._paused = False
        self.closed = False
        self.received = 0  # messages so far: the keepalive's sign of life

    def put(self, message: str | bytes) -> None:
        self._messages.append(message)
        self.received += 1
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)
        if not self._paused and len(self._messages) > self._high:
            self._paused = True
            self._connection.transport.pause_reading()

    def close(self) -> None:
        """No more messages will come (the connection is lost)."""
        self.closed = True
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    async def get(self) -> str | bytes | None:
        """The next message; None once the connection is lost and all were taken.
        Cancelling the wait loses no message."""
        while not self._messages:
            if self.closed:
                return None
            self._waiter = self._connection.loop.create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        message = self._messages.popleft()
        if self._paused and len(self._messages) <= self._low:
            self._paused = False
            self._connection.transport.resume_reading()
        return message


class ArenaConnection(ServerConnection):
    """websockets' server connection, with its incoming messages going to ``inbox``."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.inbox = Inbox(self, *self._queue_limits())
        self._pending = b""
        self._fragments: list[bytes] | None = None  # a fragmented message under way
        self._text = True  # whether that message is text
        self._lean = True  # False once websockets' parser must see everything
        self._opened = False  # whether data came since the handshake
        # The request's head, looked at for a sign-in POST's body until websockets has
        # it (server/transport/request_body.py); the body, for the route, if one came.
        self._cutter: BodyCutter | None = BodyCutter()
        self.request_body: bytes | None = None

    def _queue_limits(self) -> tuple[int, int]:
        high, low = self.max_queue_high, self.max_queue_low
        return (high or 2**31, low or 0)

    async def next_message(self) -> str | bytes:
        """The next message (text as str, binary as bytes), as ``recv`` would return it.

        Raises:
            ConnectionClosed: the connection is over, as ``recv`` raises it.
        """
        message = await self.inbox.get()
        if message is None:
            await asyncio.shield(self.connection_lost_waiter)
            raise self.protocol.close_exc
        return message

    async def keepalive(self) -> None:
        """Ping the client after a ``ping_interval`` in which it sent no message; no pong
        within ``ping_timeout`` fails the connection with 1011, as websockets' own
        keepalive does (which pings every connection every interval)."""
        assert self.ping_interval is not None
        seen = self.inbox.received
        with contextlib.suppress(ConnectionClosed):  # the close ends the keepalive too
            while True:
                await asyncio.sleep(self.ping_interval)
                if self.inbox.received == seen:
                    await self._ping_answered()
                seen = self.inbox.received

    async def _ping_answered(self) -> None:
        """Ping, and fail the connection (1011) if no pong comes within ``ping_timeout``."""
        pong = await self.ping()
        if self.ping_timeout is None:
            return
        try:
            async with asyncio.timeout(self.ping_timeout):
                await pong
        except TimeoutError:
            async with self.send_context():
                self.protocol.fail(CloseCode.INTERNAL_ERROR, "keepalive ping timeout")

    def data_received(self, data: bytes) -> None:
        if self._cutter is not None:
            passed = self._cutter.feed(data)
            if passed is None:
                return  # a POST's head or body is not all here yet
            self.request_body, self._cutter = self._cutter.body, None
            data = passed
        if not self._opened and self.protocol.state is State.OPEN:
            self._opened = True
            if self.protocol.reader.buffer:
                # The client sent frames before it had the handshake's answer, and
                # websockets' parser holds the start of one: it goes on reading them all.
                self._lean = False
        if not self._lean or self.protocol.state is not State.OPEN:
            # The handshake, a connection websockets fails or a closing one: websockets'
            # parser sees every byte from here on, the start of a frame cut short first.
            if self._pending:
                data, self._pending = self._pending + data, b""
            super().data_received(data)
            return
        buffer = self._pending + data if self._pending else data
        at, size, limit = 0, len(buffer), self.protocol.max_message_size
        while size - at >= 2:
            first, second = buffer[at], buffer[at + 1]
            length, head = second & 0x7F, 2
            if length == 126:
                if size - at < 4:
                    break
                length, head = struct.unpack_from("!H", buffer, at + 2)[0], 4
            elif length == 127:
                if size - at < 10:
                    break
                length, head = struct.unpack_from("!Q", buffer, at + 2)[0], 10
            if not second & MASKED or (limit is not None and length > limit):
                self._hand_over(buffer[at:])  # it fails this frame's header (1002, 1009)
                return
            end = at + head + 4 + length
            if end > size:
                break
            if (
                first == TEXT_FRAME
                and self._fragments is None
                and self.protocol.state is State.OPEN
            ):
                payload = apply_mask(buffer[at + head + 4 : end], buffer[at + head : at + head + 4])
                try:
                    self.inbox.put(payload.decode())
                except UnicodeDecodeError:
                    self._hand_over(buffer[at:])  # it fails this text (1007)
                    return
            else:
                super().data_received(buffer[at:end])
                if not self._lean:  # it failed the connection: the rest is of no use
                    self._pending = b""
                    return
            at = end
        self._pending = buffer[at:]

    def _hand_over(self, rest: bytes) -> None:
        """Give websockets' parser ``rest`` (from the start of a frame it must refuse) and
        every byte after: it fails the connection with the frame's close code."""
        self._lean = False
        self._pending = b""
        super().data_received(rest)

    def process_event(self, event: object) -> None:
        if not isinstance(event, Frame) or event.opcode not in (
            Opcode.TEXT,
            Opcode.BINARY,
            Opcode.CONT,
        ):
            super().process_event(event)  # type: ignore[arg-type]
            return
        data = bytes(event.data)
        if event.opcode is not Opcode.CONT:
            self._text = event.opcode is Opcode.TEXT
            self._fragments = []
        assert self._fragments is not None  # websockets refuses a stray continuation
        self._fragments.append(data)
        if not event.fin:
            return
        message = b"".join(self._fragments)
        self._fragments = None
        if not self._text:
            self.inbox.put(message)
            return
        try:
            self.inbox.put(message.decode())
        except UnicodeDecodeError as err:
            self._lean = False
            self.protocol.fail(1007, f"{err.reason} at position {err.start}")
            self.send_data()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self.inbox.close()
