"""Watching messages: the list of live races, watching one, and a racer's board as a
watcher sees it (docs/protocol.md, "Watching"; the rules in docs/arena.md).
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from server.protocol.envelope import Message, Request, Standing
from server.protocol.races import RaceSettings
from server.protocol.view import Column, Foundation, Waste


class RacerBoard(msgspec.Struct, kw_only=True):
    """A racer's board as a watcher sees it: the piles and counts, nothing more.

    Built from the engine's player view (which holds no face-down card: a column gives
    only how many lie face down, the stock only its size), without the view's seed and
    deal code (they give the whole deal away while the race runs) nor its legal moves.
    """

    tableau: list[Column]
    stock: int | None
    waste: Waste | None
    foundations: list[Foundation]
    counters: dict[str, int]
    outcome: str | None


# ---------------------------------------------------------------- client → server


class ListLiveRaces(Request, tag="list_live_races", kw_only=True):
    """The public races under way (ranked ones: on a deal the server dealt), newest first."""

    variant: str | None = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=100)] = 20


class WatchRace(Request, tag="watch_race", kw_only=True):
    """Watch a race: its events, and the board of ``player`` (a racer) when given. Sent
    again, it switches to another racer's board."""

    race: int
    player: int | None = None


class UnwatchRace(Request, tag="unwatch_race", kw_only=True):
    """Stop watching a race."""

    race: int


# ---------------------------------------------------------------- server → client


class LiveRace(msgspec.Struct, kw_only=True):
    """A race in the list of live races."""

    race: int
    state: str
    variant: str
    players: int
    created_at: int
    starts_at: int | None = None
    arena: int | None = None
    # How long its events and boards are held back from watchers (0: live).
    delay_ms: int


class LiveRacesReply(Message, tag="live_races", kw_only=True):
    """Reply to list_live_races."""

    races: list[LiveRace]


class WatchingReply(Message, tag="watching", kw_only=True):
    """Reply to watch_race: the race as its events up to ``delay_ms`` ago left it (its
    last such event is ``seq``; the events after come as ``event`` messages when they
    are due), and ``player``'s board as it stood then."""

    race: int
    delay_ms: int
    state: str
    settings: RaceSettings
    starts_at: int | None = None
    ends_at: int | None = None
    players: list[Standing]
    seq: int
    player: int | None = None
    board: RacerBoard | None = None
    server_time: int


class WatchBoardEvent(Message, tag="watch_board", kw_only=True):
    """A watched racer's board changed; ``at`` is the moment it shows (``delay_ms`` ago)."""

    race: int
    player: int
    at: int
    board: RacerBoard


class UnwatchedReply(Message, tag="unwatched", kw_only=True):
    """Reply to unwatch_race: nothing more of the race comes to this connection."""

    race: int
