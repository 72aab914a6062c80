"""The body of a small POST, taken off before websockets reads the request.

websockets parses every request on the port as a WebSocket handshake, which has no
body: it refuses one with a ``Content-Length`` other than 0. The sign-in's few POSTs
(server/transport/sign_in.py: a form, or ``/api/token``'s JSON as Discord's
embedded-app examples send it) carry a small body, so this cuts it off the bytes as
they arrive: once the head and ``Content-Length`` bytes of body are in, websockets is
given the head without that header (and so parses it as any other request), and the
body waits for the route on ``ArenaConnection.request_body``.

Only a POST with a body of at most ``MAX_BODY`` bytes is cut; everything else (every
WebSocket handshake, every page load, a larger body, a chunked one) goes to websockets
as it came, which answers it as before.
"""

from __future__ import annotations

from typing import Final

MAX_BODY: Final = 8192  # bytes: a sign-in form or code is far smaller
MAX_HEAD: Final = 16384  # bytes of request head looked at; websockets allows about as much
END_OF_HEAD: Final = b"\r\n\r\n"


class BodyCutter:
    """Looks at a connection's first bytes until its request head is complete."""

    def __init__(self) -> None:
        self._buffer = b""
        self.body: bytes | None = None

    def feed(self, data: bytes) -> bytes | None:
        """The bytes to hand websockets now (all of them, once it is decided), or None
        while the request's head, or its body, has not fully arrived."""
        buffer = self._buffer + data
        end = buffer.find(END_OF_HEAD)
        if end < 0:
            if len(buffer) > MAX_HEAD or not _may_be_post(buffer):
                self._buffer = b""
                return buffer
            self._buffer = buffer
            return None
        head, rest = buffer[:end], buffer[end + len(END_OF_HEAD) :]
        lines = head.split(b"\r\n")
        length = _content_length(lines) if lines[0].startswith(b"POST ") else None
        if length is None or length > MAX_BODY:
            self._buffer = b""
            return buffer
        if len(rest) < length:
            self._buffer = buffer
            return None
        self._buffer = b""
        self.body = rest[:length]
        kept = [line for line in lines if not line.lower().startswith(b"content-length:")]
        return b"\r\n".join(kept) + END_OF_HEAD + rest[length:]


def _may_be_post(start: bytes) -> bool:
    """Whether a request beginning with ``start`` could still be a POST."""
    return b"POST "[: len(start)] == start[:5]


def _content_length(lines: list[bytes]) -> int | None:
    """The one ``Content-Length`` of a request head's lines, or None (none, several,
    unreadable, or a ``Transfer-Encoding`` that websockets refuses anyway)."""
    lengths = []
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"transfer-encoding":
            return None
        if name == b"content-length":
            lengths.append(value.strip())
    if len(lengths) != 1 or not lengths[0].isdigit() or len(lengths[0]) > 9:
        return None
    return int(lengths[0])
