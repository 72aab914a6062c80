"""The wire protocol: every message a client or the server sends, as msgspec types.

One envelope for everything: a JSON object whose ``type`` names the message, with an
optional ``id`` that the client chooses and the server copies into its reply, so a
client can match replies to requests. Events pushed by the server carry no ``id`` but a
race and a per-race sequence number. docs/protocol.md documents every message.

This package is the one definition of the protocol for the server and its clients (the
Discord bot imports it and nothing else of the server), so it depends only on msgspec:

    envelope   the envelope, hello/welcome, set_profile/profile, error, players and standings
    arenas     arena tournaments: requests, state, standings and the events they push
    watching   live races listed, watched with a delay, a racer's board as watchers see it
    ghosts     ghost races: a stored game raced as if live, and the result
    races      race requests, race state and race events
    ratings    ratings: a race's rating changes, a player's ratings and history
    quick_match  quick match: find_race, cancel_find, finding, match_found
    games      game requests, the view reply, the winnability verdict
    boards     daily deals, leaderboards, statistics, history, listings
    archive    the past days with a daily deal
    activity   the race of a Discord Activity's instance
    view       the player's view, typed
    errors     the error classes and their stable codes
    wire       the closed sets of messages, parse and encode
    schema     the JSON Schema generated from the types

Every name is re-exported here: ``from server import protocol as p`` then ``p.Move``.
"""

from server.protocol.activity import (
    ActivityRace as ActivityRace,
)
from server.protocol.archive import (
    ArchiveAttempt as ArchiveAttempt,
)
from server.protocol.archive import (
    ArchiveDay as ArchiveDay,
)
from server.protocol.archive import (
    DailyArchive as DailyArchive,
)
from server.protocol.archive import (
    DailyArchiveReply as DailyArchiveReply,
)
from server.protocol.arenas import (
    ArenaEvent as ArenaEvent,
)
from server.protocol.arenas import (
    ArenaEventBody as ArenaEventBody,
)
from server.protocol.arenas import (
    ArenaInfo as ArenaInfo,
)
from server.protocol.arenas import (
    ArenaLine as ArenaLine,
)
from server.protocol.arenas import (
    ArenaNextRaceEvent as ArenaNextRaceEvent,
)
from server.protocol.arenas import (
    ArenaRace as ArenaRace,
)
from server.protocol.arenas import (
    ArenaReply as ArenaReply,
)
from server.protocol.arenas import (
    ArenaScoredEvent as ArenaScoredEvent,
)
from server.protocol.arenas import (
    ArenaSettings as ArenaSettings,
)
from server.protocol.arenas import (
    ArenasReply as ArenasReply,
)
from server.protocol.arenas import (
    ArenaStandingsEvent as ArenaStandingsEvent,
)
from server.protocol.arenas import (
    ArenaStateEvent as ArenaStateEvent,
)
from server.protocol.arenas import (
    ArenaSummary as ArenaSummary,
)
from server.protocol.arenas import (
    CreateArena as CreateArena,
)
from server.protocol.arenas import (
    GetArena as GetArena,
)
from server.protocol.arenas import (
    JoinArena as JoinArena,
)
from server.protocol.arenas import (
    LeaveArena as LeaveArena,
)
from server.protocol.arenas import (
    ListArenas as ListArenas,
)
from server.protocol.arenas import (
    PauseArena as PauseArena,
)
from server.protocol.boards import (
    AllTimeBoard as AllTimeBoard,
)
from server.protocol.boards import (
    AllTimeLine as AllTimeLine,
)
from server.protocol.boards import (
    AllTimeReply as AllTimeReply,
)
from server.protocol.boards import (
    BoardLine as BoardLine,
)
from server.protocol.boards import (
    BoardReply as BoardReply,
)
from server.protocol.boards import (
    DailyAround as DailyAround,
)
from server.protocol.boards import (
    DailyAttempt as DailyAttempt,
)
from server.protocol.boards import (
    DailyBoard as DailyBoard,
)
from server.protocol.boards import (
    DailyDealInfo as DailyDealInfo,
)
from server.protocol.boards import (
    DailyGameReply as DailyGameReply,
)
from server.protocol.boards import (
    DailyInfo as DailyInfo,
)
from server.protocol.boards import (
    DailyReply as DailyReply,
)
from server.protocol.boards import (
    DailyStart as DailyStart,
)
from server.protocol.boards import (
    DateText as DateText,
)
from server.protocol.boards import (
    GetReplay as GetReplay,
)
from server.protocol.boards import (
    Limit as Limit,
)
from server.protocol.boards import (
    MyGames as MyGames,
)
from server.protocol.boards import (
    MyGamesReply as MyGamesReply,
)
from server.protocol.boards import (
    OpenGame as OpenGame,
)
from server.protocol.boards import (
    OpenRace as OpenRace,
)
from server.protocol.boards import (
    OpenRaces as OpenRaces,
)
from server.protocol.boards import (
    OpenRacesReply as OpenRacesReply,
)
from server.protocol.boards import (
    PageNumber as PageNumber,
)
from server.protocol.boards import (
    PageSize as PageSize,
)
from server.protocol.boards import (
    PlayerStats as PlayerStats,
)
from server.protocol.boards import (
    RaceHistory as RaceHistory,
)
from server.protocol.boards import (
    RaceHistoryReply as RaceHistoryReply,
)
from server.protocol.boards import (
    RaceResult as RaceResult,
)
from server.protocol.boards import (
    RaceResultReply as RaceResultReply,
)
from server.protocol.boards import (
    RaceSummary as RaceSummary,
)
from server.protocol.boards import (
    ReplayReply as ReplayReply,
)
from server.protocol.boards import (
    Span as Span,
)
from server.protocol.boards import (
    StatsReply as StatsReply,
)
from server.protocol.boards import (
    VariantStats as VariantStats,
)
from server.protocol.envelope import (
    PROTOCOL_VERSION as PROTOCOL_VERSION,
)
from server.protocol.envelope import (
    ActAs as ActAs,
)
from server.protocol.envelope import (
    ErrorMessage as ErrorMessage,
)
from server.protocol.envelope import (
    GuildId as GuildId,
)
from server.protocol.envelope import (
    Hello as Hello,
)
from server.protocol.envelope import (
    Locale as Locale,
)
from server.protocol.envelope import (
    Message as Message,
)
from server.protocol.envelope import (
    PlayerInfo as PlayerInfo,
)
from server.protocol.envelope import (
    Profile as Profile,
)
from server.protocol.envelope import (
    ProfileName as ProfileName,
)
from server.protocol.envelope import (
    Ranked as Ranked,
)
from server.protocol.envelope import (
    Request as Request,
)
from server.protocol.envelope import (
    RequestId as RequestId,
)
from server.protocol.envelope import (
    SetProfile as SetProfile,
)
from server.protocol.envelope import (
    SignInProvider as SignInProvider,
)
from server.protocol.envelope import (
    Standing as Standing,
)
from server.protocol.envelope import (
    UnrankedReason as UnrankedReason,
)
from server.protocol.envelope import (
    Welcome as Welcome,
)
from server.protocol.errors import (
    ArenaError as ArenaError,
)
from server.protocol.errors import (
    ConflictError as ConflictError,
)
from server.protocol.errors import (
    DailyError as DailyError,
)
from server.protocol.errors import (
    GameError as GameError,
)
from server.protocol.errors import (
    IdentityError as IdentityError,
)
from server.protocol.errors import (
    MatchError as MatchError,
)
from server.protocol.errors import (
    NotFoundError as NotFoundError,
)
from server.protocol.errors import (
    ProtocolError as ProtocolError,
)
from server.protocol.errors import (
    RaceError as RaceError,
)
from server.protocol.errors import (
    UnavailableError as UnavailableError,
)
from server.protocol.errors import (
    forbidden as forbidden,
)
from server.protocol.games import (
    AutoFinish as AutoFinish,
)
from server.protocol.games import (
    Check as Check,
)
from server.protocol.games import (
    GetView as GetView,
)
from server.protocol.games import (
    Hint as Hint,
)
from server.protocol.games import (
    JumpBack as JumpBack,
)
from server.protocol.games import (
    Move as Move,
)
from server.protocol.games import (
    Practice as Practice,
)
from server.protocol.games import (
    PracticeRecord as PracticeRecord,
)
from server.protocol.games import (
    Resign as Resign,
)
from server.protocol.games import (
    Undo as Undo,
)
from server.protocol.games import (
    ViewReply as ViewReply,
)
from server.protocol.games import (
    WinnabilityReply as WinnabilityReply,
)
from server.protocol.ghosts import (
    GetGhost as GetGhost,
)
from server.protocol.ghosts import (
    GhostEvent as GhostEvent,
)
from server.protocol.ghosts import (
    GhostInfo as GhostInfo,
)
from server.protocol.ghosts import (
    GhostRace as GhostRace,
)
from server.protocol.ghosts import (
    GhostReply as GhostReply,
)
from server.protocol.ghosts import (
    GhostResult as GhostResult,
)
from server.protocol.ghosts import (
    GhostResultEvent as GhostResultEvent,
)
from server.protocol.preferences import (
    GetPreferences as GetPreferences,
)
from server.protocol.preferences import (
    Preferences as Preferences,
)
from server.protocol.preferences import (
    PreferencesReply as PreferencesReply,
)
from server.protocol.preferences import (
    SetPreferences as SetPreferences,
)
from server.protocol.quick_match import (
    CancelFind as CancelFind,
)
from server.protocol.quick_match import (
    FindCancelled as FindCancelled,
)
from server.protocol.quick_match import (
    Finding as Finding,
)
from server.protocol.quick_match import (
    FindRace as FindRace,
)
from server.protocol.quick_match import (
    MatchFound as MatchFound,
)
from server.protocol.races import (
    COUNTDOWN_S as COUNTDOWN_S,
)
from server.protocol.races import (
    MAX_PLAYERS as MAX_PLAYERS,
)
from server.protocol.races import (
    TIME_LIMIT_S as TIME_LIMIT_S,
)
from server.protocol.races import (
    CountdownEvent as CountdownEvent,
)
from server.protocol.races import (
    CreateRace as CreateRace,
)
from server.protocol.races import (
    EndEvent as EndEvent,
)
from server.protocol.races import (
    Event as Event,
)
from server.protocol.races import (
    EventsReply as EventsReply,
)
from server.protocol.races import (
    FinishEvent as FinishEvent,
)
from server.protocol.races import (
    GetRace as GetRace,
)
from server.protocol.races import (
    JoinRace as JoinRace,
)
from server.protocol.races import (
    LeaveRace as LeaveRace,
)
from server.protocol.races import (
    LobbyEvent as LobbyEvent,
)
from server.protocol.races import (
    ProgressEvent as ProgressEvent,
)
from server.protocol.races import (
    RaceEvent as RaceEvent,
)
from server.protocol.races import (
    RaceInfo as RaceInfo,
)
from server.protocol.races import (
    RaceReply as RaceReply,
)
from server.protocol.races import (
    RaceSettings as RaceSettings,
)
from server.protocol.races import (
    Rematch as Rematch,
)
from server.protocol.races import (
    RematchEvent as RematchEvent,
)
from server.protocol.races import (
    Resume as Resume,
)
from server.protocol.races import (
    StartEvent as StartEvent,
)
from server.protocol.races import (
    StartMode as StartMode,
)
from server.protocol.races import (
    StartRace as StartRace,
)
from server.protocol.ratings import (
    DealDifficulty as DealDifficulty,
)
from server.protocol.ratings import (
    Difficulty as Difficulty,
)
from server.protocol.ratings import (
    GetRaceRatings as GetRaceRatings,
)
from server.protocol.ratings import (
    PlayerRatings as PlayerRatings,
)
from server.protocol.ratings import (
    PlayerRatingsReply as PlayerRatingsReply,
)
from server.protocol.ratings import (
    PoolRating as PoolRating,
)
from server.protocol.ratings import (
    RaceRatings as RaceRatings,
)
from server.protocol.ratings import (
    RatingChange as RatingChange,
)
from server.protocol.ratings import (
    RatingPoint as RatingPoint,
)
from server.protocol.view import (
    Column as Column,
)
from server.protocol.view import (
    Foundation as Foundation,
)
from server.protocol.view import (
    GameStatus as GameStatus,
)
from server.protocol.view import (
    PlayerView as PlayerView,
)
from server.protocol.view import (
    Waste as Waste,
)
from server.protocol.view import (
    wire_view as wire_view,
)
from server.protocol.watching import (
    ListLiveRaces as ListLiveRaces,
)
from server.protocol.watching import (
    LiveRace as LiveRace,
)
from server.protocol.watching import (
    LiveRacesReply as LiveRacesReply,
)
from server.protocol.watching import (
    RacerBoard as RacerBoard,
)
from server.protocol.watching import (
    UnwatchedReply as UnwatchedReply,
)
from server.protocol.watching import (
    UnwatchRace as UnwatchRace,
)
from server.protocol.watching import (
    WatchBoardEvent as WatchBoardEvent,
)
from server.protocol.watching import (
    WatchingReply as WatchingReply,
)
from server.protocol.watching import (
    WatchRace as WatchRace,
)
from server.protocol.wire import (
    CLIENT_TYPES as CLIENT_TYPES,
)
from server.protocol.wire import (
    ClientMessage as ClientMessage,
)
from server.protocol.wire import (
    ServerMessage as ServerMessage,
)
from server.protocol.wire import (
    encode as encode,
)
from server.protocol.wire import (
    parse as parse,
)
from server.protocol.wire import (
    request_id_of as request_id_of,
)
