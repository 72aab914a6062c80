"""The envelope every message of the wire protocol shares, the messages of a connection's
own life (hello, welcome, set_profile, profile, error), and the parts several message
families use (players, standings).

Every family (races in ``races``, games in ``games``, boards and listings in ``boards``)
builds on these definitions.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from server.protocol.view import PlayerView

RequestId = int | str | None
Locale = Literal["en", "de"]

PROTOCOL_VERSION = 1


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


class PlayerInfo(msgspec.Struct, kw_only=True, omit_defaults=True):
    """A player as others may see them; ``user`` (``guest:…`` or ``discord:<id>``) only
    to the player themselves (``welcome``) and to a service in its listings."""

    id: int
    name: str
    user: str | None = None


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


class Hello(Request, tag="hello", kw_only=True):
    """First message of every connection: agree the version, say who you are."""

    protocol: int = PROTOCOL_VERSION
    token: str | None = None
    service_token: str | None = None
    name: str | None = None
    locale: Locale = "en"


# Where a request comes from in Discord (a guild's id, a snowflake of up to 20 digits), as
# clients send it: stored with races, games and attempts, so it has a bound.
GuildId = Annotated[str, msgspec.Meta(min_length=1, max_length=32)]


# A display name as a player gives it: at most 32 characters (what ``hello`` keeps of a
# longer one); ``set_profile`` refuses a longer one rather than cutting it.
ProfileName = Annotated[str, msgspec.Meta(min_length=1, max_length=32)]


class SetProfile(Request, tag="set_profile", kw_only=True):
    """Change the asking player's display name and/or locale after hello; a field left
    out stays as it is. Races already joined keep the name the player joined with."""

    name: ProfileName | None = None
    locale: Locale | None = None


SignInProvider = Literal["discord"]
# Why a result does not rank (docs/protocol.md, "Who ranks"): ``guest``, a guest's (sign in
# to rank); ``later_attempt``, a daily attempt after the first; ``unranked_race``, a race
# that ranks nobody (a chosen deal, the solver's help).
UnrankedReason = Literal["guest", "later_attempt", "unranked_race"]


class Welcome(Message, tag="welcome", kw_only=True):
    """Reply to hello: the agreed version, who you are, and a token to come back as;
    ``sign_in``: the ways a guest may sign in here (none: the server offers none);
    ``unranked``: why your results rank nowhere, if they do not."""

    protocol: int
    server_time: int
    player: PlayerInfo | None = None
    token: str | None = None
    service: bool = False
    sign_in: list[SignInProvider] = []
    # Set when this player's results rank nowhere, and why (``guest``).
    unranked: UnrankedReason | None = None


class Profile(Message, tag="profile", kw_only=True):
    """Reply to set_profile: the player's name and locale as stored now."""

    player: PlayerInfo
    locale: Locale


class ErrorMessage(Message, tag="error", kw_only=True):
    """A request failed and changed nothing; ``code`` is stable, ``message`` human."""

    code: str
    message: str
    details: dict[str, Any] = {}
    view: PlayerView | None = None
