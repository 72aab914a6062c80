"""The wire protocol: every message a client or the server sends, as msgspec types.

One envelope for everything: a JSON object whose ``type`` names the message,
with an optional ``id`` that the client chooses and the server copies into its
reply, so a client can match replies to requests. Events pushed by the server
carry no ``id`` but a race and a per-race sequence number. The JSON Schema in
``docs/protocol.schema.json`` is generated from these types (``schema()``).

Parsing follows lila-ws: every inbound frame becomes either one of the closed set
of client messages or a typed ``ProtocolError`` (bad JSON, unknown type, invalid
fields), never an exception escaping the connection and never a silent drop.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from server.envelope import ActAs as ActAs
from server.envelope import Locale as Locale
from server.envelope import Message as Message
from server.envelope import PlayerInfo as PlayerInfo
from server.envelope import Ranked as Ranked
from server.envelope import Request as Request
from server.envelope import RequestId as RequestId
from server.envelope import Standing as Standing
from server.errors import ProtocolError
from server.protocol_boards import (
    AllTimeBoard as AllTimeBoard,
)
from server.protocol_boards import (
    AllTimeLine as AllTimeLine,
)
from server.protocol_boards import (
    AllTimeReply as AllTimeReply,
)
from server.protocol_boards import (
    BoardLine as BoardLine,
)
from server.protocol_boards import (
    BoardReply as BoardReply,
)
from server.protocol_boards import (
    DailyAround as DailyAround,
)
from server.protocol_boards import (
    DailyAttempt as DailyAttempt,
)
from server.protocol_boards import (
    DailyBoard as DailyBoard,
)
from server.protocol_boards import (
    DailyDealInfo as DailyDealInfo,
)
from server.protocol_boards import (
    DailyGameReply as DailyGameReply,
)
from server.protocol_boards import (
    DailyInfo as DailyInfo,
)
from server.protocol_boards import (
    DailyReply as DailyReply,
)
from server.protocol_boards import (
    DailyStart as DailyStart,
)
from server.protocol_boards import (
    DateText as DateText,
)
from server.protocol_boards import (
    GetReplay as GetReplay,
)
from server.protocol_boards import (
    Limit as Limit,
)
from server.protocol_boards import (
    MyGames as MyGames,
)
from server.protocol_boards import (
    MyGamesReply as MyGamesReply,
)
from server.protocol_boards import (
    OpenGame as OpenGame,
)
from server.protocol_boards import (
    OpenRace as OpenRace,
)
from server.protocol_boards import (
    OpenRaces as OpenRaces,
)
from server.protocol_boards import (
    OpenRacesReply as OpenRacesReply,
)
from server.protocol_boards import (
    PageNumber as PageNumber,
)
from server.protocol_boards import (
    PageSize as PageSize,
)
from server.protocol_boards import (
    PlayerStats as PlayerStats,
)
from server.protocol_boards import (
    RaceHistory as RaceHistory,
)
from server.protocol_boards import (
    RaceHistoryReply as RaceHistoryReply,
)
from server.protocol_boards import (
    RaceResult as RaceResult,
)
from server.protocol_boards import (
    RaceResultReply as RaceResultReply,
)
from server.protocol_boards import (
    RaceSummary as RaceSummary,
)
from server.protocol_boards import (
    ReplayReply as ReplayReply,
)
from server.protocol_boards import (
    Span as Span,
)
from server.protocol_boards import (
    StatsReply as StatsReply,
)
from server.protocol_boards import (
    VariantStats as VariantStats,
)

PROTOCOL_VERSION = 1

StartMode = Literal["now", "manual", "countdown"]

# ---------------------------------------------------------------- client → server


class Hello(Request, tag="hello", kw_only=True):
    """First message of every connection: agree the version, say who you are."""

    protocol: int = PROTOCOL_VERSION
    token: str | None = None
    service_token: str | None = None
    name: str | None = None
    locale: Locale = "en"


class CreateRace(Request, tag="create_race", kw_only=True):
    """Create a race; the creator joins it unless ``join`` is false."""

    variant: str
    options: dict[str, int | str | bool] = {}
    seed: int | None = None
    max_players: int = 8
    start: StartMode = "manual"
    countdown_s: int = 10
    time_limit_s: int | None = None
    allow_undo: bool = True
    allow_hints: bool = False
    guild_id: str | None = None
    context: dict[str, Any] | None = None
    join: bool = True
    # The server deals a seed the solver proved winnable (when it draws the seed).
    require_winnable: bool = True
    # Players may ask the solver: hints, "still winnable?" checks, jump back.
    solver_help: bool = False


class JoinRace(Request, tag="join_race", kw_only=True):
    """Join a race in its lobby (or countdown)."""

    race: int


class LeaveRace(Request, tag="leave_race", kw_only=True):
    """Leave a race: before the start you are removed, afterwards you resign."""

    race: int


class StartRace(Request, tag="start_race", kw_only=True):
    """The creator starts a race (at once, or after its countdown)."""

    race: int


class GetRace(Request, tag="get_race", kw_only=True):
    """Ask for a race's full state and subscribe to its events."""

    race: int


class Resume(Request, tag="resume", kw_only=True):
    """After a reconnect: the events after ``last_seq``, or the full state."""

    race: int
    last_seq: int


class Practice(Request, tag="practice", kw_only=True):
    """Start a one-player game outside any race."""

    variant: str
    options: dict[str, int | str | bool] = {}
    seed: int | None = None
    guild_id: str | None = None


class Move(Request, tag="move", kw_only=True):
    """Play a move; ``move_id`` makes a retransmitted move apply once."""

    game: int
    text: str
    move_id: str | None = None


class Undo(Request, tag="undo", kw_only=True):
    """Take back the last move, where the race allows it."""

    game: int
    move_id: str | None = None


class Hint(Request, tag="hint", kw_only=True):
    """Ask for a useful move, where the race allows it (counts as a hint)."""

    game: int


class Check(Request, tag="check", kw_only=True):
    """Ask the solver whether the game can still be won (solver help)."""

    game: int


class JumpBack(Request, tag="jump_back", kw_only=True):
    """Once the game is proven lost: undo back to its last still-winnable position."""

    game: int
    move_id: str | None = None


class Resign(Request, tag="resign", kw_only=True):
    """Give up this game; in a race you are ranked as unfinished."""

    game: int


class AutoFinish(Request, tag="auto_finish", kw_only=True):
    """Play the finishing moves, when the engine says the game can be finished."""

    game: int


class GetView(Request, tag="get_view", kw_only=True):
    """Ask for the player's view of one of their games."""

    game: int


ClientMessage = (
    Hello
    | CreateRace
    | JoinRace
    | LeaveRace
    | StartRace
    | GetRace
    | Resume
    | Practice
    | Move
    | Undo
    | Hint
    | Check
    | JumpBack
    | Resign
    | AutoFinish
    | GetView
    | DailyInfo
    | DailyStart
    | DailyBoard
    | DailyAround
    | PlayerStats
    | RaceHistory
    | RaceResult
    | GetReplay
    | AllTimeBoard
    | MyGames
    | OpenRaces
)

CLIENT_TYPES = frozenset(cls.__struct_config__.tag for cls in ClientMessage.__args__)


# ---------------------------------------------------------------- server → client


class Welcome(Message, tag="welcome", kw_only=True):
    """Reply to hello: the agreed version, who you are, and a token to come back as."""

    protocol: int
    server_time: int
    player: PlayerInfo | None = None
    token: str | None = None
    service: bool = False


class ErrorMessage(Message, tag="error", kw_only=True):
    """A request failed and changed nothing; ``code`` is stable, ``message`` human."""

    code: str
    message: str
    details: dict[str, Any] = {}
    view: dict[str, Any] | None = None


class RaceSettings(msgspec.Struct, kw_only=True):
    """What the creator chose for a race."""

    variant: str
    options: dict[str, Any]
    max_players: int
    start: StartMode
    countdown_s: int
    time_limit_s: int | None
    allow_undo: bool
    allow_hints: bool
    guild_id: str | None = None
    context: dict[str, Any] | None = None
    require_winnable: bool = False
    solver_help: bool = False
    # "proven": the solver found a win from this deal; "unproven": it was not asked (a
    # seed the creator gave) or found none within the server's time for it.
    winnable: Literal["proven", "unproven"] = "unproven"


class RaceInfo(msgspec.Struct, kw_only=True):
    """A race's full state, as sent on create, join, get_race and a too-old resume."""

    race: int
    state: str
    seq: int
    creator: int
    settings: RaceSettings
    commitment: str
    players: list[Standing]
    your_game: int | None = None
    starts_at: int | None = None
    ends_at: int | None = None
    ranking: list[Ranked] | None = None
    seed: str | None = None
    salt: str | None = None


class RaceReply(Message, tag="race", kw_only=True):
    """Reply carrying a race's full state."""

    race: RaceInfo
    server_time: int


class LobbyEvent(msgspec.Struct, tag_field="kind", tag="lobby", kw_only=True):
    """Someone joined or left the lobby."""

    players: list[PlayerInfo]
    max_players: int


class CountdownEvent(msgspec.Struct, tag_field="kind", tag="countdown", kw_only=True):
    """The race starts at ``starts_at`` (server time, ms since the epoch)."""

    starts_at: int


class StartEvent(msgspec.Struct, tag_field="kind", tag="start", kw_only=True):
    """The race has started at ``at``; ``ends_at`` is its time limit, if any."""

    at: int
    ends_at: int | None = None


class ProgressEvent(msgspec.Struct, tag_field="kind", tag="progress", kw_only=True):
    """Players' progress changed (counts only, never cards).

    Progress is gathered and sent at most every ``progress_interval_ms`` per race
    (250 ms by default): ``standings`` holds each player whose counts changed since
    the last progress event, in their latest state.
    """

    standings: list[Standing]


class FinishEvent(msgspec.Struct, tag_field="kind", tag="finish", kw_only=True):
    """A player won their game."""

    player: int
    time_ms: int
    moves: int


class EndEvent(msgspec.Struct, tag_field="kind", tag="end", kw_only=True):
    """The race is over: final ranking, and the seed and salt behind the commitment."""

    reason: Literal["all_done", "time_limit"]
    ranking: list[Ranked]
    seed: str
    salt: str
    commitment: str


RaceEvent = LobbyEvent | CountdownEvent | StartEvent | ProgressEvent | FinishEvent | EndEvent


class Event(Message, tag="event", kw_only=True):
    """An event of a race, pushed to everyone watching it; ``seq`` increases per race."""

    race: int
    seq: int
    time: int
    event: RaceEvent


class EventsReply(Message, tag="events", kw_only=True):
    """Reply to resume: the events missed since ``last_seq``, in order."""

    race: int
    events: list[Event]


class ViewReply(Message, tag="view", kw_only=True):
    """The player's view of a game after a change (or on request)."""

    game: int
    view: dict[str, Any]
    race: int | None = None
    played: list[str] = []
    move_id: str | None = None
    duplicate: bool = False
    hint: str | None = None
    # "solver": the hint is the first move of a win the solver found; "engine": a
    # useful-looking move (no solver help here, or the solver found no win in time).
    hint_source: Literal["solver", "engine"] | None = None


class WinnabilityReply(Message, tag="winnability", kw_only=True):
    """Reply to check, or sent unasked (no id) once a game with solver help is proven
    lost: what the solver says about the game's position after ``seq`` actions."""

    game: int
    seq: int
    verdict: Literal["winnable", "lost", "unknown"]


ServerMessage = (
    Welcome
    | ErrorMessage
    | WinnabilityReply
    | RaceReply
    | Event
    | EventsReply
    | ViewReply
    | DailyReply
    | DailyGameReply
    | BoardReply
    | StatsReply
    | RaceHistoryReply
    | RaceResultReply
    | ReplayReply
    | AllTimeReply
    | MyGamesReply
    | OpenRacesReply
)

_client_decoder = msgspec.json.Decoder()
_typed_decoder: msgspec.json.Decoder[ClientMessage] = msgspec.json.Decoder(ClientMessage)
_encoder = msgspec.json.Encoder()


class _Envelope(msgspec.Struct):
    id: Any = None


_envelope_decoder = msgspec.json.Decoder(_Envelope)


def request_id_of(frame: str | bytes) -> RequestId:
    """The ``id`` of a frame without handling it (to answer a refused message), or None."""
    try:
        value = _envelope_decoder.decode(frame).id
    except msgspec.MsgspecError:
        return None
    return value if isinstance(value, int | str) and not isinstance(value, bool) else None


def parse(frame: str | bytes) -> ClientMessage:
    """Turn one inbound frame into a client message.

    Raises:
        ProtocolError: ``bad_json``, ``unknown_type`` or ``invalid_message``; its
            details carry the request ``id`` when one could be read.
    """
    try:
        return _typed_decoder.decode(frame)  # the common case, in one pass
    except msgspec.DecodeError:
        pass  # now find out what exactly is wrong, for a precise error
    try:
        raw = _client_decoder.decode(frame)
    except msgspec.DecodeError:
        raise ProtocolError("bad_json") from None
    if not isinstance(raw, dict):
        raise ProtocolError("invalid_message", reason="a message must be a JSON object")
    request_id = raw.get("id")
    if not isinstance(request_id, int | str) or isinstance(request_id, bool):
        request_id = None
    kind = raw.get("type")
    if kind not in CLIENT_TYPES:
        error = ProtocolError("unknown_type", type=kind)
        error.request_id = request_id
        raise error
    try:
        message: ClientMessage = msgspec.convert(raw, ClientMessage)
    except msgspec.ValidationError as err:
        error = ProtocolError("invalid_message", reason=str(err))
        error.request_id = request_id
        raise error from None
    return message


def encode(message: Message) -> bytes:
    """Serialise a server message to JSON bytes (sent as a text frame)."""
    return _encoder.encode(message)


def schema() -> dict[str, Any]:
    """The JSON Schema of both directions, as checked in at docs/protocol.schema.json."""
    (client, server), components = msgspec.json.schema_components(
        [ClientMessage, ServerMessage], ref_template="#/$defs/{name}"
    )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"Solitaire Arena protocol, version {PROTOCOL_VERSION}",
        "description": "Client messages (client_message) and server messages (server_message).",
        "$defs": components,
        "oneOf": [
            {"title": "client_message", **client},
            {"title": "server_message", **server},
        ],
    }


def schema_text() -> str:
    """The schema as checked in: indented JSON with sorted keys and a final newline."""
    import json

    return json.dumps(schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    # python -m server.protocol > docs/protocol.schema.json
    print(schema_text(), end="")
