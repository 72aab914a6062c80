"""The rows a change writes besides its moves and events, as typed values.

Each request's write (server/store/commit.py) carries its statements; a statement says
itself whether it must change a row: a race's state is stored compare-and-set on its
version, and when another process changed the race first the write fails with
``conflict`` instead of overwriting it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from server import protocol as p
from server.core.fairness import HELD_UNRANKED, HELD_UNREVIEWED
from server.core.race_records import StoredState
from server.store.pool import from_ms


@dataclass(frozen=True, slots=True)
class Statement:
    """One SQL statement of a write, run after the write's moves and events."""

    sql: str
    args: tuple[Any, ...]
    # True: the statement must change a row (it returns one), else the write fails.
    must_change_row: bool = False


def race_state(change: StoredState) -> Statement:
    """Store a race's new state if the stored one is still at ``change.version``."""
    return Statement(
        "update races set state=$2, starts_at=$3, ends_at=$4, end_reason=$5, "
        "ended_at = case when $2 = 'finished' then now() else ended_at end, "
        "version = version + 1 where id=$1 and version=$6 returning id",
        (
            change.race_id,
            change.state.value,
            from_ms(change.starts_at),
            from_ms(change.ends_at),
            change.end_reason,
            change.version,
        ),
        must_change_row=True,
    )


def entry_status(game_id: int, status: str, finished_at: int | None) -> Statement:
    """Store that a game was won, resigned or left."""
    return Statement(
        "update entries set status=$2, finished_at=$3 where id=$1",
        (game_id, status, from_ms(finished_at)),
    )


def result(
    race_id: int, game_id: int, line: p.Ranked, ranked: bool, unranked: str | None = None
) -> Statement:
    """Store one line of a race's final ranking. Every line of an unranked race is held
    back from the boards (``unranked``), and so is a player's who may not rank, with the
    reason (``unranked``: ``guest``, server/core/identity.py); a win of a ranked race
    counts only once the server has recomputed it (server/services/review.py), while a
    game not won claims nothing to check and counts at once."""
    held = HELD_UNRANKED if not ranked else unranked or (HELD_UNREVIEWED if line.finished else None)
    return Statement(
        "insert into results (entry_id, race_id, player_id, rank, finished, resigned, time_ms, "
        "moves, foundation, score, held) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) "
        "on conflict (entry_id) do nothing",
        (
            game_id,
            race_id,
            line.player,
            line.rank,
            line.finished,
            line.resigned,
            line.time_ms,
            line.moves,
            line.foundation,
            line.score,
            held,
        ),
    )
