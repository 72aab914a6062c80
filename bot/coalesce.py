"""Coalescing edits of race messages so they stay inside Discord's rate limits.

A race can produce dozens of progress events a second; Discord allows a bot five
message edits per five seconds in a channel, however many races share it. So an
event only marks its race's message *dirty*; a message is edited at most once per
``interval`` seconds, always with the latest state, and a channel's messages together
at most ``channel_edits`` times in any ``channel_window`` seconds: a burst of any size
costs at most one edit now and one when the interval has passed, and four busy races
in one channel share its five edits instead of making twelve. Pure: the caller passes
the clock in.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Hashable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

Key = TypeVar("Key", bound=Hashable)


@dataclass
class EditCoalescer(Generic[Key]):
    """Which messages need an edit, and when each may next be edited.

    Attributes:
        interval: least seconds between two edits of one message.
        channel_edits: most edits of one channel's messages in ``channel_window`` seconds.
        channel_window: seconds of Discord's per-channel window (5 edits per 5 s).
    """

    interval: float = 2.0
    channel_edits: int = 5
    channel_window: float = 5.0
    _dirty: set[Key] = field(default_factory=set)
    _last_edit: dict[Key, float] = field(default_factory=dict)
    _channel: dict[Key, Hashable] = field(default_factory=dict)
    _recent: dict[Hashable, deque[float]] = field(default_factory=dict)

    def place(self, key: Key, channel: Hashable) -> None:
        """Message ``key`` is in ``channel`` (a message of no known channel is its own)."""
        self._channel[key] = channel

    def channel_of(self, key: Key) -> Hashable:
        """The channel whose edit budget message ``key`` spends."""
        return self._channel.get(key, ("message", key))

    def mark(self, key: Key) -> None:
        """The state behind message ``key`` changed; it needs an edit."""
        self._dirty.add(key)

    def _recent_edits(self, channel: Hashable, now: float) -> deque[float]:
        recent = self._recent.setdefault(channel, deque())
        while recent and now - recent[0] >= self.channel_window:
            recent.popleft()
        return recent

    def _free_at(self, key: Key, now: float) -> float:
        """When ``key`` may next be edited, by its own interval and its channel's budget."""
        own = self._last_edit.get(key, -self.interval) + self.interval
        recent = self._recent_edits(self.channel_of(key), now)
        budget = recent[0] + self.channel_window if len(recent) >= self.channel_edits else now
        return max(own, budget)

    def due(self, now: float, busy: Collection[Hashable] = ()) -> list[Key]:
        """The dirty messages that may be edited at ``now`` (none in a ``busy`` channel,
        whose edits are still under way); they count as edited now. The message waiting
        longest goes first when a channel has fewer edits left than dirty messages."""
        ready = []
        waiting = sorted(self._dirty, key=lambda k: self._last_edit.get(k, float("-inf")))
        for key in waiting:
            channel = self.channel_of(key)
            if channel in busy or self._free_at(key, now) > now:
                continue
            ready.append(key)
            self._dirty.discard(key)
            self._last_edit[key] = now
            self._recent_edits(channel, now).append(now)
        for channel in [c for c, times in self._recent.items() if not times]:
            del self._recent[channel]  # quiet channels are forgotten
        return ready

    def next_due(self, now: float, busy: Collection[Hashable] = ()) -> float | None:
        """Seconds from ``now`` until the next dirty message may be edited (None: none
        dirty outside the ``busy`` channels, which say when they are free again)."""
        times = [self._free_at(k, now) for k in self._dirty if self.channel_of(k) not in busy]
        if not times:
            return None
        return max(0.0, min(times) - now)

    def forget(self, key: Key) -> None:
        """Stop tracking a message (its race is over and its last edit is done); its
        channel keeps counting the edits it made."""
        self._dirty.discard(key)
        self._last_edit.pop(key, None)
        self._channel.pop(key, None)

    @property
    def pending(self) -> bool:
        """Whether any message waits for an edit."""
        return bool(self._dirty)
