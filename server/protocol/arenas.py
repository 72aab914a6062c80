"""Arena messages: create, join, pause, leave and follow an arena tournament, and what
it pushes (docs/protocol.md, "Arenas"; the rules in docs/arena.md).

The arena core (server/core/arena.py) decides; the arena service stores and sends.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from server.protocol.envelope import Message, PlayerInfo, Request

ArenaPlayerStatus = Literal["waiting", "paired", "racing", "paused"]


class ArenaLine(msgspec.Struct, kw_only=True):
    """A player's line of an arena's standings."""

    rank: int
    player: int
    name: str
    score: int
    # Won races in a row now; two or more is "on fire": the next race scores double.
    streak: int
    fire: bool
    races: int
    wins: int
    status: ArenaPlayerStatus


class ArenaRace(msgspec.Struct, kw_only=True):
    """One of a player's races in an arena: where it ended for them and what it scored.

    ``rank``, ``racers``, ``points`` and ``fire`` are absent while the race runs (or, for
    a race that ended, until the player's earlier races are scored: they count in order).
    """

    pairing: int
    race: int | None = None
    rank: int | None = None
    racers: int | None = None
    points: int | None = None
    fire: bool = False


class ArenaSettings(msgspec.Struct, kw_only=True):
    """What an arena is: its variant, length, its races' time and size, whether rated."""

    variant: str
    options: dict[str, Any]
    minutes: int
    race_time_s: int
    race_size: int
    countdown_s: int
    rated: bool
    title: str | None = None


ArenaStateName = Literal["upcoming", "running", "ending", "finished"]

# ---------------------------------------------------------------- client → server

ArenaTitle = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]


class CreateArena(Request, tag="create_arena", kw_only=True):
    """Create an (unrated) arena; the creator joins it unless ``join`` is false."""

    variant: str
    options: dict[str, int | str | bool] = {}
    minutes: int = 30
    starts_in_s: int = 0
    race_time_s: int = 600
    race_size: int = 8
    title: ArenaTitle | None = None
    join: bool = True


class JoinArena(Request, tag="join_arena", kw_only=True):
    """Join an arena before its end, or come back after a pause; subscribes to it."""

    arena: int


class PauseArena(Request, tag="pause_arena", kw_only=True):
    """Stop being paired once the race under way is over."""

    arena: int


class LeaveArena(Request, tag="leave_arena", kw_only=True):
    """Stop being paired now, giving up the race under way (before the start: leave)."""

    arena: int


class GetArena(Request, tag="get_arena", kw_only=True):
    """An arena's state, and the races of ``player`` (default: yours); subscribes to it."""

    arena: int
    player: int | None = None


class ListArenas(Request, tag="list_arenas", kw_only=True):
    """The arenas not finished yet: upcoming and running, soonest first."""

    variant: str | None = None


# ---------------------------------------------------------------- server → client


class ArenaInfo(msgspec.Struct, kw_only=True):
    """An arena's state as one player sees it.

    ``top`` is the first ten of the standings; ``you`` your line and ``around`` the lines
    next to yours (two above, two below) when you are in the arena. ``races`` lists the
    races of ``races_of`` (you, unless ``get_arena`` named another player).
    """

    arena: int
    state: ArenaStateName
    creator: int | None
    settings: ArenaSettings
    starts_at: int
    ends_at: int
    finished_at: int | None = None
    players: int
    top: list[ArenaLine]
    you: ArenaLine | None = None
    around: list[ArenaLine] = []
    your_race: int | None = None
    podium: list[ArenaLine] | None = None
    races_of: int | None = None
    races: list[ArenaRace] = []


class ArenaReply(Message, tag="arena", kw_only=True):
    """Reply carrying an arena's state."""

    arena: ArenaInfo
    server_time: int


class ArenaSummary(msgspec.Struct, kw_only=True):
    """An arena in a list: what it is, when, and how many joined."""

    arena: int
    state: ArenaStateName
    settings: ArenaSettings
    starts_at: int
    ends_at: int
    players: int


class ArenasReply(Message, tag="arenas", kw_only=True):
    """Reply to list_arenas."""

    arenas: list[ArenaSummary]


class ArenaStandingsEvent(msgspec.Struct, tag_field="kind", tag="standings", kw_only=True):
    """The standings changed: sent at most once a second. ``you`` and ``around`` only to
    a player of the arena (the lines of everyone else are the same for all)."""

    players: int
    top: list[ArenaLine]
    you: ArenaLine | None = None
    around: list[ArenaLine] = []


class ArenaNextRaceEvent(msgspec.Struct, tag_field="kind", tag="race", kw_only=True):
    """To a player: your next race exists and its countdown runs (``get_race`` to follow it)."""

    race: int
    pairing: int
    players: list[PlayerInfo]


class ArenaScoredEvent(msgspec.Struct, tag_field="kind", tag="scored", kw_only=True):
    """To a player: one of your races counted; ``score`` and ``streak`` are yours now."""

    race: int
    rank: int
    racers: int
    points: int
    fire: bool
    score: int
    streak: int


class ArenaStateEvent(msgspec.Struct, tag_field="kind", tag="state", kw_only=True):
    """The arena started, stopped pairing (``ending``) or finished, with its podium."""

    state: ArenaStateName
    starts_at: int
    ends_at: int
    podium: list[ArenaLine] | None = None


ArenaEventBody = ArenaStandingsEvent | ArenaNextRaceEvent | ArenaScoredEvent | ArenaStateEvent


class ArenaEvent(Message, tag="arena_event", kw_only=True):
    """Something an arena pushed to those following it. ``player`` names the player an
    event is for (your next race, your score, your place), so a service connection acting
    for many players can tell; it is absent from what everyone gets alike."""

    arena: int
    time: int
    event: ArenaEventBody
    player: int | None = None
