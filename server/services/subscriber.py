"""Who receives what a service sends unasked: race events, a game proven lost.

The services know nothing of sockets: the transport hands them a ``Subscriber`` for the
connection a request came from (server/transport/connection.py), and they keep it
where the connection wants to hear more (a race's watchers, a game's winnability check).
"""

from __future__ import annotations

from typing import Protocol


class Subscriber(Protocol):
    """Something that takes encoded server messages, without waiting."""

    def send(self, frame: bytes) -> None:
        """Queue one encoded message (a JSON text frame) for this subscriber.

        Never blocks and never raises: a subscriber that is gone drops it.
        """
