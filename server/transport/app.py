"""The server process: start, serve WebSockets and two HTTP paths, shut down cleanly.

``ArenaServer`` owns every resource (database pool, group committer, race clock,
listening socket) and starts and stops them in order; tests run it in-process on
port 0, ``solitaire serve`` runs it until SIGTERM or SIGINT.

Shutdown (SIGTERM): stop accepting connections, commit every pending write, close
clients with 1001 (going away), then stop the committer and the pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import signal
import socket
from collections.abc import Callable, Coroutine
from http import HTTPStatus
from typing import Any, TypeVar

import asyncpg
import structlog
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.extensions.permessage_deflate import enable_server_permessage_deflate
from websockets.http11 import Request, Response
from websockets.server import ServerProtocol

from server.core.identity import TokenSigner
from server.core.place import ALONE, Place
from server.ops.config import ServerConfig
from server.ops.logs import configure_logging
from server.ops.metrics import Metrics
from server.protocol.errors import UnavailableError
from server.services.lease_keeper import LeaseKeeper
from server.services.wiring import Services, build_services, now_ms
from server.store.commit import GroupCommitter
from server.store.database import provide_database, redact
from server.store.migrations import migrate
from server.store.pool import open_pool
from server.store.storage import Storage
from server.transport import static
from server.transport.connection import Connection
from server.transport.fanout import NatsFanout
from server.transport.front_door import FrontDoor
from server.transport.handlers import routes
from server.transport.inbox import ArenaConnection
from server.transport.sign_in import SignInRoutes

log = structlog.get_logger(__name__)
T = TypeVar("T")

# Connections of the leases' own pool: renewals, sweeps for orphans, takes.
LEASE_CONNECTIONS = 2


class ArenaServer:
    """One running server on one database."""

    def __init__(
        self,
        config: ServerConfig,
        database_url: str,
        place: Place = ALONE,
        clock: Callable[[], int] = now_ms,
    ) -> None:
        self.config = config
        self.clock = clock
        self.database_url = database_url
        self.place = place
        # permessage-deflate, or nothing: for the connections this process accepts and
        # for those the front hands over (``adopt``) alike.
        self._extensions = enable_server_permessage_deflate(None) if config.compression else None
        self.metrics = Metrics()
        self._pool: asyncpg.Pool | None = None
        self._lease_pool: asyncpg.Pool | None = None
        self._keeper: LeaseKeeper | None = None
        self._server: Server | None = None
        self._tasks: list[asyncio.Task[Any]] = []
        self.services: Services | None = None
        self.committer: GroupCommitter | None = None
        # New connections per address, and Sign in with Discord, over HTTP.
        self.front_door: FrontDoor | None = None

    @property
    def port(self) -> int:
        """The port actually listened on (useful with port 0)."""
        assert self._server is not None
        return int(self._server.sockets[0].getsockname()[1])

    @property
    def url(self) -> str:
        """The WebSocket URL of this server."""
        return f"ws://{self.config.host}:{self.port}/"

    async def start(self) -> None:
        """Migrate the database, load unfinished races, and listen."""
        await migrate(self.database_url)
        self._pool = await open_pool(self.database_url, self.config.pool_size)
        # The leases' own connections: a renewal that queued behind the players' queries
        # on a busy pool could come too late, and the process's races would change hands.
        self._lease_pool = await open_pool(self.database_url, LEASE_CONNECTIONS)
        storage = Storage(self._pool)
        signer = TokenSigner(await storage.secret())
        self.committer = GroupCommitter(
            self._pool,
            self.metrics,
            self.config.max_commit_batch,
            self.config.commits_in_flight,
            self.config.store_retry_seconds,
            self.config.commit_gather_ms / 1000,
        )
        fanout = None
        if self.config.nats_url is not None:
            # Before anything is served: a process that cannot hear the others' race
            # events must not serve their players.
            fanout = NatsFanout(self.config.nats_url, name=f"solitaire-{self.place.index}")
            await fanout.start()
        services = self.services = build_services(
            storage,
            self.committer,
            self.metrics,
            self.config,
            self.clock,
            self.place,
            fanout,
            self._lease_pool,
        )
        routed = routes(services)
        sign_in = SignInRoutes(self.config, services.accounts, signer, self.clock)
        self.front_door = FrontDoor(services.limits, sign_in, self.metrics)
        self.metrics.sizes["solitaire_games_cached"] = (
            "Games held replayed in memory.",
            lambda: len(services.games),
        )
        self.metrics.sizes["solitaire_races_held"] = (
            "Races held in memory (unfinished ones stay until they end).",
            lambda: len(services.hosting.rooms),
        )
        self._tasks.append(asyncio.create_task(self.committer.run(), name="group-commit"))
        if fanout is not None:
            fanout.deliver_to(services.following)
            self._tasks.append(asyncio.create_task(fanout.run(), name="race-fanout"))
        resumed = await services.hosting.resume_open_races()
        for name, work in services.race_tasks().items():
            self._tasks.append(asyncio.create_task(work, name=name))
        self._keeper = LeaseKeeper(
            services.leases, self.database_url, self.config.lease_stall_seconds
        )
        self._keeper.start()
        reviews = services.fair_play.review_pending()  # what a stop left unreviewed
        self._tasks.append(asyncio.create_task(reviews, name="fair-play-review"))
        self._tasks.append(asyncio.create_task(services.ratings.run(), name="ratings"))
        matches = services.quick_match.run()
        self._tasks.append(asyncio.create_task(matches, name="quick-match"))
        checks = services.winnability.run()
        self._tasks.append(asyncio.create_task(checks, name="winnability-checks"))
        self._tasks.append(asyncio.create_task(services.arenas.run_clock(), name="arena-clock"))
        self._tasks.append(asyncio.create_task(services.arena_push.run(), name="arena-push"))
        self._tasks.append(asyncio.create_task(services.watching.run(), name="watching"))
        self._tasks.append(asyncio.create_task(services.ghosts.run(), name="ghosts"))
        if self.config.daily_prepare_ahead:
            preparer = services.dailies.run_preparer()
            self._tasks.append(asyncio.create_task(preparer, name="daily-deals"))
        for task in self._tasks:
            task.add_done_callback(_report_crash)

        async def handler(websocket: ServerConnection) -> None:
            assert isinstance(websocket, ArenaConnection)  # ``create_connection`` below
            await Connection(websocket, services, routed, signer, self.config).run()

        self._server = await serve(
            handler,
            self.config.host,
            self.config.port,
            process_request=self._http,
            max_size=self.config.max_message_bytes,
            compression=None,
            extensions=self._extensions,
            ping_interval=self.config.ping_interval,
            ping_timeout=self.config.ping_timeout,
            create_connection=ArenaConnection,
        )
        log.info(
            "serving",
            host=self.config.host,
            port=self.port,
            database=redact(self.database_url),
            races_resumed=resumed,
        )

    async def adopt(self, sock: socket.socket) -> None:
        """Serve a connection the front process accepted (server/transport/processes.py).

        It joins this process's WebSocket server as if accepted here: the same
        handshake, handler, limits and shutdown.
        """
        assert self._server is not None
        server = self._server
        config = self.config

        def new_connection() -> ServerConnection:
            protocol = ServerProtocol(
                extensions=self._extensions, max_size=config.max_message_bytes
            )
            return ArenaConnection(
                protocol,
                server,
                ping_interval=config.ping_interval,
                ping_timeout=config.ping_timeout,
            )

        await asyncio.get_running_loop().connect_accepted_socket(new_connection, sock)

    async def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        """Plain HTTP on the WebSocket port: /livez, /healthz, /metrics, signing in."""
        if self.front_door is not None:  # server/transport/front_door.py
            answered = await self.front_door.respond(connection, request)
            if answered is not None:
                return answered
        path = request.path.split("?", 1)[0]
        if path == "/livez":
            # Liveness, apart from readiness: the process serves, whatever the database
            # does. A proxy checks this, so a database outage, which every host shares,
            # does not take every host out of the proxy: the connections in play keep
            # their session, and new ones are still taken (and told ``unavailable`` for
            # what needs the database).
            return connection.respond(HTTPStatus.OK, "alive\n")
        if path == "/healthz":
            return connection.respond(*await self.health())
        if path == "/metrics":
            response = connection.respond(HTTPStatus.OK, self.metrics.render())
            response.headers["Content-Type"] = "text/plain; version=0.0.4; charset=utf-8"
            return response
        return static.respond(request)

    async def health(self) -> tuple[HTTPStatus, str]:
        """``/healthz``: ``ok``, or ``degraded`` while the database does not answer.

        Degraded is 503: the process lives and keeps its clients' connections, but it
        answers changes with ``unavailable`` (after the group commit's retries) until the
        database is back; a load balancer should send new players elsewhere meanwhile.
        The database must answer ``select 1`` within 2 s on a pooled connection, which
        the pool opens anew once PostgreSQL is back.
        """
        assert self.services is not None
        try:
            answers = await self.services.storage.healthy()
        except (UnavailableError, asyncpg.PostgresError, TimeoutError):
            answers = False
        if answers:
            return HTTPStatus.OK, "ok\n"
        return HTTPStatus.SERVICE_UNAVAILABLE, "degraded: database unreachable, retrying\n"

    async def stop(self) -> None:
        """Stop accepting, commit what is pending, close clients with 1001, release all."""
        if self._server is not None:
            self._server.server.close()  # no new connections from here on
        if self.committer is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.committer.submit(), self.config.shutdown_timeout)
        if self._server is not None:
            self._server.close()  # 1001 going away, waits for the handlers
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._server.wait_closed(), self.config.shutdown_timeout)
        if self.committer is not None:
            self.committer.close()
        for task in self._tasks:
            if task.get_name() == "group-commit":
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(task, self.config.shutdown_timeout)
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await task
        self._tasks.clear()
        if self._keeper is not None:
            self._keeper.stop()
        if self.services is not None:
            # Others take the races at once; if the database cannot be reached in time,
            # they take them when the leases run out.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.services.leases.release(), self.config.shutdown_timeout)
            await self.services.close()
        for pool in (self._pool, self._lease_pool):
            if pool is None:
                continue
            # A connection some task still holds must not keep the stop waiting for ever.
            try:
                await asyncio.wait_for(pool.close(), self.config.shutdown_timeout)
            except TimeoutError:
                log.warning("pool_terminated")
                pool.terminate()
        log.info("stopped")

    async def __aenter__(self) -> ArenaServer:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()


def _report_crash(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("task_crashed", task=task.get_name(), error=repr(task.exception()))


# Allocations between two young-generation collections (Python's default is 700).
GC_YOUNG_THRESHOLD = 50_000


def tune_garbage_collector() -> None:
    """Look for reference cycles far less often than Python does by default.

    A move allocates hundreds of tracked objects (positions, the view, futures), so
    with the default thresholds the collector ran dozens of times a second and, as
    the cached games grew, kept walking the whole heap: a third of the server's CPU
    under load (docs/performance.md). The cycles the server makes (asyncio futures
    and tasks) are few and small, so collecting them every 50,000 allocations costs
    little memory. What exists after start-up is frozen: never garbage, never walked.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG_THRESHOLD, 20, 10)


def run_event_loop(main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` on uvloop (libuv's event loop: about twice the messages per core)."""
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is a dependency on Linux and macOS
        return asyncio.run(main)
    return uvloop.run(main)


def stop_signal() -> asyncio.Event:
    """An event set by SIGTERM or SIGINT, the signals every server process stops on."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    return stop


async def run(config: ServerConfig) -> None:
    """Serve until SIGTERM or SIGINT, on the configured or the embedded PostgreSQL."""
    configure_logging(config.log_json)
    stop = stop_signal()
    async with (
        provide_database(config.database_url, config.data_dir) as url,
        ArenaServer(config, url, Place(config.host_index, config.hosts)),
    ):
        tune_garbage_collector()
        await stop.wait()
        log.info("shutting_down")
