"""The operator's schedule of rated arenas, as a pure function of the clock.

An entry ``VARIANT:EVERY_MINUTES:MINUTES`` (operations.md, ``arena_schedule``) asks for a
rated arena of ``VARIANT`` lasting ``MINUTES`` every ``EVERY_MINUTES``, starting on the
multiples of that period since the epoch (so ``klondike:60:30`` starts on every full hour
UTC, ``spider-1:1440:60`` at midnight UTC). Each one is created ``ahead_ms`` before its
start, so players can join it ahead; the store makes one arena per entry and start, so
several processes creating it at once make one.
"""

from __future__ import annotations

from dataclasses import dataclass

import engine

MINUTE_MS = 60_000


@dataclass(frozen=True, slots=True)
class ScheduleEntry:
    """One line of the schedule."""

    text: str
    variant: str
    every_ms: int
    duration_ms: int

    @classmethod
    def parse(cls, text: str) -> ScheduleEntry:
        """Read ``VARIANT:EVERY_MINUTES:MINUTES``.

        Raises:
            ValueError: naming the entry and what is wrong with it.
        """
        parts = text.strip().split(":")
        if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
            raise ValueError(f"arena schedule entry {text!r}: write VARIANT:EVERY_MINUTES:MINUTES")
        variant, every, minutes = parts[0], int(parts[1]), int(parts[2])
        if variant not in engine.VARIANTS:
            raise ValueError(f"arena schedule entry {text!r}: unknown variant {variant!r}")
        if not 5 <= minutes <= 60:
            raise ValueError(f"arena schedule entry {text!r}: an arena lasts 5 to 60 minutes")
        if every < minutes:
            raise ValueError(f"arena schedule entry {text!r}: arenas of one entry would overlap")
        return cls(text.strip(), variant, every * MINUTE_MS, minutes * MINUTE_MS)

    def next_start(self, now: int) -> int:
        """The start of this entry's next arena not yet begun at ``now`` (or beginning now)."""
        return -(-now // self.every_ms) * self.every_ms

    def due(self, now: int, ahead_ms: int) -> int | None:
        """The start of the arena to create now, if the next one is within ``ahead_ms``."""
        start = self.next_start(now)
        return start if start - now <= ahead_ms else None
