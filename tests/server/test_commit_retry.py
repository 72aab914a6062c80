"""The group commit across a cut connection: a commit whose reply was lost.

Between the committer and PostgreSQL sits a TCP relay of the test's own that can hold
back a request, or pass it on and swallow its reply, and then cut the connection: what
a PostgreSQL restart or a broken network does at the worst moment. The committer must
acknowledge a write only once it is committed, and commit it exactly once.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from functools import partial
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import asyncpg
import pytest

from server.core.session import MoveRow
from server.ops.metrics import Metrics
from server.protocol.errors import UnavailableError
from server.store.commit import GroupCommitter
from server.store.writes import Statement


class Relay:
    """A TCP relay to the PostgreSQL of ``database_url`` (over TCP, or its Unix socket as
    the embedded one has); ``arm`` makes it take the next request on a connection."""

    def __init__(self, database_url: str) -> None:
        self.database_url = database_url
        parts = urlsplit(database_url)
        socket_dir = dict(parse_qsl(parts.query)).get("host", "")
        port = parts.port or 5432
        if socket_dir.startswith("/"):
            socket = f"{socket_dir}/.s.PGSQL.{port}"
            self.connect = partial(asyncio.open_unix_connection, socket)
        else:
            self.connect = partial(asyncio.open_connection, parts.hostname or "127.0.0.1", port)
        self.armed = False
        self.forward = True  # pass the taken request on (it runs) or hold it back
        self.taken = asyncio.Event()  # a request was taken; the test says when to cut
        self.cut = asyncio.Event()
        self.server: asyncio.Server | None = None

    def arm(self, forward: bool) -> None:
        self.armed, self.forward = True, forward
        self.taken.clear()
        self.cut.clear()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await self.connect()
        swallowing = False

        async def replies() -> None:
            while data := await up_reader.read(65536):
                if not swallowing:
                    writer.write(data)
                    await writer.drain()
            writer.transport.abort()  # PostgreSQL closed its end: so does the relay

        answering = asyncio.create_task(replies())
        try:
            while data := await reader.read(65536):
                if self.armed:
                    self.armed = False
                    swallowing = True
                    if self.forward:
                        up_writer.write(data)
                        await up_writer.drain()
                    self.taken.set()
                    await self.cut.wait()
                    return
                up_writer.write(data)
                await up_writer.drain()
        finally:
            answering.cancel()
            writer.transport.abort()
            up_writer.transport.abort()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[str]:
        """Relay while in the block, which gets the database's URL through the relay."""
        self.server = await asyncio.start_server(self.handle, "127.0.0.1", 0)
        port = int(self.server.sockets[0].getsockname()[1])
        parts = urlsplit(self.database_url)
        query = urlencode([(k, v) for k, v in parse_qsl(parts.query) if k != "host"])
        async with self.server:
            yield urlunsplit(
                parts._replace(netloc=f"{parts.username}@127.0.0.1:{port}", query=query)
            )


async def stored(url: str, game: int) -> list[tuple[int, str | None]]:
    database = await asyncpg.connect(url)
    try:
        rows = await database.fetch("select seq, move_id from moves where game_id=$1", game)
    finally:
        await database.close()
    return sorted((row["seq"], row["move_id"]) for row in rows)


@pytest.mark.parametrize("forward", [True, False], ids=["committed", "never-sent"])
async def test_a_cut_commit_is_acknowledged_once_it_is_known_committed(
    migrated_database_url: str, forward: bool
) -> None:
    relay = Relay(migrated_database_url)
    async with (
        relay.running() as url,
        asyncpg.create_pool(url, min_size=1, max_size=2) as pool,
    ):
        committer = GroupCommitter(pool, Metrics(), retry_seconds=30)
        running = asyncio.create_task(committer.run())
        # The first commit prepares the statement: the next is sent in one request.
        await committer.submit([MoveRow(7, 0, "d", "first")])
        relay.arm(forward)
        write = committer.submit([MoveRow(7, 1, "d", "second")])
        await asyncio.wait_for(relay.taken.wait(), 30)
        if forward:
            for _ in range(300):  # it runs and commits; its reply never comes
                if (1, "second") in await stored(migrated_database_url, 7):
                    break
                await asyncio.sleep(0.05)
        assert not write.done()  # not acknowledged before the cut
        relay.cut.set()
        await asyncio.wait_for(write, 30)  # acknowledged, not a conflict with itself
        committer.close()
        await running
    assert await stored(migrated_database_url, 7) == [(0, "first"), (1, "second")]


async def test_a_cut_commit_of_statements_alone_is_not_sent_again(
    migrated_database_url: str,
) -> None:
    """Without rows to look up, a cut commit may or may not have landed: the write fails
    as ``unavailable`` rather than run twice or be acknowledged blind."""
    relay = Relay(migrated_database_url)
    async with (
        relay.running() as url,
        asyncpg.create_pool(url, min_size=1, max_size=2) as pool,
    ):
        await pool.execute("create table counted (n int)")
        await pool.execute("insert into counted values (0)")
        committer = GroupCommitter(pool, Metrics(), retry_seconds=30)
        running = asyncio.create_task(committer.run())
        count = Statement("update counted set n = n + 1", ())
        await committer.submit(statements=[count])
        relay.arm(forward=True)
        write = committer.submit(statements=[count])
        await asyncio.wait_for(relay.taken.wait(), 30)
        relay.cut.set()
        with pytest.raises(UnavailableError):
            await asyncio.wait_for(write, 30)
        await committer.submit(statements=[count])  # and on it goes
        committer.close()
        await running
        counted = await pool.fetchval("select n from counted")
    assert counted in (2, 3)  # the cut one ran at most once
