"""Messages of quick match: find a race with players of close ratings, or stop looking.

Part of the wire protocol (``server.protocol`` re-exports every name here and builds the
closed unions and the JSON Schema); docs/protocol.md, "Ratings and quick match",
documents each message and docs/ratings.md, "Quick match", how races are gathered.
"""

from __future__ import annotations

from typing import Any

from server.protocol.envelope import Message, Request
from server.protocol.races import RaceInfo
from server.protocol.ratings import Difficulty


class FindRace(Request, tag="find_race", kw_only=True):
    """Wait for a race of ``variant`` (with ``options``) with players of close ratings;
    ``rated`` races change ratings (signed-in players only); ``difficulty`` asks for a
    deal of that band. Asking again with the same choice keeps your place."""

    variant: str
    options: dict[str, int | str | bool] = {}
    rated: bool = False
    difficulty: Difficulty | None = None


class CancelFind(Request, tag="cancel_find", kw_only=True):
    """Stop waiting for a quick match."""


class Finding(Message, tag="finding", kw_only=True):
    """Reply to find_race: you wait in the queue since ``since`` (server ms), matched at
    ``rating``; ``match_found`` follows once a race is found."""

    variant: str
    options: dict[str, Any]
    rated: bool
    difficulty: Difficulty | None = None
    since: int
    rating: int


class FindCancelled(Message, tag="find_cancelled", kw_only=True):
    """Reply to cancel_find: ``cancelled`` false when you were not waiting (or a race
    was already found: its ``match_found`` comes, or came)."""

    cancelled: bool


class MatchFound(Message, tag="match_found", kw_only=True):
    """Sent unasked: a race was found for ``player`` (``user``: their principal, for a
    service acting for several), who is in it now (``your_game``); it counts down and
    starts by itself."""

    player: int
    user: str
    race: RaceInfo
    server_time: int
