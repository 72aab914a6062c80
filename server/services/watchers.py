"""Who watches which race in this process: kept by race, apart from the race's room.

A race's room (server/services/rooms.py) is rebuilt from the database when it falls
behind, and a mirror's copy leaves memory when nobody here watches it. A request that
will watch a race (a join, ``get_race``, ``resume``) awaits the database before it adds
its subscriber, and meanwhile its room may have been replaced or dropped: watchers held
by the room object were then lost with it, and the player heard nothing of the race.
Held here by race id, a watcher is found by whichever room the race has when an event
comes.
"""

from __future__ import annotations

from server import protocol as p
from server.services.subscriber import Subscriber, send_to_all


class Watchers:
    """The subscribers of each race in this process, and the races of each subscriber."""

    def __init__(self) -> None:
        self._by_race: dict[int, set[Subscriber]] = {}
        self._by_subscriber: dict[Subscriber, set[int]] = {}

    def add(self, race_id: int, subscriber: Subscriber) -> None:
        """Send this subscriber the race's events from now on."""
        self._by_race.setdefault(race_id, set()).add(subscriber)
        self._by_subscriber.setdefault(subscriber, set()).add(race_id)

    def remove(self, subscriber: Subscriber) -> None:
        """Forget a subscriber whose connection closed."""
        for race_id in self._by_subscriber.pop(subscriber, ()):
            watching = self._by_race.get(race_id)
            if watching is not None:
                watching.discard(subscriber)
                if not watching:
                    del self._by_race[race_id]

    def __contains__(self, race_id: object) -> bool:
        """Whether anybody here watches the race."""
        return race_id in self._by_race

    def of(self, race_id: int) -> frozenset[Subscriber]:
        """The race's watchers here now."""
        return frozenset(self._by_race.get(race_id, ()))

    def send(self, race_id: int, messages: list[p.Event]) -> None:
        """Push committed events to every watcher of the race (never waiting for a slow
        one): each encoded once, the same bytes to every watcher."""
        if race_id in self._by_race:
            self.send_frames(race_id, [p.encode(message) for message in messages])

    def send_frames(self, race_id: int, frames: list[bytes]) -> None:
        """Push events already encoded (as ``send`` does)."""
        watching = self._by_race.get(race_id)
        if not watching:
            return
        for frame in frames:
            send_to_all(watching, frame)
