"""The calendar of daily deals: UTC days, when a day's attempts may start, when it closes.

Server time is milliseconds since the epoch (the clock passed in); a day is a UTC
calendar day. A day's deal opens at its midnight; an attempt may start until the next
midnight and may take at most the play-time limit, so the day closes (its seed and
salt are revealed, its games may be replayed) at the next midnight plus that limit:
only then can no attempt at its deal still be running.

Pure: no clock of its own, no database, so the daily service and the boards read
their days here and the arithmetic is tested without either.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

from server.protocol.errors import GameError

DAY_MS = 86_400_000


def day_of(ms: int) -> date:
    """The UTC day a server time (ms since the epoch) falls on."""
    return datetime.fromtimestamp(ms / 1000, tz=UTC).date()


def day_start_ms(day: date) -> int:
    """Midnight UTC at the start of ``day``, in server milliseconds."""
    return round(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp() * 1000)


def starts_until_ms(day: date) -> int:
    """The first moment an attempt no longer counts for ``day``: the next midnight UTC."""
    return day_start_ms(day) + DAY_MS


def closes_at_ms(day: date, time_limit_ms: int) -> int:
    """When ``day``'s deal stops being live: the last attempt started that day is over."""
    return starts_until_ms(day) + time_limit_ms


def parse_day(text: str | None, now: int) -> date:
    """The day a request names (``YYYY-MM-DD``), or today (UTC) when it names none.

    Raises:
        GameError: ``invalid_options`` for a date that does not exist.
    """
    if not text:
        return day_of(now)
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise GameError("invalid_options", reason=f"{text!r} is not a date.") from None


def moment_iso(ms: int) -> str:
    """A server time as ISO 8601 in UTC (``2026-03-15T01:00:00+00:00``), for messages."""
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat()
