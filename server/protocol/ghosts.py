"""Ghost race messages: race a stored game's ghost (the daily's best, or your own best
on a deal) and what the race pushes of it (docs/protocol.md, "Ghost races"; the rules
in docs/arena.md).
"""

from __future__ import annotations

from typing import Literal

import msgspec

from server.protocol.boards import DateText
from server.protocol.envelope import Message, Request, Standing
from server.protocol.races import RaceInfo

# ---------------------------------------------------------------- client → server


class GhostRace(Request, tag="ghost_race", kw_only=True):
    """Race a ghost: the best game of a closed day's daily deal of ``variant`` (with
    ``date``), or your own best game on the deal of your game ``game``."""

    variant: str | None = None
    date: DateText | None = None
    game: int | None = None


class GetGhost(Request, tag="get_ghost", kw_only=True):
    """A ghost race's state (after a reconnect, say); subscribes to its ghost."""

    race: int


# ---------------------------------------------------------------- server → client


class GhostInfo(msgspec.Struct, kw_only=True):
    """Whose game the ghost is: the stored ``game``, its player's ``name``, where it
    comes from, and its time (it won in ``time_ms``)."""

    game: int
    name: str
    source: Literal["daily", "own"]
    date: str | None = None
    time_ms: int | None = None


class GhostResult(msgspec.Struct, kw_only=True):
    """How the race ended against the ghost: ``beat`` is true when you ranked before it
    (the race's ranking rule; a tie is the ghost's)."""

    beat: bool
    you: Standing
    ghost: Standing


class GhostReply(Message, tag="ghost", kw_only=True):
    """Reply to ghost_race and get_ghost: the race (an ordinary race of one, unranked),
    its ghost, its standing now, and the result once the race is over."""

    race: RaceInfo
    ghost: GhostInfo
    standing: Standing
    result: GhostResult | None = None
    server_time: int


class GhostEvent(Message, tag="ghost_event", kw_only=True):
    """The ghost moved on: its standing ``time`` ms into the race (player 0), and both
    racers' places by the race's rule (``order``, first place first)."""

    race: int
    time: int
    standing: Standing
    order: list[int]


class GhostResultEvent(Message, tag="ghost_result", kw_only=True):
    """The ghost race is over: whether you beat the ghost."""

    race: int
    result: GhostResult
