"""A race in this process: its numbered events and who is watching.

The race core (``server.core.race``) returns events; a room numbers them with the
race's sequence and turns them into rows for the group commit, and once they are
committed they go to the race's watchers (server/services/watchers.py, held by race
apart from the room, which may be rebuilt meanwhile). Events are sent only after they
are stored, so a reconnecting client can always catch up from the database.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime

import msgspec

from server import protocol as p
from server.core.hosting import Hosting
from server.core.race import Race
from server.store.commit_rows import EventRow

_encoder = msgspec.json.Encoder()


@dataclass
class RaceRoom:
    """One race in this process: the core and the event sequence."""

    race: Race
    seq: int = 0  # the last number given to an event
    sent: int = 0  # the last event committed and sent (numbers up to it are stored)
    # How this process holds the race (server/core/hosting.py): its owner (the race's
    # lease, server/services/lease.py: it numbers the events and runs the clock) or a
    # mirror of the owner's; current, or behind the database and read again when used.
    hosting: Hosting = field(default_factory=Hosting)
    # The fencing number of the lease it is owned under (server/services/lease.py): its
    # event rows carry it, and are stored only while the lease still has it.
    fence: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # Events of this owner's changes that it could not number (its leases were in doubt,
    # server/services/publish.py): told, as the race then stands, once it owns it again.
    untold: list[p.RaceEvent] = field(default_factory=list)
    # The time of its last event here (ms; 0: none yet): a race quiet long enough, and
    # watched by nobody here, leaves memory (server/services/race_clock.py).
    active_at: int = 0

    @property
    def owned(self) -> bool:
        """This process owns the race."""
        return self.hosting.owned

    @property
    def stale(self) -> bool:
        """The room is behind the database: it is read again before it is used."""
        return self.hosting.stale

    @property
    def race_id(self) -> int:
        """The race's id."""
        return self.race.race_id

    def number(self, events: list[p.RaceEvent], now: int) -> tuple[list[p.Event], list[EventRow]]:
        """Give each event the race's next sequence number; return messages and rows."""
        messages: list[p.Event] = []
        rows: list[EventRow] = []
        for event in events:
            self.seq += 1
            message = p.Event(race=self.race_id, seq=self.seq, time=now, event=event)
            messages.append(message)
            body = _encoder.encode(event).decode()
            kind = type(event).__struct_config__.tag
            at = datetime.fromtimestamp(now / 1000, tz=UTC)
            rows.append(EventRow(self.race_id, self.seq, str(kind), body, at, self.fence))
        return messages, rows

    def sent_up_to(self, messages: list[p.Event]) -> None:
        """Committed events are on their way to the watchers: the last one sent."""
        if messages:
            self.sent = max(self.sent, messages[-1].seq)
            self.active_at = max(self.active_at, messages[-1].time)
