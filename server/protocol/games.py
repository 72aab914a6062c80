"""Game messages: practice games and every action on a game (move, undo, hint, …), and
the player's view sent back.

docs/protocol.md, "Games", documents each message.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

import msgspec

from server.protocol.envelope import GuildId, Message, Request
from server.protocol.ratings import DealDifficulty, Difficulty
from server.protocol.view import PlayerView

# ---------------------------------------------------------------- client → server


class Practice(Request, tag="practice", kw_only=True):
    """Start a one-player game outside any race; ``difficulty`` asks for a deal of that
    band (not with ``seed``)."""

    variant: str
    options: dict[str, int | str | bool] = {}
    seed: int | None = None
    guild_id: GuildId | None = None
    difficulty: Difficulty | None = None


# The longest time a record may claim: a week. Practice counts on no board, so a claimed
# time changes nothing but what its own replay shows.
RECORD_TIME_LIMIT_MS: Final = 7 * 24 * 3_600_000


class PracticeRecord(Request, tag="practice_record", kw_only=True):
    """A practice game played without the server (the page offline), sent once it is
    over: its deal and every action in order. The server replays it with the engine
    and keeps it as a finished practice game, which counts on no board."""

    variant: str
    options: dict[str, int | str | bool] = {}
    seed: int
    actions: list[str]
    resigned: bool = False
    # How long the game took, as the page measured it (ms): the game's clock then shows
    # it. Without it a won record shows no time to speak of (started when it arrived).
    time_ms: Annotated[int, msgspec.Meta(ge=0, le=RECORD_TIME_LIMIT_MS)] | None = None


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


# ---------------------------------------------------------------- server → client


class ViewReply(Message, tag="view", kw_only=True):
    """The player's view of a game after a change (or on request)."""

    game: int
    view: PlayerView
    race: int | None = None
    played: list[str] = []
    move_id: str | None = None
    duplicate: bool = False
    hint: str | None = None
    # "solver": the hint is the first move of a win the solver found; "engine": a
    # useful-looking move (no solver help here, or the solver found no win in time).
    hint_source: Literal["solver", "engine"] | None = None
    # The deal's difficulty, on the reply to a practice that asked for one.
    difficulty: DealDifficulty | None = None


class WinnabilityReply(Message, tag="winnability", kw_only=True):
    """Reply to check, or sent unasked (no id) once a game with solver help is proven
    lost: what the solver says about the game's position after ``seq`` actions."""

    game: int
    seq: int
    verdict: Literal["winnable", "lost", "unknown"]
