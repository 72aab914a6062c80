"""The bot's one connection to the race server, shared by every Discord user.

The bot says ``hello`` with its service token once per connection and then sends
each request ``act_as`` the Discord user it serves (``discord:<id>``), so the
server checks every move as that player's own: the bot never decides anything.
Requests carry numeric ids and wait for the reply with the same id; race events
go to ``on_event``, other messages the server sends unasked to ``on_notice``.
Requests are paced to the server's per-connection rate (``rate_per_second``,
``burst``), since every user shares this one connection; a
``rate_limited`` reply is retried after a pause (the server dropped the request
unseen, so repeating it is safe). When the connection drops, pending requests fail with
``connection_lost`` (retried once after the reconnect when repeating them is safe:
reads, and moves carrying a ``move_id``), the client reconnects with exponential
backoff and jitter, and resumes every race it watches from the last event seen.

The messages are the server's own protocol types (``server.protocol``, the one part of
the server the bot imports): requests are built as its structs, and every frame the
server sends is decoded into its closed set of server messages, so a reply that breaks
the protocol is caught here, at the door, and logged and dropped (a request waiting for
it fails with ``bad_reply``), never crashing the client. ``ask`` sends a typed request
and returns the typed reply. The modules that still read messages as dicts (the table,
the desk, the renderers) get them through ``request`` and the callbacks, which convert
with ``msgspec.to_builtins`` at this boundary.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import msgspec
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from server import protocol as p

log = logging.getLogger(__name__)

# A server message as a dict: the face the table, the desk and the renderers still read.
Message = dict[str, Any]
# Requests that change nothing, so repeating one after a lost connection is safe.
READS = (p.GetView, p.GetRace, p.Resume, p.MyGames, p.OpenRaces)

Reply = TypeVar("Reply", bound=p.Message)

_replies: msgspec.json.Decoder[p.ServerMessage] = msgspec.json.Decoder(p.ServerMessage)
_requests = msgspec.json.Encoder()


class ServerError(Exception):
    """The server refused a request (nothing changed), or could not be asked.

    Attributes:
        code: the server's stable error code, or ``connection_lost`` / ``timeout`` /
            ``bad_reply`` (the server's reply broke the protocol).
        message: the server's human message (in the acting user's language).
        details: the server's data about the failure.
        view: a fresh view of the game, sent with ``conflict`` (as a dict, the form
            the renderers read).
    """

    def __init__(
        self,
        code: str,
        message: str = "",
        details: dict[str, Any] | None = None,
        view: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code
        self.message = message
        self.details = details or {}
        self.view = view


class FatalClientError(Exception):
    """The server will never accept this client (wrong service token or version)."""


@dataclass(frozen=True)
class Actor:
    """The Discord user a request acts for."""

    user_id: int
    name: str
    locale: str = "en"
    # False when the bot acts without the user at hand (re-attaching a race after a
    # restart): the server then keeps the name and locale it has.
    introduce: bool = True

    @property
    def principal(self) -> str:
        return f"discord:{self.user_id}"

    def act_as(self) -> p.ActAs:
        if not self.introduce:
            return p.ActAs(user=self.principal)
        locale = cast(p.Locale, self.locale)  # the server refuses a locale it does not speak
        return p.ActAs(user=self.principal, name=self.name[:64], locale=locale)


@dataclass
class Watch:
    """A race whose events this client follows, and the last one it saw."""

    actor: Actor
    last_seq: int = 0


class ArenaClient:
    """One persistent, self-healing WebSocket connection to the race server."""

    def __init__(
        self,
        url: str,
        service_token: str,
        *,
        on_event: Callable[[p.Event], None] | None = None,
        on_race: Callable[[p.RaceInfo], None] | None = None,
        on_notice: Callable[[p.ServerMessage], None] | None = None,
        on_arena: Callable[[p.ArenaEvent], None] | None = None,
        request_timeout: float = 15.0,
        ready_wait: float = 2.0,
        rate_per_second: float = 18.0,
        burst: int = 36,
        backoff_initial: float = 0.5,
        backoff_max: float = 30.0,
        rng: random.Random | None = None,
    ) -> None:
        self.url = url
        self.service_token = service_token
        self.on_event = on_event
        self.on_race = on_race
        # Messages the server sends unasked (no id), such as a game proven lost.
        self.on_notice = on_notice
        # What the arenas the bot follows push (standings, a player's next race, the end).
        self.on_arena = on_arena
        self.request_timeout = request_timeout
        # Seconds a request waits for a lost connection to come back (a blip reconnects
        # in about a second) before it fails: a server that is down answers a press
        # with "not reachable" at once instead of after the request timeout, twice.
        self.ready_wait = ready_wait
        self.backoff_initial = backoff_initial
        self.backoff_max = backoff_max
        self.rng = rng or random.Random()
        self.pacer = Pacer(rate_per_second, burst)
        self.watches: dict[int, Watch] = {}
        self.connections = 0  # successful hellos so far, for operators and tests
        self._websocket: ClientConnection | None = None
        self._ready = asyncio.Event()
        self._pending: dict[int, asyncio.Future[p.ServerMessage]] = {}
        self._next_id = 0
        self._task: asyncio.Task[None] | None = None
        self._fatal: FatalClientError | None = None

    # ------------------------------------------------------------ lifecycle

    async def start(self, timeout: float | None = None) -> None:
        """Start the connection loop; with ``timeout``, wait until the first hello is done.

        Raises:
            FatalClientError: the server refused the service token or version.
            TimeoutError: no connection within ``timeout``.
        """
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="arena-client")
            self._task.add_done_callback(_report_crash)
        if timeout is not None:
            await self.wait_ready(timeout)

    async def wait_ready(self, timeout: float) -> None:
        """Wait until connected and greeted (raises the fatal error if there is one)."""
        async with asyncio.timeout(timeout):
            while not self._ready.is_set():
                if self._fatal is not None:
                    raise self._fatal
                if self._task is not None and self._task.done():
                    raise self._fatal or FatalClientError("the connection loop stopped")
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(0.05):
                        await self._ready.wait()

    async def close(self) -> None:
        """Stop reconnecting and close the connection."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
        if self._websocket is not None:
            await self._websocket.close()
        self._fail_pending()

    async def _run(self) -> None:
        delay = self.backoff_initial
        while True:
            try:
                async with connect(self.url, open_timeout=10, max_size=2**22) as websocket:
                    self._websocket = websocket
                    reader = asyncio.create_task(self._read(websocket), name="arena-reader")
                    try:
                        await self._greet()
                        delay = self.backoff_initial
                        await self._resume_all()
                        await reader
                    finally:
                        reader.cancel()
                        with contextlib.suppress(asyncio.CancelledError, Exception):
                            await reader
            except FatalClientError as err:
                self._fatal = err
                log.error("arena server refused the bot: %s", err)
                self._fail_pending()
                return
            except (OSError, ConnectionClosed, InvalidHandshake, TimeoutError, ServerError) as err:
                log.warning("arena connection lost (%s); retrying in %.1fs", err, delay)
            except InvalidURI as err:
                self._fatal = FatalClientError(f"bad server URL {self.url!r}: {err}")
                self._fail_pending()
                return
            self._ready.clear()
            self._websocket = None
            self._fail_pending()
            await asyncio.sleep(delay * (0.5 + self.rng.random()))
            delay = min(self.backoff_max, delay * 2)

    async def _greet(self) -> None:
        try:
            await self._send_and_wait(p.Hello(service_token=self.service_token))
        except ServerError as err:
            if err.code in {"bad_service_token", "unsupported_version"}:
                raise FatalClientError(err.message or err.code) from None
            raise
        self.connections += 1
        self._ready.set()

    async def _resume_all(self) -> None:
        """Catch up on every watched race: missed events, or the full state."""
        for race_id, watch in list(self.watches.items()):
            resume = p.Resume(race=race_id, last_seq=watch.last_seq, act_as=watch.actor.act_as())
            reply = await self._send_and_wait(resume)
            if isinstance(reply, p.RaceReply | p.EventsReply):
                self._take_race_reply(reply)

    # ------------------------------------------------------------ requests

    async def request(
        self, kind: str, actor: Actor | None, *, timeout: float | None = None, **fields: Any
    ) -> Message:
        """``ask`` with the request given as its type and fields, the reply as a dict.

        The bot itself sends typed requests (``expect``); this form is for scripts and
        tests that speak the protocol by its message names. The request is built as the
        protocol's struct first, so a field of the wrong type fails here, as the server
        would refuse it, before anything is sent.

        Raises:
            ServerError: ``unknown_type`` or ``invalid_message`` for a request the
                protocol has no place for; otherwise as ``ask``.
        """
        if kind not in p.CLIENT_TYPES:
            raise ServerError("unknown_type", f"no request {kind!r}")
        try:
            message: p.ClientMessage = msgspec.convert({"type": kind, **fields}, p.ClientMessage)
        except msgspec.ValidationError as err:
            raise ServerError("invalid_message", str(err)) from None
        reply = await self.ask(message, actor, timeout=timeout)
        return cast(Message, msgspec.to_builtins(reply))

    async def expect(
        self,
        message: p.ClientMessage,
        actor: Actor | None,
        kind: type[Reply],
        *,
        timeout: float | None = None,
    ) -> Reply:
        """``ask``, and the reply as the type ``kind`` the request is answered with.

        Raises:
            ServerError: as ``ask``; ``bad_reply`` for a reply of another type.
        """
        reply = await self.ask(message, actor, timeout=timeout)
        if not isinstance(reply, kind):
            raise ServerError("bad_reply", f"expected {kind.__name__}, got {type(reply).__name__}")
        return reply

    async def ask(
        self, message: p.ClientMessage, actor: Actor | None, *, timeout: float | None = None
    ) -> p.ServerMessage:
        """Send ``message`` acting for ``actor`` and return the server's reply.

        ``timeout`` replaces the client's request timeout for slow requests. Race
        replies and their events also reach ``on_race``/``on_event``, and the race
        is watched from then on (resumed after a reconnect).

        Raises:
            ServerError: the server's error reply, or ``connection_lost``/``timeout``/
                ``bad_reply``.
        """
        if actor is not None:
            message = msgspec.structs.replace(message, act_as=actor.act_as())
        safe = isinstance(message, READS) or getattr(message, "move_id", None) is not None
        for attempt in (1, 2):
            if not self._ready.is_set():
                try:
                    await self.wait_ready(min(self.ready_wait, self.request_timeout))
                except TimeoutError:
                    raise ServerError("connection_lost") from None
                except FatalClientError as err:
                    raise ServerError("connection_lost", str(err)) from None
            try:
                reply = await self._send_and_wait(message, timeout)
                break
            except (ServerError, TimeoutError, FatalClientError) as err:
                code = getattr(err, "code", "timeout" if isinstance(err, TimeoutError) else "")
                if isinstance(err, FatalClientError):
                    raise ServerError("connection_lost", str(err)) from None
                if code == "connection_lost" and safe and attempt == 1:
                    continue
                if isinstance(err, ServerError):
                    raise
                raise ServerError("timeout") from None
        if isinstance(reply, p.RaceReply) and actor is not None:
            watch = self.watches.setdefault(reply.race.race, Watch(actor))
            watch.last_seq = max(watch.last_seq, reply.race.seq)
            self._take_race_reply(reply)
        return reply

    async def _send_and_wait(
        self, message: p.ClientMessage, timeout: float | None = None
    ) -> p.ServerMessage:
        for pause in (0.25, 0.5, 1.0, 2.0, None):
            try:
                return await self._send_once(message, timeout or self.request_timeout)
            except ServerError as err:
                if err.code != "rate_limited" or pause is None:
                    raise
                await asyncio.sleep(pause)
        raise AssertionError("unreachable")

    async def _send_once(self, message: p.ClientMessage, timeout: float) -> p.ServerMessage:
        await self.pacer.wait()
        websocket = self._websocket
        if websocket is None:
            raise ServerError("connection_lost")
        self._next_id += 1
        request_id = self._next_id
        future: asyncio.Future[p.ServerMessage] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        frame = _requests.encode(msgspec.structs.replace(message, id=request_id))
        try:
            await websocket.send(frame, text=True)
            async with asyncio.timeout(timeout):
                reply = await future
        except ConnectionClosed:
            raise ServerError("connection_lost") from None
        except TimeoutError:
            raise ServerError("timeout") from None
        finally:
            self._pending.pop(request_id, None)
        if isinstance(reply, p.ErrorMessage):
            view = None if reply.view is None else msgspec.to_builtins(reply.view)
            raise ServerError(reply.code, reply.message, reply.details, view)
        return reply

    def _fail_pending(self) -> None:
        for future in self._pending.values():
            if not future.done():
                future.set_exception(ServerError("connection_lost"))
        self._pending.clear()

    # ------------------------------------------------------------ inbound

    async def _read(self, websocket: ClientConnection) -> None:
        async for frame in websocket:
            try:
                message = _replies.decode(frame)
            except msgspec.DecodeError as err:  # not JSON, or not a server message
                self._drop(frame, err)
                continue
            if isinstance(message, p.Event):
                self._take_event(message)
                continue
            future = self._pending.get(message.id) if isinstance(message.id, int) else None
            if future is not None and not future.done():
                future.set_result(message)
            elif isinstance(message, p.ErrorMessage):
                log.warning("server error without request: %s", message.code)
            elif isinstance(message, p.ArenaEvent):
                if self.on_arena is not None:
                    self.on_arena(message)
            elif message.id is None and self.on_notice is not None:
                self.on_notice(message)

    def _drop(self, frame: str | bytes, error: msgspec.DecodeError) -> None:
        """A frame that breaks the protocol: logged and dropped; the request it answers,
        if one can be told, fails at once instead of waiting for its timeout."""
        log.warning("dropped a frame the protocol does not allow: %s", error)
        request_id = p.request_id_of(frame)
        future = self._pending.get(request_id) if isinstance(request_id, int) else None
        if future is not None and not future.done():
            future.set_exception(ServerError("bad_reply", str(error)))

    def _take_event(self, event: p.Event) -> None:
        watch = self.watches.get(event.race)
        if watch is not None:
            if event.seq <= watch.last_seq:
                return  # already seen (a resume overlapping live events)
            watch.last_seq = event.seq
            if isinstance(event.event, p.EndEvent):
                del self.watches[event.race]
        if self.on_event is not None:
            self.on_event(event)

    def _take_race_reply(self, reply: p.RaceReply | p.EventsReply) -> None:
        if isinstance(reply, p.EventsReply):
            for event in reply.events:
                self._take_event(event)
            return
        info = reply.race
        watch = self.watches.get(info.race)
        if watch is not None:
            watch.last_seq = max(watch.last_seq, info.seq)
            if info.state == "finished":
                del self.watches[info.race]
        if self.on_race is not None:
            self.on_race(info)


class Pacer:
    """A token bucket on the sending side: ``rate`` messages a second, ``burst`` at once."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()
        self._lock = asyncio.Lock()

    async def wait(self) -> None:
        """Return when one more message may be sent."""
        async with self._lock:
            while True:
                now = time.monotonic()
                self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
                self.stamp = now
                if self.tokens >= 1.0:
                    self.tokens -= 1.0
                    return
                await asyncio.sleep((1.0 - self.tokens) / self.rate)


def _report_crash(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("arena client crashed", exc_info=task.exception())
