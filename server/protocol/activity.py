"""The message of the page inside Discord: the race of an Activity's instance.

Part of the wire protocol (``server.protocol`` re-exports every name here and builds the
closed unions and the JSON Schema); docs/protocol.md, "activity_race", documents it.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from server.protocol.envelope import Request

# Discord's instance ids are short ASCII strings ("i-1234567890-gc-912952092627435520-…").
InstanceId = Annotated[
    str, msgspec.Meta(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9:._-]+$")
]


class ActivityRace(Request, tag="activity_race", kw_only=True):
    """The race of a Discord Activity's instance: joined while it can be, created (with
    ``variant`` and ``options``) when the instance has none not yet finished."""

    instance_id: InstanceId
    variant: str = "klondike"
    options: dict[str, int | str | bool] = {}
    guild_id: str | None = None
