"""Who receives what a service sends unasked: race events, a game proven lost.

The services know nothing of sockets: the transport hands them a ``Subscriber`` for the
connection a request came from (server/transport/connection.py), and they keep it
where the connection wants to hear more (a race's watchers, a game's winnability check).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, Self


class Subscriber(Protocol):
    """Something that takes encoded server messages, without waiting."""

    def send(self, frame: bytes) -> None:
        """Queue one encoded message (a JSON text frame) for this subscriber.

        Never blocks and never raises: a subscriber that is gone drops it.
        """

    @classmethod
    def send_all(cls, subscribers: Sequence[Self], frame: bytes) -> None:
        """Queue one encoded message for each of these subscribers (all of this class):
        the same bytes to each, at the cost of one message where the transport can
        (websockets' ``broadcast``). Never blocks and never raises, as ``send``."""


def send_to_all(subscribers: Iterable[Subscriber], frame: bytes) -> None:
    """One encoded message to every subscriber, each class's share in one ``send_all``."""
    by_class: dict[type[Subscriber], list[Subscriber]] = {}
    for subscriber in subscribers:
        by_class.setdefault(type(subscriber), []).append(subscriber)
    for kind, group in by_class.items():
        kind.send_all(group, frame)
