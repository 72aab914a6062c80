"""Several server processes behind one port: ``solitaire serve --processes N``.

One Python process uses one core. To use more, the front process starts N worker
processes (each a whole ``ArenaServer`` on the shared database), listens on the
public port, and hands every accepted connection to a worker: it peeks at the first
line of the HTTP request without reading it (``MSG_PEEK``), picks the worker
(server/transport/routing.py: a race's players all land on the race's home), and passes the
socket itself over a Unix socket (``SCM_RIGHTS``). The worker then does the WebSocket
handshake as if it had accepted the connection, so clients see a single server.

The front owns the embedded PostgreSQL (when no URL is configured) and runs the
migrations once. The workers' race events travel over NATS (server/transport/fanout.py):
the configured one, else a nats-server the front starts for them
(server/transport/broker.py). SIGTERM or SIGINT stops it accepting and sends SIGTERM to every
worker, which shuts down gracefully (app.py). When a worker dies, the front stops
the others and exits with status 1, for the service manager to restart it all.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import multiprocessing
import multiprocessing.connection
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from multiprocessing.process import BaseProcess

import structlog

from server.core.place import Place
from server.ops.config import ServerConfig
from server.ops.logs import configure_logging
from server.services.lifeline import spawning_deaf_to_ctrl_c
from server.store.database import provide_database
from server.store.migrations import migrate
from server.transport.app import ArenaServer, run_event_loop, stop_signal, tune_garbage_collector
from server.transport.broker import nats_server
from server.transport.routing import chosen_process

log = structlog.get_logger(__name__)

# Bytes peeked for the request line, and the seconds a client has to send it.
REQUEST_LINE_BYTES = 2048
REQUEST_LINE_TIMEOUT = 10.0
READY = b"ready"


async def serve_processes(config: ServerConfig) -> int:
    """Start the workers, then accept and hand over connections until SIGTERM or
    SIGINT; the exit status (1 when a worker died)."""
    configure_logging(config.log_json)
    stop = stop_signal()
    # Listen first: a port that is taken fails the start before anything else has begun.
    # Connections wait in the backlog until the workers are ready.
    listener = socket.create_server((config.host, config.port), backlog=4096)
    listener.setblocking(False)
    async with (
        provide_database(config.database_url, config.data_dir) as url,
        _nats(config) as nats_url,
    ):
        config = replace(config, nats_url=nats_url)
        await migrate(url)
        count = config.processes
        workers = [_Worker(config, url, worker_place(config, i)) for i in range(count)]
        try:
            await asyncio.gather(*(worker.ready() for worker in workers))
            front = asyncio.create_task(_accept(listener, workers, config.hosts))
            died = asyncio.create_task(_first_death(workers))
            waiting = asyncio.create_task(stop.wait())
            log.info("serving", host=config.host, port=config.port, processes=len(workers))
            await asyncio.wait([died, waiting], return_when=asyncio.FIRST_COMPLETED)
            front.cancel()
            listener.close()
            status = 0 if stop.is_set() else 1
            if status:
                log.error("worker_died", exit_codes=[w.process.exitcode for w in workers])
            log.info("shutting_down")
            died.cancel()
            waiting.cancel()
        finally:
            await asyncio.gather(*(worker.stop(config.shutdown_timeout + 5) for worker in workers))
    log.info("stopped")
    return status


@contextlib.asynccontextmanager
async def _nats(config: ServerConfig) -> AsyncIterator[str]:
    """The NATS the workers share: the configured one, else one of the front's own."""
    if config.nats_url is not None:
        yield config.nats_url
        return
    async with nats_server() as url:
        log.info("nats_started", url=url)
        yield url


class _Worker:
    """One worker process and the Unix socket the front hands connections over."""

    def __init__(self, config: ServerConfig, url: str, place: Place) -> None:
        self.place = place
        self.channel, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.channel.setblocking(False)
        context = multiprocessing.get_context("spawn")
        self.process: BaseProcess = context.Process(
            target=run_worker,
            args=(config, url, place, theirs),
            name=f"solitaire-worker-{place.index}",
        )
        # Ctrl-C reaches every process of a terminal's job: the worker keeps SIGINT
        # blocked (no traceback while it starts) and stops on the front's SIGTERM.
        with spawning_deaf_to_ctrl_c():
            self.process.start()
        theirs.close()

    async def ready(self) -> None:
        """Wait until the worker serves (its database pool open, its races loaded)."""
        message = await asyncio.get_running_loop().sock_recv(self.channel, 64)
        if message != READY:
            raise RuntimeError(f"worker {self.place.index} did not start")

    async def hand_over(self, connection: socket.socket) -> None:
        """Pass the connection's socket to the worker."""
        loop = asyncio.get_running_loop()
        while True:
            try:
                socket.send_fds(self.channel, [b"c"], [connection.fileno()])
                return
            except BlockingIOError:
                await _ready_for(loop.add_writer, loop.remove_writer, self.channel)

    async def stop(self, timeout: float) -> None:
        """SIGTERM, then wait for a graceful exit; kill after ``timeout`` seconds."""
        if self.process.is_alive():
            self.process.terminate()
        await asyncio.to_thread(self.process.join, timeout)
        if self.process.is_alive():
            self.process.kill()
            await asyncio.to_thread(self.process.join)
        self.channel.close()


def worker_place(config: ServerConfig, worker: int) -> Place:
    """Worker ``worker``'s place among every process of every host: races created
    there get ids with ``id % hosts == host_index`` (the proxy's pick of host) and
    ``id // hosts % processes == worker`` (the front's pick of worker)."""
    return Place(config.host_index + config.hosts * worker, config.hosts * config.processes)


async def _accept(listener: socket.socket, workers: list[_Worker], hosts: int) -> None:
    loop = asyncio.get_running_loop()
    turns = itertools.count()
    handing: set[asyncio.Task[None]] = set()
    while True:
        connection, _ = await loop.sock_accept(listener)
        task = loop.create_task(_route(connection, workers, hosts, next(turns)))
        handing.add(task)
        task.add_done_callback(handing.discard)


async def _route(connection: socket.socket, workers: list[_Worker], hosts: int, turn: int) -> None:
    """Give a new connection to its worker; close our copy of the socket either way."""
    with connection:
        try:
            line = await asyncio.wait_for(_request_line(connection), REQUEST_LINE_TIMEOUT)
            if line is None:
                return  # closed before a word was said
            chosen = chosen_process(line, len(workers), turn, hosts)
            await workers[chosen].hand_over(connection)
        except (TimeoutError, OSError) as err:
            log.info("connection_dropped", reason=repr(err))


async def _request_line(connection: socket.socket) -> bytes | None:
    """The request's first line, peeked at: the worker reads the request whole."""
    loop = asyncio.get_running_loop()
    while True:
        await _ready_for(loop.add_reader, loop.remove_reader, connection)
        head = connection.recv(REQUEST_LINE_BYTES, socket.MSG_PEEK)
        if not head:
            return None
        if b"\n" in head or len(head) == REQUEST_LINE_BYTES:
            return head.split(b"\n", 1)[0]
        await asyncio.sleep(0.005)  # part of a line: the rest is on its way


async def _ready_for(
    add: Callable[[int, Callable[[], object]], None],
    remove: Callable[[int], object],
    sock: socket.socket,
) -> None:
    """Wait until ``sock`` is readable (add_reader) or writable (add_writer)."""
    ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def wake() -> None:
        if not ready.done():
            ready.set_result(None)

    add(sock.fileno(), wake)
    try:
        await ready
    finally:
        remove(sock.fileno())


async def _first_death(workers: list[_Worker]) -> None:
    await asyncio.to_thread(
        multiprocessing.connection.wait, [worker.process.sentinel for worker in workers]
    )


# ---------------------------------------------------------------- in a worker


def run_worker(config: ServerConfig, url: str, place: Place, channel: socket.socket) -> None:
    """A worker process's body (spawned by the front)."""
    configure_logging(config.log_json)
    structlog.contextvars.bind_contextvars(process=place.index)
    run_event_loop(_work(config, url, place, channel))


async def _work(config: ServerConfig, url: str, place: Place, channel: socket.socket) -> int:
    stop = stop_signal()
    loop = asyncio.get_running_loop()
    # Its own server listens privately on a loopback port of its own, unused: websockets
    # refuses handshakes while its listening server is not serving, and clients come
    # through the front. Only the first worker prepares tomorrow's daily deals.
    own = replace(
        config,
        host="127.0.0.1",
        port=0,
        daily_prepare_ahead=config.daily_prepare_ahead and place.index == config.host_index,
    )
    adopting: set[asyncio.Task[None]] = set()
    async with ArenaServer(own, url, place) as server:
        tune_garbage_collector()
        channel.setblocking(False)

        def receive() -> None:
            while True:
                try:
                    _, fds, _, _ = socket.recv_fds(channel, 16, 1)
                except BlockingIOError:
                    return
                if not fds:  # the front is gone
                    stop.set()
                    return
                for fd in fds:
                    task = loop.create_task(server.adopt(socket.socket(fileno=fd)))
                    adopting.add(task)
                    task.add_done_callback(adopting.discard)

        loop.add_reader(channel.fileno(), receive)
        await loop.sock_sendall(channel, READY)
        await stop.wait()
        loop.remove_reader(channel.fileno())
    return 0
