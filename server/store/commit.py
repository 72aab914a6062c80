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
from datetime import datetime
from typing import Any, NamedTuple

import asyncpg
import structlog
from asyncpg.pool import PoolConnectionProxy

from server.core.session import MoveRow
from server.ops.metrics import Metrics
from server.protocol.errors import ConflictError, UnavailableError
from server.store.pool import lost
from server.store.writes import Statement

log = structlog.get_logger(__name__)

INSERT_MOVES = """
    insert into moves (game_id, seq, action, move_id)
    select * from unnest($1::bigint[], $2::int[], $3::text[], $4::text[])
    on conflict do nothing
    returning game_id, seq
"""

# The common batch (moves and events, no other statements) in one statement, so one
# round trip commits it. If a move row conflicts, its insert fails on the moves' key;
# if an event row does, the last line divides by zero. Either rolls the whole
# statement back, and the batch is then done the careful way, which finds the losers.
# (PostgreSQL runs a data-modifying WITH part once whether or not it is read.)
INSERT_ALL = """
    with logged as (
        insert into moves (game_id, seq, action, move_id)
        select * from unnest($1::bigint[], $2::int[], $3::text[], $4::text[])
    ), events as (
        insert into race_events (race_id, seq, kind, body, at)
        select * from unnest($5::bigint[], $6::int[], $7::text[], $8::jsonb[], $9::timestamptz[])
        on conflict do nothing
        returning 1
    ), notified as (
        select pg_notify('solitaire_race_events', notice) from unnest($11::text[]) as notice
    )
    select 1 / (1 - sign($10::int - (select count(*) from events)))::int
        + 0 * (select count(*) from notified)
"""

# Other server processes LISTEN here (server.transport.fanout). A notice names each race with its
# last event, "<origin>:<race id>:<last seq>,<race id>:<last seq>,...", split in several
# only when long: every listener pays for each notice it receives, its own included.
CHANNEL = "solitaire_race_events"
NOTICE_BYTES = 7000  # PostgreSQL refuses payloads of 8000 bytes and more
# A notice wakes the listening connection of every server process (its sender's too)
# and a PostgreSQL backend for each, whatever it names. Sent with every commit that
# stored events, notices were most of what a race event cost (docs/performance.md), so
# the events committed within this many seconds share one: another process's watchers
# see a race's events up to that much later. That gathering is for load only: while
# commits are small (fewer than PIPELINE_WRITES writes waiting), notices may follow
# each other after NOTICE_QUICK_SECONDS, so a race's events reach other processes
# about as soon as its own (bench/fanout_hosts.py), at most 100 notices a second.
NOTICE_SECONDS = 0.05
NOTICE_QUICK_SECONDS = 0.01
NOTIFY = "select pg_notify($1, notice) from unnest($2::text[]) as notice"

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

# Which of a batch's rows are stored already, with the same content: asked only after
# a commit was cut, to tell a batch that landed from one that did not.
LANDED = """
    select
        (select count(*)
         from unnest($1::bigint[], $2::int[], $3::text[], $4::text[])
             as b(game_id, seq, action, move_id)
         join moves m using (game_id, seq)
         where m.action = b.action and m.move_id is not distinct from b.move_id),
        (select count(*)
         from unnest($5::bigint[], $6::int[], $7::text[], $8::jsonb[])
             as b(race_id, seq, kind, body)
         join race_events e using (race_id, seq)
         where e.kind = b.kind and e.body = b.body)
"""

# The pause before trying a lost database again, doubled after each try up to the last.
RETRY_PAUSES = (0.05, 0.1, 0.2, 0.5, 1.0)
# Seconds a batch is tried at least while the database is known away: a few tries, so
# that the first batch after an outage gets past a connection that died in it.
RETRY_AT_LEAST = 0.5

INSERT_EVENTS = """
    insert into race_events (race_id, seq, kind, body, at)
    select * from unnest($1::bigint[], $2::int[], $3::text[], $4::jsonb[], $5::timestamptz[])
    on conflict do nothing
    returning race_id, seq
"""


class EventRow(NamedTuple):
    """One race event, as JSON text."""

    race_id: int
    seq: int
    kind: str
    body: str
    at: datetime


class Notices:
    """The change notices this process owes: each race with its last committed event.

    A commit sends them (with its own) once ``NOTICE_SECONDS`` have passed since the
    last were sent, or ``NOTICE_QUICK_SECONDS`` under a light load; otherwise it adds
    its races to those waiting, and the committer sends them on their own when no
    commit comes in time (``GroupCommitter.run``).
    """

    def __init__(self, origin: str) -> None:
        self.origin = origin
        self.waiting: dict[int, int] = {}
        self.sent_at = float("-inf")

    def due(self, now: float, light: bool = False) -> bool:
        """Whether notices may go out now (``light``: few writes wait to be committed)."""
        return now - self.sent_at >= self.gap(light)

    @staticmethod
    def gap(light: bool) -> float:
        """The least time between two notices: short unless under load."""
        return NOTICE_QUICK_SECONDS if light else NOTICE_SECONDS

    def plan(self, events: Sequence[EventRow], due: bool) -> tuple[list[str], dict[int, int]]:
        """The notice texts a commit of ``events`` sends (none unless ``due``), and the
        races with their last events that the commit settles (``settle``)."""
        last = dict(self.waiting) if due else {}
        for event in events:
            if event.seq > last.get(event.race_id, 0):
                last[event.race_id] = event.seq
        return (self.texts(last) if due and last else []), last

    def settle(self, last: dict[int, int], sent: bool, now: float) -> None:
        """After a commit: the races of ``last`` were noticed (``sent``) or now wait."""
        if not last:
            return  # nothing was due: the next events may go out at once
        if sent:
            for race, seq in last.items():
                if self.waiting.get(race, 0) <= seq:
                    self.waiting.pop(race, None)
            self.sent_at = now
        else:
            for race, seq in last.items():
                if seq > self.waiting.get(race, 0):
                    self.waiting[race] = seq

    def texts(self, last: dict[int, int]) -> list[str]:
        """The notices naming these races: "<origin>:<race>:<seq>,...", split when long."""
        notices: list[str] = []
        pairs: list[str] = []
        size = 0
        for race, seq in last.items():
            pair = f"{race}:{seq}"
            if pairs and size + len(pair) > NOTICE_BYTES:
                notices.append(f"{self.origin}:{','.join(pairs)}")
                pairs, size = [], 0
            pairs.append(pair)
            size += len(pair) + 1
        if pairs:
            notices.append(f"{self.origin}:{','.join(pairs)}")
        return notices


@dataclass(slots=True)
class Write:
    """What one request needs committed; statements run after the inserts, in order."""

    moves: Sequence[MoveRow]
    events: Sequence[EventRow]
    statements: Sequence[Statement]
    done: asyncio.Future[None]


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
        # Names this process in change notices, so it can skip its own.
        self.origin = secrets.token_hex(6)
        self._notices = Notices(self.origin)
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
    ) -> asyncio.Future[None]:
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
                            await self._send_waiting_notices()
                            return
                        self._wake.clear()
                        await self._idle()
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

    async def _idle(self) -> None:
        """Wait for the next write; send the waiting notices if none comes in time."""
        notices, loop = self._notices, self._event_loop()
        if not notices.waiting or self._committing:
            await self._wake.wait()  # a commit under way sends or keeps them
            return
        # Idle is a light load: wait only until the waiting notices are due (a
        # millisecond at least, so that a notice that is not due never spins the loop).
        wait = notices.gap(light=True) - (loop.time() - notices.sent_at)
        with contextlib.suppress(TimeoutError):  # asyncio.timeout: see RaceService.run_clock
            async with asyncio.timeout(max(wait, 0.001)):
                await self._wake.wait()
        if not self._queue and not self._committing and notices.due(loop.time(), light=True):
            await self._send_waiting_notices()

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

    async def _send_waiting_notices(self) -> None:
        """Send the notices of events already committed, in a statement of their own."""
        last = dict(self._notices.waiting)
        if not last:
            return
        try:
            await self._pool.execute(NOTIFY, CHANNEL, self._notices.texts(last))
        except Exception as err:  # the database is away: try again later
            log.error("notice_failed", error=repr(err))
            self._notices.sent_at = self._event_loop().time()
        else:
            self._notices.settle(last, True, self._event_loop().time())

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
                if sent and await self._landed(live, batch, failed):
                    # The cut commit had landed: acknowledge it, never write it twice. Its
                    # races are noticed again, in case its notices were not due then.
                    events = [r for i, w in enumerate(batch) if i not in failed for r in w.events]
                    self._notices.settle(self._notices.plan(events, False)[1], False, loop.time())
                    break
                sent = True
                light = len(batch) + len(self._queue) < PIPELINE_WRITES
                due = self._notices.due(loop.time(), light)
                last = await self._in_one_statement(live, batch, due)
                while last is None:
                    try:
                        last = await self._transaction(live, batch, failed, due)
                    except _Retry as retry:
                        # Commit the rest without the losers, so nothing of theirs is kept.
                        if retry.failed <= failed:
                            raise RuntimeError("a conflict names no new write") from retry
                        failed |= retry.failed
                self._notices.settle(last, due, loop.time())
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
                    write.done.set_result(None)
        finally:
            resolved.set_result(None)

    async def _drop(self, conn: PoolConnectionProxy | None) -> None:
        """Give a failed connection back to the pool, which opens a new one when next asked."""
        if conn is not None:
            self._held.remove(conn)
            with contextlib.suppress(Exception):  # a dead connection may fail its release
                await self._pool.release(conn)
        return None

    async def _landed(self, conn: PoolConnectionProxy, batch: list[Write], skip: set[int]) -> bool:
        """Whether an earlier, cut attempt at this batch was committed after all.

        A batch commits whole or not at all, so its rows are all stored, with the same
        content, or none of them are (rows another connection took are found as
        conflicts when the batch is written again).

        Raises:
            UnavailableError: the batch has no rows to look for (only statements).
        """
        kept = [write for index, write in enumerate(batch) if index not in skip]
        moves = [row for write in kept for row in write.moves]
        events = [row for write in kept for row in write.events]
        if not moves and not events:
            raise _Unknown()
        row = await conn.fetchrow(LANDED, *_columns(moves, events))
        assert row is not None
        return bool(row[0] == len(moves) and row[1] == len(events))

    async def _in_one_statement(
        self, conn: PoolConnectionProxy, batch: list[Write], due: bool
    ) -> dict[int, int] | None:
        """Commit a batch of only moves and events in one round trip, with the notices
        if ``due``; the races it settles (``Notices.plan``), or None if not done."""
        if any(write.statements for write in batch):
            return None
        moves = [row for write in batch for row in write.moves]
        events = [row for write in batch for row in write.events]
        notices, last = self._notices.plan(events, due)
        try:
            await conn.fetchval(
                INSERT_ALL,
                *_columns(moves, events),
                [e.at for e in events],
                len(events),
                notices,
            )
        except (asyncpg.UniqueViolationError, asyncpg.DivisionByZeroError):
            return None  # some move or event lost its key to another connection
        return last

    async def _transaction(
        self, conn: PoolConnectionProxy, batch: list[Write], skip: set[int], due: bool
    ) -> dict[int, int]:
        """Insert the batch minus ``skip`` (with the notices if ``due``) and return the
        races it settles, or raise ``_Retry`` naming the conflicting writes."""
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
            events = [row for i, w in enumerate(batch) if i not in skip for row in w.events]
            notices, last = self._notices.plan(events, due)
            if notices:
                await conn.execute(NOTIFY, CHANNEL, notices)
            if events:
                stored = await conn.fetch(
                    INSERT_EVENTS,
                    [e.race_id for e in events],
                    [e.seq for e in events],
                    [e.kind for e in events],
                    [e.body for e in events],
                    [e.at for e in events],
                )
                if len(stored) < len(events):
                    # Another process numbered events of the same race: it moved first.
                    taken = {(e.race_id, e.seq) for e in events} - {
                        (r["race_id"], r["seq"]) for r in stored
                    }
                    raise _Retry(
                        {
                            i
                            for i, w in enumerate(batch)
                            if any((e.race_id, e.seq) in taken for e in w.events)
                        }
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
        return last


class _Unknown(Exception):
    """A cut commit of statements alone, which cannot be looked up: not sent again."""

    def __init__(self) -> None:
        super().__init__("a cut commit of statements alone may have landed")


class _Retry(Exception):
    """Raised inside the transaction to roll it back when some moves conflicted."""

    def __init__(self, failed: set[int]) -> None:
        super().__init__(f"{len(failed)} conflicting writes")
        self.failed = failed


def _columns(moves: list[MoveRow], events: list[EventRow]) -> tuple[list[Any], ...]:
    """The moves' and events' key and content as column arrays, in the order both the
    batched insert and the lookup of a cut commit (``LANDED``) take them."""
    return (
        [m.game_id for m in moves],
        [m.seq for m in moves],
        [m.action for m in moves],
        [m.move_id for m in moves],
        [e.race_id for e in events],
        [e.seq for e in events],
        [e.kind for e in events],
        [e.body for e in events],
    )
