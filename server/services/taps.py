"""A tap on a race: the race's events as the race service sends them to its subscribers,
handed to a function of this process instead of a connection.

Watching (server/services/watching.py) and ghost races (server/services/ghosts.py) follow
races through the race service's public ``get_race``, as any client does, with a tap for
a subscriber; the race service needs to know nothing of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import msgspec

from server import protocol as p

_event_decoder = msgspec.json.Decoder(p.Event)


class EventTap:
    """A ``Subscriber`` that hands every frame it is sent to ``take``."""

    def __init__(self, take: Callable[[bytes], None]) -> None:
        self.take = take

    def send(self, frame: bytes) -> None:
        """Hand the frame on; never raises (a frame it cannot use is dropped there)."""
        self.take(frame)

    @classmethod
    def send_all(cls, subscribers: Sequence[EventTap], frame: bytes) -> None:
        """The same frame to each tap."""
        for subscriber in subscribers:
            subscriber.send(frame)


def race_event(frame: bytes) -> p.Event | None:
    """The race event a frame carries, or None for any other frame."""
    try:
        return _event_decoder.decode(frame)
    except msgspec.DecodeError:
        return None
