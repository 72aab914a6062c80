"""The daily archive: the past days of a variant that have a deal, for a client to pick
one and play it again, unranked.

A past day's deal is never chosen afresh (server/services/daily.py, ``info``): the
archive lists only the days some player opened, newest first, each with its solver
line, how many players it ranked, and the asker's own ranked result. Whether a day is
closed (its seed revealed, its replays open) is the calendar's rule: a client plays a
closed day's deal as practice from its seed (``daily`` with the date, then
``practice``), so nothing reaches a board.
"""

from __future__ import annotations

from collections.abc import Callable

from server import protocol as p
from server.core.calendar import closes_at_ms, day_of, parse_day
from server.core.identity import Principal
from server.services.daily import check_variant
from server.store.archive import ArchiveStore


class DailyArchive:
    """Answers ``daily_archive``."""

    def __init__(self, store: ArchiveStore, clock: Callable[[], int], time_limit_ms: int) -> None:
        self.store = store
        self.clock = clock
        self.time_limit_ms = time_limit_ms

    async def days(self, who: Principal, message: p.DailyArchive) -> p.DailyArchiveReply:
        """The days before ``message.before`` (today when absent) with a deal, newest first.

        Raises:
            GameError: ``invalid_options`` for a variant without dailies or a date that
                does not exist.
        """
        check_variant(message.variant)
        now = self.clock()
        before = min(parse_day(message.before, now), day_of(now))
        stored = await self.store.days(message.variant, who.player_id, before, message.limit)
        days = []
        for day in stored:
            closes_at = closes_at_ms(day.day, self.time_limit_ms)
            yours = None
            if day.game is not None and day.status is not None:
                yours = p.ArchiveAttempt(
                    game=day.game, status=day.status, time_ms=day.time_ms, moves=day.moves
                )
            days.append(
                p.ArchiveDay(
                    date=day.day.isoformat(),
                    closed=now >= closes_at,
                    closes_at=closes_at,
                    solution_length=day.solution_length,
                    players=day.players,
                    yours=yours,
                )
            )
        return p.DailyArchiveReply(id=message.id, variant=message.variant, days=days)
