"""Waiting for what an arena pushes to a test client (``arena_event`` messages)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arena_client import Client, Message


async def arena_event(
    client: Client,
    kind: str,
    predicate: Callable[[Message], bool] | None = None,
    *,
    after: int = 0,
    wait: float = 10.0,
) -> Message:
    """The first ``arena_event`` of ``kind`` among the client's messages from index
    ``after`` on (already received or next) that matches ``predicate``."""
    index = after
    while True:
        while index < len(client.received):
            message = client.received[index]
            index += 1
            if message["type"] != "arena_event" or message["event"]["kind"] != kind:
                continue
            if predicate is None or predicate(message):
                return message
        await client.receive(wait)


def pushed(client: Client, kind: str) -> list[dict[str, Any]]:
    """The bodies of the ``arena_event`` messages of ``kind`` received so far."""
    return [
        m["event"]
        for m in client.received
        if m["type"] == "arena_event" and m["event"]["kind"] == kind
    ]
