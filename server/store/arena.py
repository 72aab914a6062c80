"""Arenas as stored: created, and changed one at a time under a lock on the arena's row.

Every change to an arena (a request, a pairing round) loads the arena core
(server/core/arena.py) from its rows inside a transaction that holds the arena's row
(``select … for update``), lets the core decide, and writes what changed in the same
transaction (sql/0180_arenas.sql). So the arena has one owner for the length of each
change, whichever process makes it: two processes never pair a player twice. A pairing
round skips an arena another process holds at that moment (``skip locked``): that one is
already doing the round.

The reads the pushes and replies need (standings, a player's races, lists) are in
``server.store.arena_reads``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from server.core.arena import Arena
from server.core.arena_rules import Seat
from server.core.arena_values import ArenaPlayer, ArenaSettings, ArenaState, Decision, Status
from server.store.pool import from_ms, guarded, to_ms


@dataclass(frozen=True, slots=True)
class SeatOutcome:
    """How a placed race stands for one of its arena players: done (won, gave up, or the
    race is over), the moves on their game's counter, and their rank once it ended."""

    race_id: int
    player_id: int
    status: str  # the entry's: playing, won, resigned, left
    race_finished: bool
    rank: int | None
    moves: int


# A change of an arena: the core as loaded, the placed races' outcomes (for a pairing
# round), the time; returns the core's decisions.
Change = Callable[[Arena, list[SeatOutcome]], list[Decision]]

_OUTCOMES_SQL = """
select s.race_id, s.player_id, e.status, r.state = 'finished' as race_finished, res.rank,
    coalesce(res.moves, (
        select count(*) filter (where m.action not in ('undo', 'hint'))
             - count(*) filter (where m.action = 'undo')
        from moves m where m.game_id = e.id)) as moves
from arena_seats s
join races r on r.id = s.race_id
join lateral (
    select id, status from entries
    where race_id = s.race_id and player_id = s.player_id
    order by (status = 'left'), id desc limit 1
) e on true
left join results res on res.entry_id = e.id
where s.arena_id = $1 and s.race_id is not null and s.rank is null
  and (e.status <> 'playing' or r.state = 'finished')
"""


class ArenaStore:
    """The arenas in the server's database, changed one at a time."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    @guarded
    async def create(
        self,
        creator_id: int | None,
        settings: ArenaSettings,
        starts_at: int,
        schedule: str | None = None,
        limit: int | None = None,
    ) -> int | None:
        """Store a new arena; its id, or None when the schedule entry's arena for that
        start exists already (another process made it), or when the creator has
        ``limit`` arenas not finished already (counted under a lock of the creator's, so
        two requests at once cannot both pass)."""
        async with self.pool.acquire() as conn, conn.transaction():
            if creator_id is not None and limit is not None:
                await conn.execute(
                    "select pg_advisory_xact_lock(hashtext('arena-creator:' || $1::bigint::text))",
                    creator_id,
                )
                open_ = await conn.fetchval(
                    "select count(*) from arenas where creator_id = $1 and state <> 'finished'",
                    creator_id,
                )
                if open_ >= limit:
                    return None
            arena_id = await conn.fetchval(
                """
                insert into arenas (creator_id, schedule, title, variant, options, duration_s,
                    race_time_s, countdown_s, race_size, rated, starts_at, ends_at)
                values ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10, $11, $12)
                on conflict (schedule, starts_at) where schedule is not null do nothing
                returning id
                """,
                creator_id,
                schedule,
                settings.title,
                settings.variant,
                json.dumps(settings.options),
                settings.duration_ms // 1000,
                settings.race_time_ms // 1000,
                settings.countdown_ms // 1000,
                settings.race_size,
                settings.rated,
                from_ms(starts_at),
                from_ms(starts_at + settings.duration_ms),
            )
        return None if arena_id is None else int(arena_id)

    @guarded
    async def change(
        self, arena_id: int, change: Change, *, round_: bool = False
    ) -> tuple[Arena, list[Decision]] | None:
        """Load the arena holding its row, apply ``change``, store what changed.

        A pairing round (``round_``) skips an arena another transaction holds (None) and
        hands ``change`` the outcomes of its placed races; a request waits for the lock.
        An error raised by ``change`` rolls everything back. None also for no such arena.
        """
        async with self.pool.acquire() as conn, conn.transaction():
            arena = await _load(conn, arena_id, skip_locked=round_)
            if arena is None:
                return None
            outcomes = await _outcomes(conn, arena_id) if round_ else []
            before = (arena.state, arena.pairings, arena.finished_at)
            decisions = change(arena, outcomes)
            if (arena.state, arena.pairings, arena.finished_at) != before or _dirty(arena):
                await _save(conn, arena)
        return arena, decisions

    @guarded
    async def due(self, now: int) -> list[int]:
        """The arenas a pairing round has work in: started (or due to) and not finished."""
        rows = await self.pool.fetch(
            "select id from arenas where state <> 'finished' and starts_at <= $1 order by id",
            from_ms(now),
        )
        return [row["id"] for row in rows]


def _dirty(arena: Arena) -> bool:
    return bool(arena.changed or arena.changed_seats or arena.dropped_seats)


async def _load(conn: PoolConnectionProxy, arena_id: int, *, skip_locked: bool) -> Arena | None:
    lock = "for update skip locked" if skip_locked else "for update"
    row = await conn.fetchrow(f"select * from arenas where id=$1 {lock}", arena_id)
    if row is None:
        return None
    arena = Arena(
        arena_id=row["id"],
        creator_id=row["creator_id"],
        settings=settings_of(row),
        starts_at=to_ms(row["starts_at"]) or 0,
        state=ArenaState(row["state"]),
        pairings=row["pairings"],
        finished_at=to_ms(row["finished_at"]),
        version=row["version"],
    )
    for p in await conn.fetch("select * from arena_players where arena_id=$1", arena_id):
        arena.players[p["player_id"]] = ArenaPlayer(
            player_id=p["player_id"],
            name=p["name"],
            rating=p["rating"],
            joined_at=to_ms(p["joined_at"]) or 0,
            status=Status(p["status"]),
            score=p["score"],
            streak=p["streak"],
            best_streak=p["best_streak"],
            races=p["races"],
            wins=p["wins"],
            score_at=to_ms(p["score_at"]) or 0,
            pause_after=p["pause_after"],
            withdraw=p["withdraw"],
        )
    seats = await conn.fetch(
        "select * from arena_seats where arena_id=$1 and points is null order by pairing",
        arena_id,
    )
    for s in seats:
        player = arena.players.get(s["player_id"])
        if player is not None:
            player.seats.append(
                Seat(
                    pairing=s["pairing"],
                    paired_at=to_ms(s["paired_at"]) or 0,
                    race_id=s["race_id"],
                    done=s["done"],
                    rank=s["rank"],
                    racers=s["racers"],
                    moves=s["moves"],
                )
            )
    return arena


def settings_of(row: asyncpg.Record) -> ArenaSettings:
    """An arena row's settings, as the core takes them."""
    return ArenaSettings(
        variant=row["variant"],
        options=json.loads(row["options"]),
        duration_ms=row["duration_s"] * 1000,
        race_time_ms=row["race_time_s"] * 1000,
        countdown_ms=row["countdown_s"] * 1000,
        race_size=row["race_size"],
        rated=row["rated"],
        title=row["title"],
    )


async def _outcomes(conn: PoolConnectionProxy, arena_id: int) -> list[SeatOutcome]:
    return [
        SeatOutcome(
            race_id=row["race_id"],
            player_id=row["player_id"],
            status=row["status"],
            race_finished=row["race_finished"],
            rank=row["rank"],
            moves=max(0, row["moves"] or 0),
        )
        for row in await conn.fetch(_OUTCOMES_SQL, arena_id)
    ]


async def _save(conn: PoolConnectionProxy, arena: Arena) -> None:
    """Write what changed, stamped with the arena's next version."""
    arena.version += 1
    version = arena.version
    await conn.execute(
        "update arenas set state=$2, pairings=$3, finished_at=$4, version=$5 where id=$1",
        arena.arena_id,
        arena.state.value,
        arena.pairings,
        from_ms(arena.finished_at),
        version,
    )
    kept = [arena.players[i] for i in sorted(arena.changed) if i in arena.players]
    gone = [i for i in sorted(arena.changed) if i not in arena.players]
    if gone:
        await conn.execute(
            "delete from arena_players where arena_id=$1 and player_id = any($2::bigint[])",
            arena.arena_id,
            gone,
        )
    if kept:
        await conn.executemany(_UPSERT_PLAYER, [_player_row(arena, p, version) for p in kept])
    for pairing, player_id in sorted(arena.dropped_seats):
        await conn.execute(
            "delete from arena_seats where arena_id=$1 and pairing=$2 and player_id=$3",
            arena.arena_id,
            pairing,
            player_id,
        )
    if arena.changed_seats:
        await conn.executemany(
            _UPSERT_SEAT,
            [
                _seat_row(arena.arena_id, player_id, seat, version)
                for (_, player_id), seat in sorted(arena.changed_seats.items())
            ],
        )
    arena.changed.clear()
    arena.changed_seats.clear()
    arena.dropped_seats.clear()


_UPSERT_PLAYER = """
insert into arena_players (arena_id, player_id, name, rating, status, score, streak,
    best_streak, races, wins, score_at, joined_at, pause_after, withdraw, version)
values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
on conflict (arena_id, player_id) do update set
    status = excluded.status, score = excluded.score, streak = excluded.streak,
    best_streak = excluded.best_streak, races = excluded.races, wins = excluded.wins,
    score_at = excluded.score_at, pause_after = excluded.pause_after,
    withdraw = excluded.withdraw, version = excluded.version
"""

_UPSERT_SEAT = """
insert into arena_seats (arena_id, pairing, player_id, paired_at, race_id, done, rank,
    racers, moves, points, fire, version)
values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
on conflict (arena_id, pairing, player_id) do update set
    placed_version = case when arena_seats.race_id is null and excluded.race_id is not null
        then excluded.version else arena_seats.placed_version end,
    race_id = excluded.race_id, done = excluded.done, rank = excluded.rank,
    racers = excluded.racers, moves = excluded.moves, points = excluded.points,
    fire = excluded.fire, version = excluded.version
"""


def _player_row(arena: Arena, p: ArenaPlayer, version: int) -> tuple[Any, ...]:
    return (
        arena.arena_id,
        p.player_id,
        p.name,
        p.rating,
        p.status.value,
        p.score,
        p.streak,
        p.best_streak,
        p.races,
        p.wins,
        from_ms(p.score_at),
        from_ms(p.joined_at),
        p.pause_after,
        p.withdraw,
        version,
    )


def _seat_row(arena_id: int, player_id: int, s: Seat, version: int) -> tuple[Any, ...]:
    return (
        arena_id,
        s.pairing,
        player_id,
        from_ms(s.paired_at),
        s.race_id,
        s.done,
        s.rank,
        s.racers,
        s.moves,
        s.points,
        s.fire,
        version,
    )
