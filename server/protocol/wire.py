"""The closed sets of messages in each direction, and the codec between them and frames.

Parsing follows lila-ws: every inbound frame becomes either one of the closed set of
client messages or a typed ``ProtocolError`` (bad JSON, unknown type, invalid fields),
never an exception escaping the connection and never a silent drop.
"""

from __future__ import annotations

from typing import Any

import msgspec

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
from server.protocol.envelope import ErrorMessage, Hello, Message, RequestId, Welcome
from server.protocol.errors import ProtocolError
from server.protocol.games import (
    AutoFinish,
    Check,
    GetView,
    Hint,
    JumpBack,
    Move,
    Practice,
    Resign,
    Undo,
    ViewReply,
    WinnabilityReply,
)
from server.protocol.races import (
    CreateRace,
    Event,
    EventsReply,
    GetRace,
    JoinRace,
    LeaveRace,
    RaceReply,
    Resume,
    StartRace,
)

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
