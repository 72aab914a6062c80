"""Group commit: one transaction carries the writes of every connection waiting.

A move is acknowledged only after its row is committed. Committing each move
alone would cost one transaction (and one WAL flush) per move; instead every
write joins a queue, and a single writer takes everything waiting, commits it in
one transaction with one ``unnest`` insert per table, and wakes the writers. The
writes of one batch commit together and in queue order, so events keep their
per-race order.

A move row whose ``(game_id, seq)`` is taken already means another connection
(or server process) of the same player moved first: that write fails with
``ConflictError`` and the rest of the batch is committed without it.

A race's event rows carry the fencing number of the lease their race's owner numbered
them under (sql/0140_lease_fences.sql), and are stored only while the race's lease has
no other number. A write whose events are refused so (another process took the race over) is
committed without them, its moves and all, and its future says so (``False``); one
with statements as well fails with ``ConflictError``, as its race changed meanwhile.

A lost database (PostgreSQL restarted, the connection cut) does not fail a batch at
once: the committer keeps its writes, unacknowledged, and tries again on a new
connection, for up to ``retry_seconds`` after the batch was formed, or after the
database was first found away (``away_since``) when that is later; past it each
write fails with ``UnavailableError``. A batch whose commit was cut after it was
sent may have landed: before it is sent again, its rows are looked up (``_landed``),
and a batch found stored is acknowledged, not written twice. A batch with no rows
(only statements, such as a practice game given up) cannot be looked up, so once
sent it is not sent again: it fails with ``UnavailableError``. Either way a write is
acknowledged only once it is known to be committed.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass

import asyncpg
import structlog
from asyncpg.pool import PoolConnectionProxy

from server.core.session import MoveRow
from server.ops.metrics import Metrics
from server.protocol.errors import ConflictError, UnavailableError
from server.store.commit_rows import (
    INSERT_ALL,
    INSERT_EVENTS,
    INSERT_MOVES,
    LANDED,
    EventRow,
    columns,
)
from server.store.pool import lost
from server.store.writes import Statement

log = structlog.get_logger(__name__)

# While a commit is under way, the next one starts only once this many writes wait:
# a lone write waits for the running commit instead (about one WAL flush), so under
# a steady load each commit carries several moves rather than one, which saves the
# server and PostgreSQL a transaction per move. Under heavy load the queue fills at
# once and the commits overlap again.
PIPELINE_WRITES = 16

# An idle committer that is handed a write waits this long for others (or until
# PIPELINE_WRITES wait) before it commits: at a steady, light load the writes of a
# process arrive one by one, and each would otherwise get a transaction of its own.
# Only when the write came within this long of the one before: a lone player's moves
# (a practice game, a quiet server) are committed at once, as nothing would join them.
# An acknowledgement under load waits up to this much longer; the server's setting is
# ``commit_gather_ms`` (docs/operations.md).
GATHER_SECONDS = 0.008

# The pause before trying a lost database again, doubled after each try up to the last.
RETRY_PAUSES = (0.05, 0.1, 0.2, 0.5, 1.0)
# Seconds a batch is tried at least while the database is known away: a few tries, so
# that the first batch after an outage gets past a connection that died in it.
RETRY_AT_LEAST = 0.5


@dataclass(slots=True)
class Write:
    """What one request needs committed; statements run after the inserts, in order."""

    moves: Sequence[MoveRow]
    events: Sequence[EventRow]
    statements: Sequence[Statement]
    done: asyncio.Future[bool]


class GroupCommitter:
    """The single writer behind every acknowledged change."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        metrics: Metrics,
        max_batch: int = 2000,
        in_flight: int = 1,
        retry_seconds: float = 5.0,
        gather_seconds: float = GATHER_SECONDS,
    ) -> None:
        self._pool = pool
        self._gather_seconds = gather_seconds
        # While the committer gathers: the future that ends the gathering early, once
        # PIPELINE_WRITES wait (``submit``).
        self._gathering: asyncio.Future[None] | None = None
        # When the last write came (loop time), and whether it came within
        # ``gather_seconds`` of the one before: only then is it worth gathering for.
        self._last_write_at = -math.inf
        self._writes_close = False
        self._metrics = metrics
        self._retry_seconds = retry_seconds
        # Since when (loop time) commits have failed for a lost database; None while
        # they succeed. /healthz reports the server degraded meanwhile.
        self.away_since: float | None = None
        # Names this process among the holders of race leases (server/store/leases.py).
        self.origin = secrets.token_hex(6)
        self._max_batch = max_batch
        # Connections of our own, kept out of the pool: releasing a pooled connection
        # costs a reset round trip per batch. None stands for one to (re)open.
        self._connections: asyncio.Queue[PoolConnectionProxy | None] = asyncio.Queue()
        for _ in range(in_flight):
            self._connections.put_nowait(None)
        self._held: list[PoolConnectionProxy] = []
        self._queue: list[Write] = []
        # Set by each new write and by each finished commit.
        self._wake = asyncio.Event()
        self._committing = 0  # commits under way
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closing = False

    def submit(
        self,
        moves: Sequence[MoveRow] = (),
        events: Sequence[EventRow] = (),
        statements: Sequence[Statement] = (),
    ) -> asyncio.Future[bool]:
        """Queue these rows; the future is done once they are committed.

        The future itself is returned, not a coroutine awaiting it: every move waits
        on one, and a coroutine more in its chain is resumed for every move too.

        Raises (from the future):
            ConflictError: a move row's key was taken by another connection.
            UnavailableError: the database failed; nothing of this write was kept.
        """
        loop = self._event_loop()
        now = loop.time()
        self._writes_close = now - self._last_write_at < self._gather_seconds
        self._last_write_at = now
        write = Write(moves, events, statements, loop.create_future())
        self._queue.append(write)
        self._wake.set()
        if self._gathering is not None and len(self._queue) >= PIPELINE_WRITES:
            self._end_gathering()
        # No shield: a cancelled caller cancels only its own future, which the committer
        # skips; its rows stay in the batch (cheaper than a shield on every move).
        return write.done

    def _event_loop(self) -> asyncio.AbstractEventLoop:
        """The loop the committer runs on, found once: asking asyncio for the running
        loop costs a system call (``getpid``) each time, and every write asks."""
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        return self._loop

    @property
    def pending(self) -> int:
        """Writes waiting for the next batch."""
        return len(self._queue)

    async def run(self) -> None:
        """Commit batches until ``close()`` and the queue is empty.

        Up to ``in_flight`` batches commit at once (PostgreSQL then flushes their
        WAL together), a second one only once ``PIPELINE_WRITES`` writes wait; their
        writers are woken strictly in queue order, so
        replies and race events still leave in the order they were queued. Writes
        that must not overtake each other never share a moment in flight anyway: a
        game's next move waits for the commit of its last.
        """
        previous: asyncio.Future[None] | None = None
        try:
            async with asyncio.TaskGroup() as group:
                while True:
                    if not self._queue:
                        if self._closing:
                            return
                        self._wake.clear()
                        await self._wake.wait()
                        if self._queue and not self._committing and self._writes_close:
                            await self._gather()
                        continue
                    if self._committing and len(self._queue) < PIPELINE_WRITES:
                        self._wake.clear()
                        await self._wake.wait()
                        continue
                    conn = await self._connections.get()
                    batch = self._queue[: self._max_batch]
                    del self._queue[: len(batch)]
                    resolved = self._event_loop().create_future()
                    self._committing += 1
                    deadline = self._retry_deadline()
                    group.create_task(self._commit(conn, batch, previous, resolved, deadline))
                    previous = resolved
        finally:
            for conn in self._held:
                await self._pool.release(conn)
            self._held.clear()

    async def _gather(self) -> None:
        """Let more writes join the first one of an idle spell: wait ``gather_seconds``,
        or until ``PIPELINE_WRITES`` wait (or the committer is closing)."""
        if self._closing or len(self._queue) >= PIPELINE_WRITES:
            return
        loop = self._event_loop()
        gathering = self._gathering = loop.create_future()
        timer = loop.call_later(self._gather_seconds, self._end_gathering)
        try:
            await gathering
        finally:
            timer.cancel()
            self._gathering = None

    def _end_gathering(self) -> None:
        if self._gathering is not None and not self._gathering.done():
            self._gathering.set_result(None)

    def _retry_deadline(self) -> float:
        """Until when a batch formed now may be tried again on a lost database.

        ``retry_seconds`` from now; but while the database is known away, from when it
        was found away, so that writes queued behind a failing batch do not wait a
        whole new round: during a long outage a write is tried for ``RETRY_AT_LEAST``
        seconds and then answered ``unavailable``. (The first batch that commits again
        ends the outage.)
        """
        now = self._event_loop().time()
        if self.away_since is None:
            return now + self._retry_seconds
        return now + max(RETRY_AT_LEAST, self.away_since + self._retry_seconds - now)

    def close(self) -> None:
        """Stop once every write already queued is committed (``run`` then returns)."""
        self._closing = True
        self._wake.set()
        self._end_gathering()

    async def _commit(
        self,
        conn: PoolConnectionProxy | None,
        batch: list[Write],
        previous: asyncio.Future[None] | None,
        resolved: asyncio.Future[None],
        deadline: float,
    ) -> None:
        started = time.perf_counter()
        failed: set[int] = set()
        unfenced: set[int] = set()  # writes committed without their events
        error: Exception | None = None
        sent = False  # whether an attempt may have reached the database
        pauses = iter(RETRY_PAUSES)
        loop = self._event_loop()
        while True:
            try:
                if conn is None:
                    conn = await self._pool.acquire()
                    self._held.append(conn)
                live = conn
                if previous is not None and any(write.statements for write in batch):
                    # Statements change rows (a race's state) that earlier writes may change
                    # too: they must land in queue order, so wait for everything before.
                    await previous
                if sent and await self._landed(live, batch, failed, unfenced):
                    break  # the cut commit had landed: acknowledge it, never write it twice
                sent = True
                done = await self._in_one_statement(live, batch)
                while not done:
                    try:
                        done = await self._transaction(live, batch, failed, unfenced)
                    except _Retry as retry:
                        # Commit the rest without the losers, so nothing of theirs is kept.
                        if retry.failed <= failed and retry.unfenced <= unfenced:
                            raise RuntimeError("a conflict names no new write") from retry
                        failed |= retry.failed
                        unfenced |= retry.unfenced
                break
            except Exception as err:  # the database (or the network to it) failed
                await self._drop(conn)
                conn = None
                pause = next(pauses, RETRY_PAUSES[-1])
                if not lost(err) or loop.time() + pause > deadline or self._closing:
                    error = err
                    log.error("commit_failed", error=repr(err), writes=len(batch))
                    break
                if self.away_since is None:
                    self.away_since = loop.time()
                    log.warning("database_away", error=repr(err), writes=len(batch))
                await asyncio.sleep(pause)
        if error is None and self.away_since is not None:
            log.info("database_back", away_s=round(loop.time() - self.away_since, 3))
            self.away_since = None
        self._connections.put_nowait(conn)
        self._committing -= 1
        self._wake.set()
        if error is None:
            self._metrics.observe_commit(time.perf_counter() - started, len(batch))
        try:
            if previous is not None:
                await previous
            for index, write in enumerate(batch):
                if write.done.done():
                    continue
                if error is not None:
                    write.done.set_exception(UnavailableError())
                elif index in failed:
                    write.done.set_exception(ConflictError())
                else:
                    write.done.set_result(index not in unfenced)
        finally:
            resolved.set_result(None)

    async def _drop(self, conn: PoolConnectionProxy | None) -> None:
        """Give a failed connection back to the pool, which opens a new one when next asked."""
        if conn is not None:
            self._held.remove(conn)
            with contextlib.suppress(Exception):  # a dead connection may fail its release
                await self._pool.release(conn)
        return None

    async def _landed(
        self, conn: PoolConnectionProxy, batch: list[Write], skip: set[int], unfenced: set[int]
    ) -> bool:
        """Whether an earlier, cut attempt at this batch was committed after all.

        A batch commits whole or not at all, so its rows are all stored, with the same
        content, or none of them are (rows another connection took are found as
        conflicts when the batch is written again).

        Raises:
            UnavailableError: the batch has no rows to look for (only statements).
        """
        kept = [(index, write) for index, write in enumerate(batch) if index not in skip]
        moves = [row for _, write in kept for row in write.moves]
        events = [row for index, write in kept if index not in unfenced for row in write.events]
        if not moves and not events:
            raise _Unknown()
        row = await conn.fetchrow(LANDED, *columns(moves, events))
        assert row is not None
        return bool(row[0] == len(moves) and row[1] == len(events))

    async def _in_one_statement(self, conn: PoolConnectionProxy, batch: list[Write]) -> bool:
        """Commit a batch of only moves and events in one round trip; whether it did."""
        if any(write.statements for write in batch):
            return False
        moves = [row for write in batch for row in write.moves]
        events = [row for write in batch for row in write.events]
        try:
            await conn.fetchval(
                INSERT_ALL,
                *columns(moves, events),
                [e.at for e in events],
                len(events),
                [e.fence for e in events],
            )
        except (asyncpg.UniqueViolationError, asyncpg.DivisionByZeroError):
            return False  # some move or event lost its key to another connection
        return True

    async def _transaction(
        self, conn: PoolConnectionProxy, batch: list[Write], skip: set[int], unfenced: set[int]
    ) -> bool:
        """Insert the batch minus ``skip``, and the events of none of ``unfenced`` (True),
        or raise ``_Retry`` naming the writes that conflicted or whose events were
        refused."""
        owners: dict[tuple[int, int], int] = {}
        games: list[int] = []
        seqs: list[int] = []
        actions: list[str] = []
        move_ids: list[str | None] = []
        for index, write in enumerate(batch):
            if index in skip:
                continue
            for row in write.moves:
                owners[(row.game_id, row.seq)] = index
                games.append(row.game_id)
                seqs.append(row.seq)
                actions.append(row.action)
                move_ids.append(row.move_id)
        async with conn.transaction():
            if games:
                inserted = await conn.fetch(INSERT_MOVES, games, seqs, actions, move_ids)
                kept = {(r["game_id"], r["seq"]) for r in inserted}
                failed = {owner for key, owner in owners.items() if key not in kept}
                if failed:
                    raise _Retry(failed)
            dropped = skip | unfenced
            events = [row for i, w in enumerate(batch) if i not in dropped for row in w.events]
            if events:
                stored = await conn.fetch(
                    INSERT_EVENTS,
                    [e.race_id for e in events],
                    [e.seq for e in events],
                    [e.kind for e in events],
                    [e.body for e in events],
                    [e.at for e in events],
                    [e.fence for e in events],
                )
                if len(stored) < len(events):
                    # Another process owns the race now (its lease has another fencing
                    # number, or it numbered these events first): the events are its to
                    # make. A write with statements changed the race too: it conflicts.
                    refused = {(e.race_id, e.seq) for e in events} - {
                        (r["race_id"], r["seq"]) for r in stored
                    }
                    losers = {
                        i
                        for i, w in enumerate(batch)
                        if any((e.race_id, e.seq) in refused for e in w.events)
                    }
                    raise _Retry(
                        {i for i in losers if batch[i].statements},
                        {i for i in losers if not batch[i].statements},
                    )
            for index, write in enumerate(batch):
                if index not in skip:
                    for statement in write.statements:
                        if statement.must_change_row:
                            # compare-and-set: no row back means someone else changed it
                            if not await conn.fetch(statement.sql, *statement.args):
                                raise _Retry({index})
                        else:
                            await conn.execute(statement.sql, *statement.args)
        return True


class _Unknown(Exception):
    """A cut commit of statements alone, which cannot be looked up: not sent again."""

    def __init__(self) -> None:
        super().__init__("a cut commit of statements alone may have landed")


class _Retry(Exception):
    """Raised inside the transaction to roll it back when some moves conflicted
    (``failed``), or some events were refused (``unfenced``: kept without them)."""

    def __init__(self, failed: set[int], unfenced: frozenset[int] | set[int] = frozenset()) -> None:
        super().__init__(f"{len(failed)} conflicting writes, {len(unfenced)} refused events")
        self.failed = failed
        self.unfenced = set(unfenced)
