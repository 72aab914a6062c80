"""Race messages: create, join, leave, start and follow a race, and the events it sends.

docs/protocol.md, "Races", documents each message; the race core (server/core/race.py)
makes the events.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

import msgspec

from server.protocol.envelope import (
    GuildId,
    Message,
    PlayerInfo,
    Ranked,
    Request,
    Standing,
    UnrankedReason,
)

StartMode = Literal["now", "manual", "countdown"]

# The ranges of a race's numbers, (lowest, highest): the race core refuses a number
# outside with ``invalid_options`` naming every one (server/core/race.py,
# ``check_limits``), and the schema shows them as minimum and maximum.
MAX_PLAYERS: Final = (1, 100)
COUNTDOWN_S: Final = (0, 3600)
TIME_LIMIT_S: Final = (1, 86400)


def _within(bounds: tuple[int, int]) -> msgspec.Meta:
    """A range shown in the schema (checked by the race core, not by decoding)."""
    return msgspec.Meta(extra_json_schema={"minimum": bounds[0], "maximum": bounds[1]})


# ---------------------------------------------------------------- client → server


class CreateRace(Request, tag="create_race", kw_only=True):
    """Create a race; the creator joins it unless ``join`` is false."""

    variant: str
    options: dict[str, int | str | bool] = {}
    seed: int | None = None
    max_players: Annotated[int, _within(MAX_PLAYERS)] = 8
    start: StartMode = "manual"
    countdown_s: Annotated[int, _within(COUNTDOWN_S)] = 10
    time_limit_s: Annotated[int, _within(TIME_LIMIT_S)] | None = None
    allow_undo: bool = True
    allow_hints: bool = False
    guild_id: GuildId | None = None
    context: dict[str, Any] | None = None
    join: bool = True
    # The server deals a seed the solver proved winnable (when it draws the seed).
    require_winnable: bool = True
    # Players may ask the solver: hints, "still winnable?" checks, jump back.
    solver_help: bool = False


class JoinRace(Request, tag="join_race", kw_only=True):
    """Join a race in its lobby (or countdown)."""

    race: int


class Rematch(Request, tag="rematch", kw_only=True):
    """After a race: a new race with the same settings and a new deal. The first player
    to ask creates it; the race's other players asking later join that one.

    ``context`` (and ``guild_id``, else the old race's) go to the new race as in
    ``create_race``: a rematch is shown somewhere else than its old race (a new Discord
    message), so it never takes the old race's context."""

    race: int
    guild_id: GuildId | None = None
    context: dict[str, Any] | None = None


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


# ---------------------------------------------------------------- server → client


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
    # False: the race's results reach no board, because its deal could be seen or chosen
    # beforehand (the creator gave the seed) or the solver helps in it.
    ranked: bool = True


class RaceInfo(msgspec.Struct, kw_only=True):
    """A race's full state, as sent on create, join, get_race and a too-old resume."""

    race: int
    state: str
    seq: int
    creator: int
    settings: RaceSettings
    commitment: str
    players: list[Standing]
    # In the lobby: who may start it (the creator, or who took it over once they left).
    starter: int | None = None
    your_game: int | None = None
    starts_at: int | None = None
    ends_at: int | None = None
    ranking: list[Ranked] | None = None
    seed: str | None = None
    salt: str | None = None
    # While the race runs: every player's id, first place first, by the one ranking
    # rule (the final ranking's), so a client shows the server's places, never its own.
    order: list[int] | None = None
    # In a race that ranks, why the asking racer's result will not (``guest``: sign in).
    unranked: UnrankedReason | None = None


class RaceReply(Message, tag="race", kw_only=True):
    """Reply carrying a race's full state."""

    race: RaceInfo
    server_time: int


class LobbyEvent(msgspec.Struct, tag_field="kind", tag="lobby", kw_only=True):
    """Someone joined or left the lobby."""

    players: list[PlayerInfo]
    max_players: int
    # Who may start the race now: its creator, or once the creator left, the first to
    # have joined of those in the lobby; absent in an empty lobby.
    starter: int | None = None


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
    the last progress event, in their latest state. ``order`` is every player's id,
    first place first, by the one ranking rule (the final ranking's): a player who did
    not move may still change place. Absent from events stored before it existed.
    """

    standings: list[Standing]
    order: list[int] | None = None


class FinishEvent(msgspec.Struct, tag_field="kind", tag="finish", kw_only=True):
    """A player won their game."""

    player: int
    time_ms: int
    moves: int


class EndEvent(msgspec.Struct, tag_field="kind", tag="end", kw_only=True):
    """The race is over: final ranking, and the seed and salt behind the commitment."""

    # ``expired``: a lobby nobody joined or left for 30 minutes (no ranking: nobody played)
    reason: Literal["all_done", "time_limit", "expired"]
    ranking: list[Ranked]
    seed: str
    salt: str
    commitment: str


class RematchEvent(msgspec.Struct, tag_field="kind", tag="rematch", kw_only=True):
    """After the end: ``by`` opened a rematch, race ``rematch`` (same settings, new deal)."""

    rematch: int
    by: PlayerInfo


RaceEvent = (
    LobbyEvent | CountdownEvent | StartEvent | ProgressEvent | FinishEvent | EndEvent | RematchEvent
)


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
