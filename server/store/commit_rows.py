"""The group commit's rows and statements (server/store/commit.py): moves and race
events as column arrays, inserted in one statement or the careful way, and looked up
after a cut commit.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, NamedTuple

from server.core.session import MoveRow


class EventRow(NamedTuple):
    """One race event, as JSON text."""

    race_id: int
    seq: int
    kind: str
    body: str
    at: datetime
    fence: int  # of the lease it was numbered under


INSERT_MOVES = """
    insert into moves (game_id, seq, action, move_id)
    select * from unnest($1::bigint[], $2::int[], $3::text[], $4::text[])
    on conflict do nothing
    returning game_id, seq
"""

# An event row is stored only while its race's lease has no other fencing number than
# the one it carries (a finished race's lease is gone: its last events, a rematch, are
# stored as they come).
FENCED = """not exists (
    select 1 from race_leases l where l.race_id = e.race_id and l.fence <> e.fence)"""

# The common batch (moves and events, no other statements) in one statement, so one
# round trip commits it. If a move row conflicts, its insert fails on the moves' key;
# if an event row does (or is refused by its fence), the last line divides by zero.
# Either rolls the whole statement back, and the batch is then done the careful way,
# which finds the losers. (PostgreSQL runs a data-modifying WITH part once whether or
# not it is read.)
INSERT_ALL = f"""
    with logged as (
        insert into moves (game_id, seq, action, move_id)
        select * from unnest($1::bigint[], $2::int[], $3::text[], $4::text[])
    ), events as (
        insert into race_events (race_id, seq, kind, body, at)
        select e.race_id, e.seq, e.kind, e.body, e.at
        from unnest($5::bigint[], $6::int[], $7::text[], $8::jsonb[], $9::timestamptz[],
                    $11::bigint[]) as e(race_id, seq, kind, body, at, fence)
        where {FENCED}
        on conflict do nothing
        returning 1
    )
    select 1 / (1 - sign($10::int - (select count(*) from events)))::int
"""

INSERT_EVENTS = f"""
    insert into race_events (race_id, seq, kind, body, at)
    select e.race_id, e.seq, e.kind, e.body, e.at
    from unnest($1::bigint[], $2::int[], $3::text[], $4::jsonb[], $5::timestamptz[],
                $6::bigint[]) as e(race_id, seq, kind, body, at, fence)
    where {FENCED}
    on conflict do nothing
    returning race_id, seq
"""

# Which of a batch's rows are stored already, with the same content: asked only after
# a commit was cut, to tell a batch that landed from one that did not.
LANDED = """
    select
        (select count(*)
         from unnest($1::bigint[], $2::int[], $3::text[], $4::text[])
             as b(game_id, seq, action, move_id)
         join moves m using (game_id, seq)
         where m.action = b.action and m.move_id is not distinct from b.move_id),
        (select count(*)
         from unnest($5::bigint[], $6::int[], $7::text[], $8::jsonb[])
             as b(race_id, seq, kind, body)
         join race_events e using (race_id, seq)
         where e.kind = b.kind and e.body = b.body)
"""


def columns(moves: list[MoveRow], events: list[EventRow]) -> tuple[list[Any], ...]:
    """The moves' and events' key and content as column arrays, in the order both the
    batched insert and the lookup of a cut commit (``LANDED``) take them."""
    return (
        [m.game_id for m in moves],
        [m.seq for m in moves],
        [m.action for m in moves],
        [m.move_id for m in moves],
        [e.race_id for e in events],
        [e.seq for e in events],
        [e.kind for e in events],
        [e.body for e in events],
    )
