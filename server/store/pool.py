"""The server's connection pool, and how the store turns a lost database into an error.

Every store module (players, games and races in ``storage``, ``daily``, ``boards``,
``listings``, ``reviews``) wraps its reads and writes in ``guarded``, so callers see
``UnavailableError`` and never asyncpg's own errors; the group commit does the same
for its batches (``commit``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import ParamSpec, TypeVar

import asyncpg

from server.protocol.errors import UnavailableError

P = ParamSpec("P")
T = TypeVar("T")


def open_pool(database_url: str, max_size: int) -> asyncpg.Pool:
    """The server's connection pool (``async with`` or await it to open it).

    A connection going back to the pool keeps its session: asyncpg's default reset
    (``RESET ALL``, ``UNLISTEN *``, advisory locks released, cursors closed) costs a
    round trip to PostgreSQL on every release, a race created or joined makes several,
    and no pooled connection changes its session: no ``SET``, no advisory lock (the
    migrations take theirs on a connection of their own), no ``LISTEN`` (the fan-out
    has its own connection), no cursor outside a transaction. An open transaction is
    still rolled back, which asyncpg does before calling ``reset``.
    """
    return asyncpg.create_pool(
        database_url,
        min_size=2,
        max_size=max_size,
        reset=_keep_session,
        timeout=CONNECT_TIMEOUT,
    )


async def _keep_session(_connection: asyncpg.Connection) -> None:
    """Nothing to undo on release (see ``open_pool``)."""


# What a lost database looks like from asyncpg. A pooled connection whose server
# process was ended can also fail with InternalClientError ("cannot switch to state
# 15; another operation is in progress", asyncpg issue 1069); the pool then drops it
# on release, as it does every connection whose reset fails. A PostgreSQL that is
# stopping or starting answers with SQLSTATE class 57, operator intervention:
# ``AdminShutdownError`` to the sessions a shutdown ends, ``CannotConnectNowError``
# ("the database system is starting up") to a connection it is not ready for.
# OSError covers a refused or timed-out connection (TimeoutError is one).
DATABASE_LOST = (
    asyncpg.PostgresConnectionError,
    asyncpg.exceptions.OperatorInterventionError,
    asyncpg.InterfaceError,
    asyncpg.InternalClientError,
    OSError,
)

# Seconds a new connection may take before it counts as lost (asyncpg's default is 60:
# a PostgreSQL that accepts no connections would hold every request that long).
CONNECT_TIMEOUT = 10.0


def lost(err: BaseException) -> bool:
    """Whether ``err`` means the database (or the way to it) is gone, not a refusal."""
    return isinstance(err, DATABASE_LOST)


def guarded(func: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
    """``func`` with a lost database raised as ``UnavailableError``.

    Reads and the writes outside the group commit are not retried here: the request
    is answered ``unavailable`` at once, and the client asks again (a write that may
    have landed is not sent twice behind its back).
    """

    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return await func(*args, **kwargs)
        except DATABASE_LOST as err:
            raise UnavailableError() from err

    wrapper.__doc__ = func.__doc__
    wrapper.__name__ = func.__name__
    return wrapper


def to_ms(moment: datetime | None) -> int | None:
    """A timestamp as server milliseconds since the epoch."""
    return None if moment is None else round(moment.timestamp() * 1000)


def from_ms(ms: int | None) -> datetime | None:
    """Server milliseconds as a timestamp."""
    return None if ms is None else datetime.fromtimestamp(ms / 1000, tz=UTC)
