"""Reports from a race's mirrors to its owner, over NOTIFY (server/core/reports.py).

A process that is not a race's owner commits its players' moves itself, then queues a
report of their new standing here. The reports of ``GATHER_SECONDS`` go out together in
one notice on ``solitaire_race_reports`` (split only when long); every process listens
(server/transport/fanout.py) and the one holding the race's lease acts on them. Reports
whose notice failed (the database away) are sent again. The owner sends one kind
too: the new length of a game's log after its own moves in a game that a player also
played through another process, so that process drops its older copy of the game. A
report lost with its sender (the process died) costs no move: the moves are
committed, and an owner that takes the race over rebuilds it from the database.
"""

from __future__ import annotations

import asyncio

import asyncpg
import msgspec
import structlog

from server.core.reports import Report

log = structlog.get_logger(__name__)

CHANNEL = "solitaire_race_reports"
GATHER_SECONDS = 0.01
RETRY_SECONDS = 0.5  # after a failed notice, before the next try
NOTICE_BYTES = 7000  # PostgreSQL refuses payloads of 8000 bytes and more
NOTIFY = "select pg_notify($1, notice) from unnest($2::text[]) as notice"

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(list[Report])


def decode(payload: str) -> list[Report]:
    """A notice's reports.

    Raises:
        msgspec.ValidationError: the payload is no list of reports.
    """
    return _decoder.decode(payload)


def notices(reports: list[Report]) -> list[str]:
    """The reports as notice payloads, each under PostgreSQL's size limit."""
    texts: list[str] = []
    chunk: list[Report] = []
    size = 0
    for report in reports:
        length = len(_encoder.encode(report)) + 1
        if chunk and size + length > NOTICE_BYTES:
            texts.append(_encoder.encode(chunk).decode())
            chunk, size = [], 0
        chunk.append(report)
        size += length
    if chunk:
        texts.append(_encoder.encode(chunk).decode())
    return texts


class Relay:
    """This process's reports waiting to be sent, and the task that sends them."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool
        self._waiting: list[Report] = []
        self._wake = asyncio.Event()

    def report(self, reports: list[Report]) -> None:
        """Queue reports of changes already committed."""
        if reports:
            self._waiting += reports
            self._wake.set()

    async def run(self) -> None:
        """Send the waiting reports, gathered a moment, until cancelled."""
        while True:
            await self._wake.wait()
            await asyncio.sleep(GATHER_SECONDS)
            self._wake.clear()
            waiting, self._waiting = self._waiting, []
            try:
                await self._pool.execute(NOTIFY, CHANNEL, notices(waiting))
            except Exception as err:  # the database is away: send them again later
                log.error("report_failed", error=repr(err), reports=len(waiting))
                self._waiting[:0] = waiting
                self._wake.set()
                await asyncio.sleep(RETRY_SECONDS)
