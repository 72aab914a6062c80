"""What the arena service reads to answer and to push: an arena, its standings, a
player's races, what changed since a version, the arenas open now (sql/0180_arenas.sql).

Nothing here locks: these are reads of committed rows, each a snapshot of one moment.
"""

from __future__ import annotations

from dataclasses import dataclass

import asyncpg

from server import protocol as p
from server.store.arena import settings_of
from server.store.pool import from_ms, guarded, to_ms

# The standings' order, as the core's ``standings_key`` (index arena_players_standings).
_STANDINGS_SQL = """
select player_id, name, score, streak, races, wins, status
from arena_players where arena_id=$1
order by score desc, score_at, joined_at, player_id
"""


@dataclass(frozen=True, slots=True)
class ArenaRow:
    """An arena as stored, for the protocol (``settings`` already in its wire form)."""

    arena_id: int
    creator_id: int | None
    state: str
    settings: p.ArenaSettings
    starts_at: int
    ends_at: int
    finished_at: int | None
    version: int


@dataclass(frozen=True, slots=True)
class SeatChange:
    """A seat of a race placed or scored since a version (``placed``, ``scored``)."""

    pairing: int
    player_id: int
    name: str
    race_id: int | None
    done: bool
    rank: int | None
    racers: int | None
    points: int | None
    fire: bool
    placed: bool  # its pairing's race was placed after the version
    scored: bool  # it was scored after the version


@dataclass(frozen=True, slots=True)
class ArenaChanges:
    """An arena as stored at one moment, and its seats written after a version."""

    arena: ArenaRow
    standings: list[p.ArenaLine]
    seats: list[SeatChange]


def wire_settings(row: asyncpg.Record) -> p.ArenaSettings:
    """An arena row's settings as the protocol sends them."""
    s = settings_of(row)
    return p.ArenaSettings(
        variant=s.variant,
        options=s.options,
        minutes=s.duration_ms // 60_000,
        race_time_s=s.race_time_ms // 1000,
        race_size=s.race_size,
        countdown_s=s.countdown_ms // 1000,
        rated=s.rated,
        title=s.title,
    )


def _arena_row(row: asyncpg.Record) -> ArenaRow:
    return ArenaRow(
        arena_id=row["id"],
        creator_id=row["creator_id"],
        state=row["state"],
        settings=wire_settings(row),
        starts_at=to_ms(row["starts_at"]) or 0,
        ends_at=to_ms(row["ends_at"]) or 0,
        finished_at=to_ms(row["finished_at"]),
        version=row["version"],
    )


class ArenaReads:
    """Reads of the arenas' committed rows."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    @guarded
    async def arena(self, arena_id: int) -> tuple[ArenaRow, list[p.ArenaLine]] | None:
        """An arena and its whole standings, first place first, read in one snapshot."""
        async with self.pool.acquire() as conn, conn.transaction(isolation="repeatable_read"):
            row = await conn.fetchrow("select * from arenas where id=$1", arena_id)
            if row is None:
                return None
            lines = await conn.fetch(_STANDINGS_SQL, arena_id)
        return _arena_row(row), _lines(lines)

    @guarded
    async def versions(self, arena_ids: list[int]) -> dict[int, int]:
        """The stored version of each of these arenas."""
        rows = await self.pool.fetch(
            "select id, version from arenas where id = any($1::bigint[])", arena_ids
        )
        return {row["id"]: row["version"] for row in rows}

    @guarded
    async def changes(self, arena_id: int, version: int) -> ArenaChanges | None:
        """The arena, its standings, and its seats placed or scored after ``version`` (with
        their players' names: all the seats of a race placed since), in one snapshot."""
        async with self.pool.acquire() as conn, conn.transaction(isolation="repeatable_read"):
            row = await conn.fetchrow("select * from arenas where id=$1", arena_id)
            if row is None:
                return None
            lines = await conn.fetch(_STANDINGS_SQL, arena_id)
            seats = await conn.fetch(
                """
                select s.pairing, s.player_id, a.name, s.race_id, s.done, s.rank, s.racers,
                    s.points, s.fire, coalesce(s.placed_version > $2, false) as placed,
                    (s.points is not null and s.version > $2) as scored
                from arena_seats s
                join arena_players a on a.arena_id = s.arena_id and a.player_id = s.player_id
                where s.arena_id=$1 and (s.placed_version > $2
                    or (s.points is not null and s.version > $2))
                order by s.pairing, s.player_id
                """,
                arena_id,
                version,
            )
        return ArenaChanges(
            _arena_row(row),
            _lines(lines),
            [
                SeatChange(
                    pairing=r["pairing"],
                    player_id=r["player_id"],
                    name=r["name"],
                    race_id=r["race_id"],
                    done=r["done"],
                    rank=r["rank"],
                    racers=r["racers"],
                    points=r["points"],
                    fire=r["fire"],
                    placed=r["placed"],
                    scored=r["scored"],
                )
                for r in seats
            ],
        )

    @guarded
    async def current_race(self, arena_id: int, player_id: int) -> int | None:
        """The race the player is in now in the arena, if any."""
        found = await self.pool.fetchval(
            """
            select s.race_id from arena_seats s
            join arena_players a on a.arena_id = s.arena_id and a.player_id = s.player_id
            where s.arena_id=$1 and s.player_id=$2 and a.status = 'racing'
              and s.race_id is not null and not s.done
            order by s.pairing desc limit 1
            """,
            arena_id,
            player_id,
        )
        return None if found is None else int(found)

    @guarded
    async def races_of(self, arena_id: int, player_id: int) -> list[p.ArenaRace]:
        """A player's races in an arena, in the order they were paired."""
        rows = await self.pool.fetch(
            """
            select pairing, race_id, rank, racers, points, fire from arena_seats
            where arena_id=$1 and player_id=$2 order by pairing
            """,
            arena_id,
            player_id,
        )
        return [
            p.ArenaRace(
                pairing=r["pairing"],
                race=r["race_id"],
                rank=r["rank"] if r["points"] is not None else None,
                racers=r["racers"] if r["points"] is not None else None,
                points=r["points"],
                fire=r["fire"],
            )
            for r in rows
        ]

    @guarded
    async def open_arenas(self, variant: str | None, now: int, limit: int) -> list[p.ArenaSummary]:
        """The arenas not finished, soonest first (index arenas_open)."""
        rows = await self.pool.fetch(
            """
            select a.*, (select count(*) from arena_players x where x.arena_id = a.id) as players
            from arenas a
            where a.state <> 'finished' and ($1::text is null or a.variant = $1)
              and a.ends_at > $2
            order by a.starts_at, a.id limit $3
            """,
            variant,
            from_ms(now),
            limit,
        )
        return [
            p.ArenaSummary(
                arena=r["id"],
                state=r["state"],
                settings=wire_settings(r),
                starts_at=to_ms(r["starts_at"]) or 0,
                ends_at=to_ms(r["ends_at"]) or 0,
                players=r["players"],
            )
            for r in rows
        ]


def _lines(rows: list[asyncpg.Record]) -> list[p.ArenaLine]:
    return [
        p.ArenaLine(
            rank=rank,
            player=r["player_id"],
            name=r["name"],
            score=r["score"],
            streak=r["streak"],
            fire=r["streak"] >= 2,
            races=r["races"],
            wins=r["wins"],
            status=r["status"],
        )
        for rank, r in enumerate(rows, start=1)
    ]
