"""The envelope every message of the wire protocol shares, and the parts several
message families use (players, standings).

Kept apart so that both message families, races and games in ``server.protocol`` and
boards and listings in ``server.protocol_boards``, build on one definition.
"""

from __future__ import annotations

from typing import Literal

import msgspec

RequestId = int | str | None
Locale = Literal["en", "de"]


class Message(msgspec.Struct, tag_field="type", kw_only=True, omit_defaults=True):
    """The envelope shared by every message: ``type`` (the tag) and ``id``."""

    id: RequestId = None


class ActAs(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """The principal a service client acts for (only service clients may send it)."""

    user: str
    name: str | None = None
    locale: Locale | None = None


class Request(Message, forbid_unknown_fields=True):
    """A client message; ``act_as`` names the Discord user a service client acts for."""

    act_as: ActAs | None = None


class PlayerInfo(msgspec.Struct, kw_only=True):
    """A player as others may see them."""

    id: int
    name: str
    user: str


class Standing(msgspec.Struct, kw_only=True):
    """A player's public progress in a race (never their cards)."""

    player: int
    name: str
    foundation: int = 0
    moves: int = 0
    score: int = 0
    finished: bool = False
    resigned: bool = False
    time_ms: int | None = None


class Ranked(Standing, kw_only=True):
    """A line of the final ranking."""

    rank: int
