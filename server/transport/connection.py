"""One WebSocket connection: limits, hello, who is acting, dispatch, and its send queue.

The connection only parses, checks limits and identity, calls the route of the request and
sends what it returns. Every failure becomes an ``error`` reply with a stable
code; nothing a client sends can end the server's loop.

Everything the server sends (replies and events alike) is queued without waiting: a
connection never waits for its client to read, so a slow client slows nobody, not even
its own requests. What its client has not read waits in the transport's buffer; past
``send_queue_bytes`` the connection is closed with ``SLOW_CLOSE`` (4001), and the
client reconnects and resumes (docs/protocol.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import socket
import time
from collections.abc import Sequence

import structlog
from websockets.asyncio.server import broadcast
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from server import protocol as p
from server.core.identity import (
    Principal,
    TokenSigner,
    check_discord_user,
    check_service_token,
    clean_name,
    unranked_reason,
)
from server.core.limits import TokenBucket
from server.ops.config import ServerConfig
from server.protocol.errors import ArenaError, IdentityError, ProtocolError, forbidden
from server.services.wiring import Services
from server.transport.handlers import Routes
from server.transport.inbox import ArenaConnection
from server.transport.socket_parts import IdleTimer, client_address_of, text_frame

IDLE_CLOSE = 4000  # close code: nothing received for idle_timeout seconds
SLOW_CLOSE = 4001  # close code: more than send_queue_bytes waited unread by the client
FLOOD_CLOSE = 1008  # policy violation: the rate limit was ignored
BINARY_FRAME = "a binary frame: send each message as JSON in a text frame"


class ConnectionState(enum.Enum):
    """Where a connection is in its life: before hello, a guest's, a service's, closing."""

    NEW = "new"
    GUEST = "guest"
    SERVICE = "service"
    CLOSING = "closing"


class Connection:
    """A client's connection from hello to close."""

    def __init__(
        self,
        websocket: ArenaConnection,
        services: Services,
        routes: Routes,
        signer: TokenSigner,
        config: ServerConfig,
    ) -> None:
        self.websocket = websocket
        self.services = services
        self.routes = routes
        self.signer = signer
        self.config = config
        self.metrics = services.metrics
        self.state = ConnectionState.NEW
        self.player: Principal | None = None  # a guest's own player
        # Principals a service connection acted for, so each costs one write, not one
        # per message (bounded: a bot acts for its active users).
        self.principals: dict[str, Principal] = {}
        self.locale = "en"
        self.bucket = TokenBucket(config.rate_per_second, config.rate_burst)
        # A service connection's per-player buckets (the connection's own bucket then
        # caps all of them together; see ``limit_player``).
        self.player_buckets: dict[str, TokenBucket] = {}
        self.rejected = 0
        # The client's address (the peer's, or a trusted proxy's word for it), whose
        # buckets all its connections share (server/core/limits.py).
        self.limits = services.limits
        self.address = client_address_of(websocket, self.limits)
        self.limited_by = "connection"  # which limit refused the last message
        self.log = structlog.get_logger(__name__).bind(conn=websocket.id.hex[:8])
        self.idle: IdleTimer | None = None
        self.too_slow = False  # its send queue overflowed: closing with SLOW_CLOSE
        # Looked up once: every reply and every race event a client receives passes
        # through ``keeps_up`` and ``write``, and the handshake (which settles the
        # transport and the extensions) is over before a connection is made.
        self._transport = websocket.transport
        self._queued = websocket.transport.get_write_buffer_size
        self._protocol = websocket.protocol
        self._plain = not websocket.protocol.extensions
        self._queue_limit = config.send_queue_bytes

    def send(self, frame: bytes) -> None:
        """Queue an encoded message, a reply or one unasked (a verdict; the connection is
        the services' ``Subscriber``), without waiting for the client to read: unlike
        ``websocket.send``, no coroutine and no drain per message."""
        if self.keeps_up():
            self.write(text_frame(frame), frame)

    @classmethod
    def send_all(cls, connections: Sequence[Connection], frame: bytes) -> None:
        """Queue one encoded message (a race event) for many connections: framed once,
        the same bytes written to each; a connection whose client has fallen too far
        behind is dropped instead (``keeps_up``)."""
        framed = text_frame(frame)
        for connection in connections:
            if connection.keeps_up():
                connection.write(framed, frame)

    def keeps_up(self) -> bool:
        """Whether more may be queued for this client: it is open and its queue (what it
        has not read yet) is within ``send_queue_bytes``. Past that it is dropped: closed
        with ``SLOW_CLOSE``, and it resumes after reconnecting (docs/protocol.md)."""
        if self.state is ConnectionState.CLOSING:
            return False
        queued = self._queued()
        if queued <= self._queue_limit:
            return True
        self.too_slow = True
        self.state = ConnectionState.CLOSING
        self.metrics.errors["send_queue_full"] += 1
        self.log.info("send_queue_full", queued=queued)
        if self.idle is not None:
            self.idle.interrupt()  # else ``run`` sees ``too_slow`` after the request
        return False

    def write(self, framed: bytes, frame: bytes) -> None:
        """Write a whole text frame (``framed``, from ``text_frame(frame)``) to the socket.

        websockets' own path (``broadcast``) builds and serialises a ``Frame`` object
        for every message and every connection, among the largest Python costs of a
        live race by py-spy; a server's frame without extensions is the same bytes for
        every client, so it is built once and written as it is. This is what
        websockets itself writes for it (RFC 6455 5.2: server frames are not masked),
        and only while the connection is open, as ``broadcast`` does; with an extension
        (permessage-deflate) websockets frames it. bench/paired.py measures the gain.
        """
        if not self._plain:
            broadcast([self.websocket], frame, text=True)
        elif self._protocol.state is State.OPEN:
            self._transport.write(framed)

    async def run(self) -> None:
        """Serve messages until the client leaves, idles out or floods."""
        self.metrics.connections += 1
        self.metrics.connections_total += 1
        # This task's log context: every line logged while serving it names the
        # connection (and, after hello, the player), in the services too.
        structlog.contextvars.bind_contextvars(conn=self.websocket.id.hex[:8])
        self.log.info("connected", remote=str(self.websocket.remote_address), client=self.address)
        self.bound_kernel_buffer()
        idle = self.idle = IdleTimer(self.idle_limit)
        try:
            while True:
                frame = None if self.too_slow else await idle.recv(self.websocket)
                if self.too_slow:
                    await self.close(SLOW_CLOSE, "send queue full")
                    return
                if frame is None:
                    await self.close(IDLE_CLOSE, "idle timeout")
                    return
                if not await self.receive(frame):
                    return
        except ConnectionClosed:
            pass
        finally:
            idle.stop()
            self.metrics.connections -= 1
            self.state = ConnectionState.CLOSING
            self.services.unwatch(self)
            self.log.info("disconnected", code=self.websocket.close_code)

    def bound_kernel_buffer(self) -> None:
        """Give the socket a send buffer of ``send_queue_bytes`` (the kernel doubles it).

        Left to itself Linux grows a socket's send buffer up to megabytes
        (``tcp_wmem``), all of it held for a client that stopped reading before our own
        queue even starts to fill. Fixed, a client that reads nothing holds about three
        times ``send_queue_bytes`` in all before it is dropped; the server's messages are
        small, so a buffer of this size never limits a client that reads.
        """
        sock = self._transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.config.send_queue_bytes)

    def idle_limit(self) -> float | None:
        """Seconds of silence before closing; a service connection has its own (or none)."""
        return self.config.service_idle_timeout if self.is_service else self.config.idle_timeout

    async def close(self, code: int, reason: str) -> None:
        """Close with ``code``, reading (and dropping) what the client still sends.

        Reading on matters: when unread messages fill the inbound queue the
        connection stops reading, and would never see the client's close frame.
        """

        async def drain() -> None:
            with contextlib.suppress(ConnectionClosed):
                while True:
                    await self.websocket.next_message()

        self.state = ConnectionState.CLOSING
        self.log.info("closing", code=code, reason=reason)
        async with asyncio.TaskGroup() as group:
            group.create_task(self.websocket.close(code, reason))
            group.create_task(drain())

    async def receive(self, frame: str | bytes) -> bool:
        """Handle one frame; False when the connection was closed for flooding."""
        started = time.perf_counter()
        try:
            if not self.within_limits():
                return await self.refuse(frame)
            self.rejected = 0
            try:
                if isinstance(frame, bytes):  # JSON comes in text frames (RFC 8259 is text)
                    raise ProtocolError("bad_json", reason=BINARY_FRAME)
                message = p.parse(frame)
            except ArenaError as err:
                await self.reply_error(err)
                return True
            kind = type(message).__struct_config__.tag
            self.metrics.messages[str(kind)] += 1
            try:
                reply = await self.dispatch(message)
            except ArenaError as err:
                err.request_id = message.id
                await self.reply_error(err)
            except Exception:
                self.log.exception("request_failed", type=kind)
                internal = ArenaError("internal")
                internal.request_id = message.id
                await self.reply_error(internal)
            else:
                # UTF-8 bytes sent as a text frame: no decode here and re-encode in websockets.
                self.send(p.encode(reply))
            return True
        finally:
            self.metrics.observe_request(time.perf_counter() - started)

    def within_limits(self) -> bool:
        """Spend a token of this connection's bucket and of its address's (a service
        connection, the bot, brings many players through one address and has buckets per
        player instead); False, with ``limited_by`` naming which, when one is empty."""
        if not self.bucket.take():
            self.limited_by = "connection"
            return False
        if not self.is_service and not self.limits.requests.take(self.address):
            self.limited_by = "address"
            return False
        return True

    async def refuse(self, frame: str | bytes) -> bool:
        """Answer a frame past the rate limit; False once the flood closed the connection.

        A flooding client's frames arrive hundreds to a read, and websockets hands them
        over without a pause while its replies fit the send buffer: answered one after
        the other, they held the event loop for tens of milliseconds, and every other
        player's move waited (bench/flood.py: honest p99 ×58). So each refusal first
        lets the others' work run, and only the first of a run is logged.
        """
        self.rejected += 1
        await asyncio.sleep(0)
        if self.rejected > self.config.flood_close_after:
            self.metrics.errors["rate_limited"] += 1
            await self.close(FLOOD_CLOSE, "rate limit exceeded")
            return False
        if self.limited_by == "address":
            rate = self.limits.rates.requests_per_second
            error = ProtocolError("rate_limited", rate=rate, per="address")
        else:
            error = ProtocolError("rate_limited", rate=self.bucket.rate, per="connection")
        error.request_id = p.request_id_of(frame)
        await self.reply_error(error, logged=self.rejected == 1)
        return True

    async def dispatch(self, message: p.ClientMessage) -> p.Message:
        """Check who is asking and hand the message to its route (server/transport/handlers.py)."""
        if isinstance(message, p.Hello):
            return await self.hello(message)
        if self.state is ConnectionState.NEW:
            raise ProtocolError("not_authenticated")
        if isinstance(message, p.SetProfile):
            return await self.set_profile(message)
        kind = type(message)
        for_service = self.routes.service.get(kind)
        if for_service is not None:
            self.check_service_itself(message)
            return await for_service(message)
        # A guest's request (every move of a WebSocket player) is answered without an await.
        who = await self.acting(message) if self.is_service else self.guest(message)
        return await self.routes.player[kind](who, message, self)

    @property
    def is_service(self) -> bool:
        """Whether a service client (the Discord bot) said hello on this connection."""
        return self.state is ConnectionState.SERVICE

    def guest(self, message: p.Request) -> Principal:
        """The player a guest's message acts for: the guest itself.

        Raises:
            IdentityError: the message names someone (``forbidden``).
        """
        if message.act_as is not None:
            raise forbidden(
                "Only a service client may act for another player.",
                "Nur ein Dienst darf für andere Spieler handeln.",
            )
        assert self.player is not None
        return self.player

    async def acting(self, message: p.Request) -> Principal:
        """The player a service client's message acts for: the ``discord:<id>`` it names.

        Raises:
            IdentityError: the message names no one, or a principal that is not
                ``discord:<id>`` (``forbidden``).
        """
        if message.act_as is None:
            raise forbidden(
                "A service client must name the player it acts for (act_as).",
                "Ein Dienst muss angeben, für wen er handelt (act_as).",
            )
        user, locale = message.act_as.user, message.act_as.locale
        check_discord_user(user)
        self.limit_player(user)
        name = clean_name(message.act_as.name, user) if message.act_as.name else None
        known = self.principals.get(user)
        if (
            known is None
            or (name or known.name) != known.name
            or (locale or known.locale) != (known.locale)
        ):
            # New to this connection, or renamed: store (one write), then remember.
            known = await self.services.storage.discord_player(user, name, locale)
            if len(self.principals) >= 10_000:
                self.principals.clear()
            self.principals[user] = known
        self.locale = locale or known.locale
        structlog.contextvars.bind_contextvars(player=known.player_id)
        return known

    def check_service_itself(self, message: p.Request) -> None:
        """A service route is for a service client acting for itself (no ``act_as``).

        Raises:
            IdentityError: ``forbidden`` for anyone else.
        """
        if not self.is_service or message.act_as is not None:
            raise forbidden(
                "Only a service client may list open races, and for itself (no act_as).",
                "Nur ein Dienst darf offene Rennen auflisten, und für sich (ohne act_as).",
            )

    def limit_player(self, user: str) -> None:
        """Spend a token of ``user``'s own bucket on this service connection.

        The bot brings every Discord user through one connection, so the guest's
        per-connection limit applies to each of them separately here; one user
        flooding is refused without slowing the others (or closing the connection).

        Raises:
            ProtocolError: ``rate_limited`` when this user's bucket is empty.
        """
        bucket = self.player_buckets.get(user)
        if bucket is None:
            if len(self.player_buckets) >= 10_000:
                # Bounded: dropping buckets can only forgive users, never block one.
                self.player_buckets.clear()
            bucket = TokenBucket(self.config.rate_per_second, self.config.rate_burst)
            self.player_buckets[user] = bucket
        if not bucket.take():
            raise ProtocolError("rate_limited", rate=self.config.rate_per_second)

    async def hello(self, message: p.Hello) -> p.Welcome:
        """Agree the version and establish who this connection is."""
        if self.state is not ConnectionState.NEW:
            raise ProtocolError("already_authenticated")
        if message.protocol != p.PROTOCOL_VERSION:
            raise ProtocolError(
                "unsupported_version", version=message.protocol, supported=p.PROTOCOL_VERSION
            )
        if message.act_as is not None:
            raise forbidden(
                "hello cannot act for another player.",
                "hello kann nicht für andere Spieler handeln.",
            )
        self.locale = message.locale
        now = self.services.clock()
        if message.service_token is not None:
            check_service_token(message.service_token, self.config.service_tokens)
            self.state = ConnectionState.SERVICE
            self.bucket = TokenBucket(
                self.config.service_rate_per_second, self.config.service_rate_burst
            )
            self.log = self.log.bind(service=True)
            self.log.info("service_hello")
            return p.Welcome(
                id=message.id, protocol=p.PROTOCOL_VERSION, server_time=now, service=True
            )
        if message.token is not None:
            # A guest's token, or a signed-in player's session token (renewed).
            player, token = await self.services.accounts.resume(self.signer, message.token)
        else:
            if not self.limits.guests.take(self.address):
                raise IdentityError("too_many_guests")
            name = clean_name(message.name, "") or None
            player = await self.services.storage.create_guest(name, message.locale)
            token = self.signer.sign(player.player_id)
        self.player = player
        self.state = ConnectionState.GUEST
        self.log = self.log.bind(player=player.player_id)
        structlog.contextvars.bind_contextvars(player=player.player_id)
        self.log.info("hello", resumed=message.token is not None)
        return p.Welcome(
            id=message.id,
            protocol=p.PROTOCOL_VERSION,
            server_time=now,
            player=p.PlayerInfo(id=player.player_id, name=player.name, user=player.user),
            token=token,
            sign_in=self.sign_in_offered(player),
            unranked=unranked_reason(player.user, self.config.guests_rank),
        )

    def sign_in_offered(self, player: Principal) -> list[p.SignInProvider]:
        """Discord, to a guest, where the server is set up for it (docs/operations.md)."""
        configured = self.config.discord_client_id and self.config.discord_client_secret
        return ["discord"] if configured and player.user.startswith("guest:") else []

    async def set_profile(self, message: p.SetProfile) -> p.Profile:
        """Change the name and/or locale of the player the message acts for.

        The connection's own, like hello: it changes who the connection speaks as (its
        cached player and the language of its errors). The player is found as for any
        request, so a guest changes only itself and a service only the ``discord:``
        user it names in ``act_as``, never anyone else. A name is cleaned as hello
        cleans one; one with nothing printable left is refused, and nothing changes.

        Raises:
            ProtocolError: ``invalid_message`` for a name with no printable character.
            IdentityError: ``forbidden`` as for any request acting for someone else.
        """
        who = await self.acting(message) if self.is_service else self.guest(message)
        name = None
        if message.name is not None:
            name = clean_name(message.name, "")
            if not name:
                raise ProtocolError(
                    "invalid_message", reason="a name needs at least one printable character"
                )
        player = await self.services.storage.set_profile(who.player_id, name, message.locale)
        if self.is_service:
            self.principals[player.user] = player
        else:
            self.player = player
        self.locale = player.locale
        return p.Profile(
            id=message.id,
            player=p.PlayerInfo(id=player.player_id, name=player.name),
            locale=player.locale,  # type: ignore[arg-type]
        )

    async def reply_error(self, err: ArenaError, logged: bool = True) -> None:
        """Send an error reply in the connection's language (and log it if ``logged``)."""
        self.metrics.errors[err.code] += 1
        details = {k: v for k, v in err.details.items() if k != "reason_de"}
        reply = p.ErrorMessage(
            id=err.request_id,
            code=err.code,
            message=err.message(self.locale),
            details=details,
            view=err.view,
        )
        if logged:
            self.log.info("error_reply", code=err.code)
        self.send(p.encode(reply))
