"""Messages of daily deals, leaderboards, statistics, history and listings.

Part of the wire protocol (``server.protocol`` re-exports every name here and builds the
closed unions and the JSON Schema); docs/protocol.md documents each message.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from server.protocol.envelope import (
    GuildId,
    Message,
    PlayerInfo,
    Ranked,
    Request,
    UnrankedReason,
)
from server.protocol.ratings import DealDifficulty
from server.protocol.view import PlayerView

# ---------------------------------------------------------------- daily deals and leaderboards
# (server/services/daily.py and server/services/leaderboard.py; docs/protocol.md,
# "Daily deals and leaderboards")

DateText = Annotated[str, msgspec.Meta(pattern=r"^\d{4}-\d{2}-\d{2}$")]
PageSize = Annotated[int, msgspec.Meta(ge=1, le=100)]
PageNumber = Annotated[int, msgspec.Meta(ge=1, le=100_000)]
Span = Annotated[int, msgspec.Meta(ge=0, le=25)]
Limit = Annotated[int, msgspec.Meta(ge=1, le=100)]


class DailyInfo(Request, tag="daily", kw_only=True):
    """A day's deal of a variant (today when ``date`` is absent) and your attempts at it."""

    variant: str
    date: DateText | None = None


class DailyStart(Request, tag="daily_start", kw_only=True):
    """Start an attempt at today's deal: your first one is ranked, later ones are practice."""

    variant: str
    guild_id: GuildId | None = None


class DailyBoard(Request, tag="daily_board", kw_only=True):
    """A page of a day's leaderboard, global or one guild's; ``ranked=false``: practice."""

    variant: str
    date: DateText | None = None
    guild_id: GuildId | None = None
    ranked: bool = True
    page: PageNumber = 1
    page_size: PageSize = 20


class DailyAround(Request, tag="daily_around", kw_only=True):
    """Your place on a day's leaderboard with ``span`` players above and below."""

    variant: str
    date: DateText | None = None
    guild_id: GuildId | None = None
    span: Span = 3


class PlayerStats(Request, tag="player_stats", kw_only=True):
    """All-time figures per variant of a player (yourself when ``player`` is absent)."""

    player: int | None = None
    variant: str | None = None


class RaceHistory(Request, tag="race_history", kw_only=True):
    """A player's most recent finished races (yourself when ``player`` is absent)."""

    player: int | None = None
    limit: Limit = 10
    before: int | None = None


class RaceResult(Request, tag="race_result", kw_only=True):
    """A finished race's full result."""

    race: int


class GetReplay(Request, tag="replay", kw_only=True):
    """A finished game's move list once nobody can be spoiled by it (docs/protocol.md,
    "replay"); ``step``: the view after that many actions."""

    game: int
    step: int | None = None


# ---------------------------------------------------------------- all-time boards and listings
# (server/services/leaderboard.py and server/services/listings.py; docs/protocol.md,
# "All-time leaderboard" and "Finding games and races again")


class AllTimeBoard(Request, tag="leaderboard", kw_only=True):
    """A variant's all-time board, ranked by rating (of the pool of ``options``: the
    variant's defaults unless given), global or one guild's: a page, or ``around_me``."""

    variant: str
    options: dict[str, int | str | bool] = {}
    guild_id: GuildId | None = None
    page: PageNumber = 1
    page_size: PageSize = 20
    around_me: bool = False
    span: Span = 3


class MyGames(Request, tag="my_games", kw_only=True):
    """The asking player's games still being played, newest first."""

    limit: Limit = 10


class OpenRaces(Request, tag="open_races", kw_only=True):
    """Races not yet finished, of one guild and/or whose context contains ``context``
    (service clients only; no ``act_as``)."""

    guild_id: GuildId | None = None
    context: dict[str, Any] | None = None
    limit: Limit = 100


class DailyDealInfo(msgspec.Struct, kw_only=True):
    """A day's deal: public from the day's start; ``seed`` and ``salt`` only once closed."""

    variant: str
    date: str
    opens_at: int
    starts_until: int
    closes_at: int
    closed: bool
    commitment: str
    verdict: str
    solution_length: int
    time_limit_s: int
    seed: str | None = None
    salt: str | None = None
    difficulty: DealDifficulty | None = None


class DailyAttempt(msgspec.Struct, kw_only=True):
    """One of your attempts at a day's deal."""

    game: int
    ranked: bool
    status: str
    time_ms: int | None = None
    moves: int | None = None
    undos: int | None = None
    hints: int | None = None
    # Why it does not rank: ``guest`` (sign in to rank) or ``later_attempt``.
    unranked: UnrankedReason | None = None


class DailyReply(Message, tag="daily_deal", kw_only=True):
    """Reply to daily."""

    deal: DailyDealInfo
    attempts: list[DailyAttempt] = []


class DailyGameReply(Message, tag="daily_game", kw_only=True):
    """Reply to daily_start: the new game, whether it is ranked, and when its time is up."""

    game: int
    ranked: bool
    date: str
    deadline: int
    view: PlayerView
    # Why it does not rank: ``guest`` (sign in to rank) or ``later_attempt``.
    unranked: UnrankedReason | None = None


class BoardLine(msgspec.Struct, kw_only=True):
    """A line of a daily leaderboard; equal results share a rank."""

    rank: int
    player: int
    name: str
    game: int
    status: str
    time_ms: int | None = None
    moves: int | None = None
    undos: int | None = None
    hints: int | None = None
    guild_id: str | None = None


class BoardReply(Message, tag="board", kw_only=True):
    """Reply to daily_board and daily_around."""

    variant: str
    date: str
    scope: str
    ranked: bool
    total: int
    lines: list[BoardLine]
    page: int | None = None
    page_size: int | None = None
    me: BoardLine | None = None


class VariantStats(msgspec.Struct, kw_only=True):
    """A player's all-time figures in one variant (ranked dailies and races)."""

    variant: str
    games: int
    wins: int
    win_rate: float
    best_time_ms: int | None = None
    fewest_moves: int | None = None
    average_win_time_ms: int | None = None
    current_streak: int = 0
    longest_streak: int = 0


class StatsReply(Message, tag="stats", kw_only=True):
    """Reply to player_stats."""

    player: int
    name: str
    variants: list[VariantStats]


class RaceSummary(msgspec.Struct, kw_only=True):
    """One of a player's races: their rank and result."""

    race: int
    variant: str
    ended_at: int | None
    players: int
    rank: int | None
    finished: bool
    resigned: bool
    time_ms: int | None = None
    moves: int
    # Why this race counted for nothing of the player's: ``guest`` (played as a guest),
    # ``unranked_race`` (a chosen deal or the solver's help).
    unranked: UnrankedReason | None = None


class RaceHistoryReply(Message, tag="history", kw_only=True):
    """Reply to race_history, newest first."""

    player: int
    races: list[RaceSummary]


class RaceResultReply(Message, tag="result", kw_only=True):
    """Reply to race_result: the final ranking, the seed and salt behind the commitment."""

    race: int
    variant: str
    options: dict[str, Any]
    ended_at: int | None
    end_reason: str | None
    commitment: str
    seed: str
    salt: str
    ranking: list[Ranked]
    games: dict[str, int] = {}


class ReplayReply(Message, tag="game_record", kw_only=True):
    """Reply to replay: everything needed to rebuild the game, and a view at ``step``.

    ``seed`` is null for a daily attempt before its day closes (it would show the
    face-down cards): a client steps through such a game with ``step``. ``solution``
    is, for a practice game, the solver's winning line from the deal, when it finds one.
    """

    game: int
    player: int
    name: str
    variant: str
    options: dict[str, Any]
    seed: str | None
    status: str
    actions: list[str]
    race: int | None = None
    date: str | None = None
    step: int | None = None
    view: PlayerView | None = None
    solution: list[str] | None = None


class AllTimeLine(msgspec.Struct, kw_only=True):
    """A line of an all-time board: the player's rating (ranked by its conservative
    estimate; equal estimates share a rank) and how many rated games it rests on."""

    rank: int
    player: int
    name: str
    rating: int
    deviation: int
    rated_games: int


class AllTimeReply(Message, tag="all_time_board", kw_only=True):
    """Reply to leaderboard; ``provisional``: rated players not on the board yet."""

    variant: str
    options: dict[str, Any] = {}
    scope: str
    total: int
    provisional: int = 0
    lines: list[AllTimeLine]
    page: int | None = None
    page_size: int | None = None
    me: AllTimeLine | None = None


class OpenGame(msgspec.Struct, kw_only=True):
    """One of the player's games still being played."""

    game: int
    variant: str
    started_at: int
    race: int | None = None
    date: str | None = None
    deadline: int | None = None


class MyGamesReply(Message, tag="games", kw_only=True):
    """Reply to my_games, newest first."""

    games: list[OpenGame]


class OpenRace(msgspec.Struct, kw_only=True):
    """A race not yet finished, as a service finds it again."""

    race: int
    state: str
    variant: str
    creator: PlayerInfo
    players: int
    created_at: int
    guild_id: str | None = None
    context: dict[str, Any] | None = None
    starts_at: int | None = None


class OpenRacesReply(Message, tag="races", kw_only=True):
    """Reply to open_races, oldest first."""

    races: list[OpenRace]
