"""What the port answers before a WebSocket or a page: new connections per address, and
the sign-in's routes.

A client that reconnects after every close (bench/flood.py's flooders) would otherwise
get a fresh connection bucket each time, so every WebSocket handshake and every sign-in
request spends a token of its address's connection bucket (server/core/limits.py); with
none left the handshake is answered ``429 Too Many Requests`` with ``Retry-After``,
before any connection, hello or database work exists for it. Page loads, ``/healthz``
and ``/metrics`` are not counted: they cost a file from memory or a probe the operator
runs.
"""

from __future__ import annotations

import math
from email.utils import formatdate
from http import HTTPStatus

import structlog
from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from server.core.limits import AddressLimits
from server.ops.metrics import Metrics
from server.transport.sign_in import ROUTES, SignInRoutes
from server.transport.static import is_websocket_handshake

log = structlog.get_logger(__name__)

REFUSED = b"Too many new connections from your address; wait a moment and try again.\n"


class FrontDoor:
    """The per-address limit on new connections, then the sign-in's routes."""

    def __init__(self, limits: AddressLimits, sign_in: SignInRoutes, metrics: Metrics) -> None:
        self.limits = limits
        self.sign_in = sign_in
        self.metrics = metrics

    async def respond(self, connection: ServerConnection, request: Request) -> Response | None:
        """``429`` for a connection its address may not open now, a sign-in route's
        answer, or None (the server goes on: the WebSocket, a page, /healthz)."""
        path = request.path.partition("?")[0]
        if is_websocket_handshake(request) or path in ROUTES:
            remote = connection.remote_address
            peer = str(remote[0]) if remote else None
            address = self.limits.address_of(peer, request.headers.get_all("X-Forwarded-For"))
            if not self.limits.connections.take(address):
                self.metrics.errors["connections_refused"] += 1
                return refused(self.limits.rates.connections_per_second)
        return await self.sign_in.respond(connection, request)


def refused(rate: float) -> Response:
    """``429`` with how long to wait for the next token."""
    headers = Headers()
    headers["Date"] = formatdate(usegmt=True)
    headers["Retry-After"] = str(max(1, math.ceil(1 / rate))) if rate > 0 else "60"
    headers["Content-Type"] = "text/plain; charset=utf-8"
    headers["Content-Length"] = str(len(REFUSED))
    status = HTTPStatus.TOO_MANY_REQUESTS
    return Response(status, status.phrase, headers, REFUSED)
