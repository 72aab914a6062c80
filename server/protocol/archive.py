"""Messages of the daily archive: the past days of a variant that have a deal.

Part of the wire protocol (``server.protocol`` re-exports every name here and builds the
closed unions and the JSON Schema); docs/protocol.md, "daily_archive", documents them.
"""

from __future__ import annotations

import msgspec

from server.protocol.boards import DateText, Limit
from server.protocol.envelope import Message, Request


class DailyArchive(Request, tag="daily_archive", kw_only=True):
    """The days before ``before`` (today when absent) with a deal of ``variant``, newest first."""

    variant: str
    before: DateText | None = None
    limit: Limit = 30


class ArchiveAttempt(msgspec.Struct, kw_only=True):
    """The asker's ranked attempt at a past day's deal."""

    game: int
    status: str
    time_ms: int | None = None
    moves: int | None = None


class ArchiveDay(msgspec.Struct, kw_only=True):
    """A past day with a deal: when it closed (or closes), its solver line, how many
    players it ranked, and the asker's own ranked attempt (absent when none)."""

    date: str
    closed: bool
    closes_at: int
    solution_length: int
    players: int
    yours: ArchiveAttempt | None = None


class DailyArchiveReply(Message, tag="daily_days", kw_only=True):
    """Reply to daily_archive."""

    variant: str
    days: list[ArchiveDay]
