"""Coalescing edits of race messages so they stay inside Discord's rate limits.

A race can produce dozens of progress events a second; Discord allows a bot about
five message edits per five seconds in a channel. So an event only marks its
race's message *dirty*; a message is edited at most once per ``interval`` seconds,
always with the latest state, and a burst of any size costs at most one edit now
and one when the interval has passed. Pure: the caller passes the clock in.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

Key = TypeVar("Key", bound=Hashable)


@dataclass
class EditCoalescer(Generic[Key]):
    """Which messages need an edit, and when each may next be edited.

    Attributes:
        interval: least seconds between two edits of one message.
    """

    interval: float = 2.0
    _dirty: set[Key] = field(default_factory=set)
    _last_edit: dict[Key, float] = field(default_factory=dict)

    def mark(self, key: Key) -> None:
        """The state behind message ``key`` changed; it needs an edit."""
        self._dirty.add(key)

    def due(self, now: float) -> list[Key]:
        """The dirty messages that may be edited at ``now``; they count as edited now."""
        ready = [
            k for k in self._dirty if now - self._last_edit.get(k, -self.interval) >= self.interval
        ]
        for key in ready:
            self._dirty.discard(key)
            self._last_edit[key] = now
        return ready

    def next_due(self, now: float) -> float | None:
        """Seconds from ``now`` until the next dirty message may be edited (None: none dirty)."""
        if not self._dirty:
            return None
        earliest = min(self._last_edit.get(k, -self.interval) + self.interval for k in self._dirty)
        return max(0.0, earliest - now)

    def forget(self, key: Key) -> None:
        """Stop tracking a message (its race is over and its last edit is done)."""
        self._dirty.discard(key)
        self._last_edit.pop(key, None)

    @property
    def pending(self) -> bool:
        """Whether any message waits for an edit."""
        return bool(self._dirty)
