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
    ArchiveDay as ArchiveDay,
    DailyArchive as DailyArchive,
    DailyArchiveReply as DailyArchiveReply,
)
from server.protocol.arenas import (
    ArenaEvent as ArenaEvent,
    ArenaEventBody as ArenaEventBody,
    ArenaInfo as ArenaInfo,
    ArenaLine as ArenaLine,
    ArenaNextRaceEvent as ArenaNextRaceEvent,
    ArenaRace as ArenaRace,
    ArenaReply as ArenaReply,
    ArenaScoredEvent as ArenaScoredEvent,
    ArenaSettings as ArenaSettings,
    ArenasReply as ArenasReply,
    ArenaStandingsEvent as ArenaStandingsEvent,
    ArenaStateEvent as ArenaStateEvent,
    ArenaSummary as ArenaSummary,
    CreateArena as CreateArena,
    GetArena as GetArena,
    JoinArena as JoinArena,
    LeaveArena as LeaveArena,
    ListArenas as ListArenas,
    PauseArena as PauseArena,
)
from server.protocol.boards import (
    AllTimeBoard as AllTimeBoard,
    AllTimeLine as AllTimeLine,
    AllTimeReply as AllTimeReply,
    BoardLine as BoardLine,
    BoardReply as BoardReply,
    DailyAround as DailyAround,
    DailyAttempt as DailyAttempt,
    DailyBoard as DailyBoard,
    DailyDealInfo as DailyDealInfo,
    DailyGameReply as DailyGameReply,
    DailyInfo as DailyInfo,
    DailyReply as DailyReply,
    DailyStart as DailyStart,
    DateText as DateText,
    GetReplay as GetReplay,
    Limit as Limit,
    MyGames as MyGames,
    MyGamesReply as MyGamesReply,
    OpenGame as OpenGame,
    OpenRace as OpenRace,
    OpenRaces as OpenRaces,
    OpenRacesReply as OpenRacesReply,
    PageNumber as PageNumber,
    PageSize as PageSize,
    PlayerStats as PlayerStats,
    RaceHistory as RaceHistory,
    RaceHistoryReply as RaceHistoryReply,
    RaceResult as RaceResult,
    RaceResultReply as RaceResultReply,
    RaceSummary as RaceSummary,
    ReplayReply as ReplayReply,
    Span as Span,
    StatsReply as StatsReply,
    VariantStats as VariantStats,
)
from server.protocol.envelope import (
    PROTOCOL_VERSION as PROTOCOL_VERSION,
    ActAs as ActAs,
    ErrorMessage as ErrorMessage,
    GuildId as GuildId,
    Hello as Hello,
    Locale as Locale,
    Message as Message,
    PlayerInfo as PlayerInfo,
    Profile as Profile,
    ProfileName as ProfileName,
    Ranked as Ranked,
    Request as Request,
    RequestId as RequestId,
    SetProfile as SetProfile,
    SignInProvider as SignInProvider,
    Standing as Standing,
    UnrankedReason as UnrankedReason,
    Welcome as Welcome,
)
from server.protocol.errors import (
    ArenaError as ArenaError,
    ConflictError as ConflictError,
    DailyError as DailyError,
    GameError as GameError,
    IdentityError as IdentityError,
    MatchError as MatchError,
    NotFoundError as NotFoundError,
    ProtocolError as ProtocolError,
    RaceError as RaceError,
    UnavailableError as UnavailableError,
    forbidden as forbidden,
)
from server.protocol.games import (
    AutoFinish as AutoFinish,
    Check as Check,
    GetView as GetView,
    Hint as Hint,
    JumpBack as JumpBack,
    Move as Move,
    Practice as Practice,
    PracticeRecord as PracticeRecord,
    Resign as Resign,
    Undo as Undo,
    ViewReply as ViewReply,
    WinnabilityReply as WinnabilityReply,
)
from server.protocol.ghosts import (
    GetGhost as GetGhost,
    GhostEvent as GhostEvent,
    GhostInfo as GhostInfo,
    GhostRace as GhostRace,
    GhostReply as GhostReply,
    GhostResult as GhostResult,
    GhostResultEvent as GhostResultEvent,
)
from server.protocol.preferences import (
    GetPreferences as GetPreferences,
    Preferences as Preferences,
    PreferencesReply as PreferencesReply,
    SetPreferences as SetPreferences,
)
from server.protocol.quick_match import (
    CancelFind as CancelFind,
    FindCancelled as FindCancelled,
    Finding as Finding,
    FindRace as FindRace,
    MatchFound as MatchFound,
)
from server.protocol.races import (
    COUNTDOWN_S as COUNTDOWN_S,
    MAX_PLAYERS as MAX_PLAYERS,
    TIME_LIMIT_S as TIME_LIMIT_S,
    CountdownEvent as CountdownEvent,
    CreateRace as CreateRace,
    EndEvent as EndEvent,
    Event as Event,
    EventsReply as EventsReply,
    FinishEvent as FinishEvent,
    GetRace as GetRace,
    JoinRace as JoinRace,
    LeaveRace as LeaveRace,
    LobbyEvent as LobbyEvent,
    ProgressEvent as ProgressEvent,
    RaceEvent as RaceEvent,
    RaceInfo as RaceInfo,
    RaceReply as RaceReply,
    RaceSettings as RaceSettings,
    Rematch as Rematch,
    RematchEvent as RematchEvent,
    Resume as Resume,
    StartEvent as StartEvent,
    StartMode as StartMode,
    StartRace as StartRace,
)
from server.protocol.ratings import (
    DealDifficulty as DealDifficulty,
    Difficulty as Difficulty,
    GetRaceRatings as GetRaceRatings,
    PlayerRatings as PlayerRatings,
    PlayerRatingsReply as PlayerRatingsReply,
    PoolRating as PoolRating,
    RaceRatings as RaceRatings,
    RatingChange as RatingChange,
    RatingPoint as RatingPoint,
)
from server.protocol.view import (
    Column as Column,
    Foundation as Foundation,
    GameStatus as GameStatus,
    PlayerView as PlayerView,
    Waste as Waste,
    wire_view as wire_view,
)
from server.protocol.watching import (
    ListLiveRaces as ListLiveRaces,
    LiveRace as LiveRace,
    LiveRacesReply as LiveRacesReply,
    RacerBoard as RacerBoard,
    UnwatchedReply as UnwatchedReply,
    UnwatchRace as UnwatchRace,
    WatchBoardEvent as WatchBoardEvent,
    WatchingReply as WatchingReply,
    WatchRace as WatchRace,
)
from server.protocol.wire import (
    CLIENT_TYPES as CLIENT_TYPES,
    ClientMessage as ClientMessage,
    ServerMessage as ServerMessage,
    encode as encode,
    parse as parse,
    request_id_of as request_id_of,
)
