"""The wire protocol: every message a client or the server sends, as msgspec types.

One envelope for everything: a JSON object whose ``type`` names the message, with an
optional ``id`` that the client chooses and the server copies into its reply, so a
client can match replies to requests. Events pushed by the server carry no ``id`` but a
race and a per-race sequence number. docs/protocol.md documents every message.

This package is the one definition of the protocol for the server and its clients (the
Discord bot imports it and nothing else of the server), so it depends only on msgspec:

    envelope   the envelope, hello/welcome/error, players and standings
    races      race requests, race state and race events
    games      game requests, the view reply, the winnability verdict
    boards     daily deals, leaderboards, statistics, history, listings
    view       the player's view, typed
    errors     the error classes and their stable codes
    wire       the closed sets of messages, parse and encode
    schema     the JSON Schema generated from the types

Every name is re-exported here: ``from server import protocol as p`` then ``p.Move``.
"""

from server.protocol.envelope import (
    RequestId as RequestId,
    Locale as Locale,
    PROTOCOL_VERSION as PROTOCOL_VERSION,
    Message as Message,
    ActAs as ActAs,
    Request as Request,
    PlayerInfo as PlayerInfo,
    Standing as Standing,
    Ranked as Ranked,
    Hello as Hello,
    Welcome as Welcome,
    ErrorMessage as ErrorMessage,
)
from server.protocol.races import (
    StartMode as StartMode,
    CreateRace as CreateRace,
    JoinRace as JoinRace,
    LeaveRace as LeaveRace,
    StartRace as StartRace,
    GetRace as GetRace,
    Resume as Resume,
    RaceSettings as RaceSettings,
    RaceInfo as RaceInfo,
    RaceReply as RaceReply,
    LobbyEvent as LobbyEvent,
    CountdownEvent as CountdownEvent,
    StartEvent as StartEvent,
    ProgressEvent as ProgressEvent,
    FinishEvent as FinishEvent,
    EndEvent as EndEvent,
    RaceEvent as RaceEvent,
    Event as Event,
    EventsReply as EventsReply,
)
from server.protocol.games import (
    Practice as Practice,
    Move as Move,
    Undo as Undo,
    Hint as Hint,
    Check as Check,
    JumpBack as JumpBack,
    Resign as Resign,
    AutoFinish as AutoFinish,
    GetView as GetView,
    ViewReply as ViewReply,
    WinnabilityReply as WinnabilityReply,
)
from server.protocol.boards import (
    DateText as DateText,
    PageSize as PageSize,
    PageNumber as PageNumber,
    Span as Span,
    Limit as Limit,
    DailyInfo as DailyInfo,
    DailyStart as DailyStart,
    DailyBoard as DailyBoard,
    DailyAround as DailyAround,
    PlayerStats as PlayerStats,
    RaceHistory as RaceHistory,
    RaceResult as RaceResult,
    GetReplay as GetReplay,
    AllTimeBoard as AllTimeBoard,
    MyGames as MyGames,
    OpenRaces as OpenRaces,
    DailyDealInfo as DailyDealInfo,
    DailyAttempt as DailyAttempt,
    DailyReply as DailyReply,
    DailyGameReply as DailyGameReply,
    BoardLine as BoardLine,
    BoardReply as BoardReply,
    VariantStats as VariantStats,
    StatsReply as StatsReply,
    RaceSummary as RaceSummary,
    RaceHistoryReply as RaceHistoryReply,
    RaceResultReply as RaceResultReply,
    ReplayReply as ReplayReply,
    AllTimeLine as AllTimeLine,
    AllTimeReply as AllTimeReply,
    OpenGame as OpenGame,
    MyGamesReply as MyGamesReply,
    OpenRace as OpenRace,
    OpenRacesReply as OpenRacesReply,
)
from server.protocol.view import (
    GameStatus as GameStatus,
    Column as Column,
    Foundation as Foundation,
    Waste as Waste,
    PlayerView as PlayerView,
    wire_view as wire_view,
)
from server.protocol.errors import (
    ArenaError as ArenaError,
    ProtocolError as ProtocolError,
    IdentityError as IdentityError,
    NotFoundError as NotFoundError,
    RaceError as RaceError,
    GameError as GameError,
    DailyError as DailyError,
    ConflictError as ConflictError,
    UnavailableError as UnavailableError,
    forbidden as forbidden,
)
from server.protocol.wire import (
    ClientMessage as ClientMessage,
    CLIENT_TYPES as CLIENT_TYPES,
    ServerMessage as ServerMessage,
    request_id_of as request_id_of,
    parse as parse,
    encode as encode,
)
