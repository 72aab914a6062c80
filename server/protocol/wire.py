"""The closed sets of messages in each direction, and the codec between them and frames.

Parsing follows lila-ws: every inbound frame becomes either one of the closed set of
client messages or a typed ``ProtocolError`` (bad JSON, unknown type, invalid fields),
never an exception escaping the connection and never a silent drop.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from server.protocol.activity import ActivityRace
from server.protocol.archive import DailyArchive, DailyArchiveReply
from server.protocol.arenas import (
    ArenaEvent,
    ArenaReply,
    ArenasReply,
    CreateArena,
    GetArena,
    JoinArena,
    LeaveArena,
    ListArenas,
    PauseArena,
)
from server.protocol.boards import (
    AllTimeBoard,
    AllTimeReply,
    BoardReply,
    DailyAround,
    DailyBoard,
    DailyGameReply,
    DailyInfo,
    DailyReply,
    DailyStart,
    GetReplay,
    MyGames,
    MyGamesReply,
    OpenRaces,
    OpenRacesReply,
    PlayerStats,
    RaceHistory,
    RaceHistoryReply,
    RaceResult,
    RaceResultReply,
    ReplayReply,
    StatsReply,
)
from server.protocol.envelope import (
    ErrorMessage,
    Hello,
    Message,
    Profile,
    RequestId,
    SetProfile,
    Welcome,
)
from server.protocol.errors import ProtocolError
from server.protocol.games import (
    AutoFinish,
    Check,
    GetView,
    Hint,
    JumpBack,
    Move,
    Practice,
    PracticeRecord,
    Resign,
    Undo,
    ViewReply,
    WinnabilityReply,
)
from server.protocol.ghosts import GetGhost, GhostEvent, GhostRace, GhostReply, GhostResultEvent
from server.protocol.preferences import GetPreferences, PreferencesReply, SetPreferences
from server.protocol.quick_match import (
    CancelFind,
    FindCancelled,
    Finding,
    FindRace,
    MatchFound,
)
from server.protocol.races import (
    CreateRace,
    Event,
    EventsReply,
    GetRace,
    JoinRace,
    LeaveRace,
    RaceReply,
    Rematch,
    Resume,
    StartRace,
)
from server.protocol.ratings import (
    GetRaceRatings,
    PlayerRatings,
    PlayerRatingsReply,
    RaceRatings,
)
from server.protocol.watching import (
    ListLiveRaces,
    LiveRacesReply,
    UnwatchedReply,
    UnwatchRace,
    WatchBoardEvent,
    WatchingReply,
    WatchRace,
)

ClientMessage = (
    Hello
    | SetProfile
    | CreateRace
    | JoinRace
    | LeaveRace
    | Rematch
    | StartRace
    | GetRace
    | Resume
    | Practice
    | PracticeRecord
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
    | DailyArchive
    | GetRaceRatings
    | PlayerRatings
    | FindRace
    | CancelFind
    | CreateArena
    | JoinArena
    | PauseArena
    | LeaveArena
    | GetArena
    | ListArenas
    | ActivityRace
    | ListLiveRaces
    | WatchRace
    | UnwatchRace
    | GhostRace
    | GetGhost
    | GetPreferences
    | SetPreferences
)

CLIENT_TYPES = frozenset(cls.__struct_config__.tag for cls in ClientMessage.__args__)


ServerMessage = (
    Welcome
    | Profile
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
    | DailyArchiveReply
    | RaceRatings
    | PlayerRatingsReply
    | Finding
    | FindCancelled
    | MatchFound
    | ArenaReply
    | ArenasReply
    | ArenaEvent
    | LiveRacesReply
    | WatchingReply
    | WatchBoardEvent
    | UnwatchedReply
    | GhostReply
    | GhostEvent
    | GhostResultEvent
    | PreferencesReply
)


TOO_DEEP = "the message is nested too deeply"

_client_decoder = msgspec.json.Decoder()
_typed_decoder: msgspec.json.Decoder[ClientMessage] = msgspec.json.Decoder(ClientMessage)
_encoder = msgspec.json.Encoder()


class _Envelope(msgspec.Struct):
    id: Any = None


_envelope_decoder = msgspec.json.Decoder(_Envelope)


# What PostgreSQL can store: bigint ids and counts, text without NUL. A value outside
# that would fail only at the database, as an internal error; parse refuses it first.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
# A frame can hold such a value only if it has a run of 19 digits (a number of 2^63 or
# more) or a NUL escape: the quick look that spares the common message a second
# decoding. (A number past a float's range is no JSON to msgspec: bad_json.)
_LONG_NUMBER = re.compile(r"\d{19}")
_LONG_NUMBER_BYTES = re.compile(rb"\d{19}")


def _may_hold_unstorable(frame: str | bytes) -> bool:
    if isinstance(frame, str):
        return "\\u0000" in frame or _LONG_NUMBER.search(frame) is not None
    return b"\\u0000" in frame or _LONG_NUMBER_BYTES.search(frame) is not None


def unstorable(value: Any) -> str | None:
    """Why a decoded JSON value cannot be stored (an integer past 64 bits, a NUL in a
    string or key), or None. Walks without recursion: the value may be deep.

    A message's ``seed`` is the one integer of another range: a deal's number, from 0 to
    2^64−1 (docs/deals.md), stored as a numeric; the game settings check its range and
    answer ``invalid_options`` (server/core/session.py).
    """
    pending = [value]
    if isinstance(value, dict) and isinstance(value.get("seed"), int):
        pending = [{k: v for k, v in value.items() if k != "seed"}]
    while pending:
        item = pending.pop()
        if isinstance(item, bool):
            continue
        if isinstance(item, int) and not INT64_MIN <= item <= INT64_MAX:
            return "a number is out of range (integers must fit in 64 bits)"
        if isinstance(item, str) and "\x00" in item:
            return "text must not contain NUL (\\u0000)"
        if isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return None


def _usable_id(value: Any) -> RequestId:
    """``value`` as a request id to copy into the answer, if it can be one."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    if isinstance(value, int) and not INT64_MIN <= value <= INT64_MAX:
        return None
    return value


def request_id_of(frame: str | bytes) -> RequestId:
    """The ``id`` of a frame without handling it (to answer a refused message), or None."""
    try:
        value = _envelope_decoder.decode(frame).id
    except (msgspec.MsgspecError, RecursionError):
        return None
    return _usable_id(value)


def parse(frame: str | bytes) -> ClientMessage:
    """Turn one inbound frame into a client message.

    Raises:
        ProtocolError: ``bad_json``, ``unknown_type`` or ``invalid_message``; its
            details carry the request ``id`` when one could be read.
    """
    if not _may_hold_unstorable(frame):
        try:
            return _typed_decoder.decode(frame)  # the common case, in one pass
        except msgspec.DecodeError:
            pass  # now find out what exactly is wrong, for a precise error
        except RecursionError:
            raise ProtocolError("invalid_message", reason=TOO_DEEP) from None
    try:
        raw = _client_decoder.decode(frame)
    except msgspec.DecodeError:
        raise ProtocolError("bad_json") from None
    except RecursionError:
        raise ProtocolError("invalid_message", reason=TOO_DEEP) from None
    if not isinstance(raw, dict):
        raise ProtocolError("invalid_message", reason="a message must be a JSON object")
    request_id = _usable_id(raw.get("id"))
    problem = unstorable(raw)
    if problem is not None:
        error = ProtocolError("invalid_message", reason=problem)
        error.request_id = request_id
        raise error
    kind = raw.get("type")
    if not isinstance(kind, str) or kind not in CLIENT_TYPES:
        error = ProtocolError("unknown_type", type=kind if isinstance(kind, str) else None)
        error.request_id = request_id
        raise error
    try:
        message: ClientMessage = msgspec.convert(raw, ClientMessage)
    except RecursionError:
        error = ProtocolError("invalid_message", reason=TOO_DEEP)
        error.request_id = request_id
        raise error from None
    except msgspec.ValidationError as err:
        error = ProtocolError("invalid_message", reason=str(err))
        error.request_id = request_id
        raise error from None
    return message


def encode(message: Message) -> bytes:
    """Serialise a server message to JSON bytes (sent as a text frame)."""
    return _encoder.encode(message)
