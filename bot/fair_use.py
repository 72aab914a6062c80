"""Fair use: one user hammering buttons cannot spend the request pace all users share.

Every Discord user's requests go through the bot's one server connection, paced as
a whole (bot/client.py's ``Pacer``). So each user also has a small token bucket of
their own: ``burst`` interactions at once, then ``rate`` a second. A press over it is
answered with a short private "slow down" and sends nothing to the server. Pure: the
caller passes the clock in.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# A quick player taps two or three times a second for a while; a script taps faster.
RATE = 3.0
BURST = 8
MAX_USERS = 50_000  # buckets kept before the full (idle) ones are dropped


@dataclass
class Cooldown:
    """Per-user token buckets.

    Attributes:
        rate: tokens each user regains a second.
        burst: most tokens a user holds (presses allowed at once).
    """

    rate: float = RATE
    burst: int = BURST
    _buckets: dict[int, tuple[float, float]] = field(default_factory=dict)  # tokens, stamp

    def allow(self, user: int, now: float) -> bool:
        """Whether ``user`` may act at ``now`` (seconds); counts the act when allowed."""
        tokens, stamp = self._buckets.get(user, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + max(0.0, now - stamp) * self.rate)
        if tokens < 1.0:
            self._buckets[user] = (tokens, now)
            return False
        if user not in self._buckets and len(self._buckets) >= MAX_USERS:
            self._forget_idle(now)
        self._buckets[user] = (tokens - 1.0, now)
        return True

    def _forget_idle(self, now: float) -> None:
        """Drop the buckets that have refilled: they hold no memory worth keeping."""
        self._buckets = {
            user: (tokens, stamp)
            for user, (tokens, stamp) in self._buckets.items()
            if now - stamp < (self.burst - tokens) / self.rate
        }
