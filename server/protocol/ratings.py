"""Messages of ratings: a race's rating changes, a player's ratings and their history, a
deal's difficulty.

Part of the wire protocol (``server.protocol`` re-exports every name here and builds the
closed unions and the JSON Schema); docs/protocol.md, "Ratings and quick match",
documents each message and docs/ratings.md the numbers.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from server.protocol.envelope import Message, Request

HistoryLength = Annotated[int, msgspec.Meta(ge=0, le=200)]
# A deal's difficulty band (server/core/deals.py): how often a 1500 player wins it.
Difficulty = Literal["easy", "medium", "hard"]


class DealDifficulty(msgspec.Struct, kw_only=True):
    """A deal's difficulty: its band, its rating on the players' scale (a deal rated
    1700 beats a 1500 player about three times in four) and how many rated games moved
    it from the solver's first estimate."""

    band: Difficulty
    rating: int
    games: int


class RatingChange(msgspec.Struct, kw_only=True):
    """What one rated game did to one player's rating: the new rating and the change."""

    player: int
    name: str
    place: int
    rating: int
    change: int
    deviation: int
    provisional: bool


class GetRaceRatings(Request, tag="race_ratings", kw_only=True):
    """The rating changes of a rated race (``rated`` false: not rated, or not yet)."""

    race: int


class RaceRatings(Message, tag="rating_changes", kw_only=True):
    """A race's rating changes: the reply to race_ratings, and sent unasked to the
    race's watchers once the race is rated (a moment after its end)."""

    race: int
    rated: bool
    variant: str | None = None
    options: dict[str, Any] | None = None
    lines: list[RatingChange] = []


class PlayerRatings(Request, tag="player_ratings", kw_only=True):
    """A player's ratings (yourself when ``player`` is absent), one per variant and
    option set they were rated in; ``variant`` keeps that variant's pools only, and
    ``history`` asks for up to that many last points of each pool's history."""

    player: int | None = None
    variant: str | None = None
    history: HistoryLength = 0


class RatingPoint(msgspec.Struct, kw_only=True):
    """The rating after one rated game, for a chart: when, the rating, the change."""

    at: int
    rating: int
    change: int
    race: int | None = None


class PoolRating(msgspec.Struct, kw_only=True):
    """A player's rating in one variant and option set."""

    variant: str
    options: dict[str, Any]
    rating: int
    deviation: int
    provisional: bool
    games: int
    rated_at: int
    history: list[RatingPoint] = []


class PlayerRatingsReply(Message, tag="ratings", kw_only=True):
    """Reply to player_ratings."""

    player: int
    name: str
    ratings: list[PoolRating]
