"""Which of the server's processes this one is: the home of a race is fixed by its id.

A race is cheapest when one process serves all of its players, so every race has a home
process, the one that created it, which gave it an id with ``id % count == index``
(server/store/storage.py hands out such ids; server/transport/routing.py sends a race's
address there).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Place:
    """Which of the server's processes this one is, and how many there are."""

    index: int = 0
    count: int = 1

    def home(self, race_id: int) -> int:
        """The index of the process that serves the race."""
        return race_id % self.count

    def owns(self, race_id: int) -> bool:
        """Whether this process is the race's home."""
        return self.home(race_id) == self.index


ALONE = Place()  # the only process
