"""Ratings in PostgreSQL: which races are rated, the ledger of rated games, each player's
rating per pool and what every rated game changed (sql/0130_ratings.sql).

Rating a game is one transaction under a transaction-scoped advisory lock of its pool,
so the games of one pool are rated one at a time, in the order of their ledger ids,
whichever process rates them; the rebuild takes the same lock and replays the ledger in
that order. The arithmetic is server/core/ratings.py's, the same for the rebuild.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from server.core.ratings import Finish, Placed, Skill, rate_finishes
from server.store.pool import guarded

# A pooled connection or a plain one (the rebuild's).
Conn = asyncpg.Connection | PoolConnectionProxy

LOCK = "select pg_advisory_xact_lock(hashtext('rating:' || $1 || ':' || $2))"

_LINES_SQL = """
select r.race_id, r.player_id, p.principal, r.finished, r.resigned, r.time_ms, r.foundation
from results r join players p on p.id = r.player_id
where r.race_id = any($1::bigint[]) and r.held is distinct from 'barred'
order by r.race_id, r.player_id
"""


@dataclass(frozen=True, slots=True)
class Pool:
    """A rating pool: a variant and its options as canonical JSON."""

    variant: str
    options: str

    @property
    def options_dict(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.options)
        return value


@dataclass(frozen=True, slots=True)
class Change:
    """What one rated game did to one player."""

    player_id: int
    name: str
    place: int
    before: Skill
    after: Skill


@dataclass(frozen=True, slots=True)
class RatedGame:
    """A rated game: its ledger id, pool and changes."""

    game_id: int
    pool: Pool
    changes: list[Change]


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating in one pool."""

    pool: Pool
    skill: Skill
    games: int
    rated_at: datetime


@dataclass(frozen=True, slots=True)
class Point:
    """A player's rating after one rated game of a pool."""

    rated_at: datetime
    race_id: int | None
    before: Skill
    after: Skill


def _finish(row: asyncpg.Record) -> Finish:
    return Finish(
        player_id=row["player_id"],
        user=row["principal"],
        finished=row["finished"],
        resigned=row["resigned"],
        time_ms=row["time_ms"],
        foundation=row["foundation"],
    )


async def lines_of(conn: Conn, race_ids: list[int]) -> dict[int, list[Finish]]:
    by_race: dict[int, list[Finish]] = {race_id: [] for race_id in race_ids}
    for row in await conn.fetch(_LINES_SQL, race_ids):
        by_race[row["race_id"]].append(_finish(row))
    return by_race


async def skills_of(conn: Conn, pool: Pool, players: list[int]) -> dict[int, tuple[Skill, int]]:
    """The players' skills and rated games in a pool (those rated in it before)."""
    rows = await conn.fetch(
        "select player_id, mu, sigma, games from ratings "
        "where variant = $1 and options = $2 and player_id = any($3::bigint[])",
        pool.variant,
        pool.options,
        players,
    )
    return {r["player_id"]: (Skill(r["mu"], r["sigma"]), r["games"]) for r in rows}


async def write_players(
    conn: Conn,
    pool: Pool,
    game_id: int,
    before: Mapping[int, tuple[Skill, int]],
    placed: Mapping[int, Placed],
) -> None:
    """Store the players' new ratings and what the game ``game_id`` changed."""
    if not placed:
        return
    rated_at = await conn.fetchval("select rated_at from rated_games where id = $1", game_id)
    await conn.executemany(
        """
        insert into ratings (variant, options, player_id, mu, sigma, games, rated_at)
        values ($1, $2, $3, $4, $5, 1, $6)
        on conflict (variant, options, player_id) do update
        set mu = excluded.mu, sigma = excluded.sigma, games = ratings.games + 1,
            rated_at = excluded.rated_at
        """,
        [
            (pool.variant, pool.options, player, p.skill.mu, p.skill.sigma, rated_at)
            for player, p in placed.items()
        ],
    )
    new = Skill()
    await conn.executemany(
        "insert into rating_changes (game_id, player_id, place, mu_before, sigma_before, "
        "mu, sigma) values ($1, $2, $3, $4, $5, $6, $7)",
        [
            (
                game_id,
                player,
                p.place,
                before.get(player, (new, 0))[0].mu,
                before.get(player, (new, 0))[0].sigma,
                p.skill.mu,
                p.skill.sigma,
            )
            for player, p in placed.items()
        ],
    )


async def rated_game(conn: Conn, game_id: int) -> RatedGame:
    """A rated game of the ledger with its changes, names included."""
    head = await conn.fetchrow("select variant, options from rated_games where id = $1", game_id)
    assert head is not None  # written in this transaction, or read from the ledger
    rows = await conn.fetch(
        """
        select c.*, p.display_name from rating_changes c
        join players p on p.id = c.player_id
        where c.game_id = $1 order by c.place, c.player_id
        """,
        game_id,
    )
    changes = [
        Change(
            player_id=r["player_id"],
            name=r["display_name"],
            place=r["place"],
            before=Skill(r["mu_before"], r["sigma_before"]),
            after=Skill(r["mu"], r["sigma"]),
        )
        for r in rows
    ]
    return RatedGame(game_id, Pool(head["variant"], head["options"]), changes)


class RatingStore:
    """Reads and writes of ratings."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    # ------------------------------------------------------------ which races are rated

    @guarded
    async def mark_rated(self, race_id: int, pool: Pool) -> None:
        """The race is rated: its finishing order counts once it ends."""
        await self.pool.execute(
            "insert into rated_races (race_id, variant, options) values ($1, $2, $3) "
            "on conflict (race_id) do nothing",
            race_id,
            pool.variant,
            pool.options,
        )

    @guarded
    async def pending_races(self, limit: int = 100) -> list[int]:
        """Rated races that ended but were not rated yet (their owner stopped between),
        oldest end first."""
        rows = await self.pool.fetch(
            """
            select rr.race_id from rated_races rr join races r on r.id = rr.race_id
            where r.state = 'finished'
              and not exists (select 1 from rated_games g where g.race_id = rr.race_id)
            order by r.ended_at, rr.race_id limit $1
            """,
            limit,
        )
        return [row["race_id"] for row in rows]

    # ------------------------------------------------------------ rating a race

    @guarded
    async def rate_race(self, race_id: int) -> RatedGame | None:
        """Rate a finished rated race once: None when it is not rated, not finished, or
        already rated (the ledger holds each race at most once)."""
        async with self.pool.acquire() as conn, conn.transaction():
            row = await conn.fetchrow(
                "select rr.variant, rr.options, r.state, r.ranked from rated_races rr "
                "join races r on r.id = rr.race_id where rr.race_id = $1",
                race_id,
            )
            if row is None or row["state"] != "finished" or not row["ranked"]:
                return None
            pool = Pool(row["variant"], row["options"])
            await conn.execute(LOCK, pool.variant, pool.options)
            if await conn.fetchval("select 1 from rated_games where race_id = $1", race_id):
                return None
            lines = (await lines_of(conn, [race_id]))[race_id]
            before = await skills_of(conn, pool, [line.player_id for line in lines])
            placed = rate_finishes(lines, {player: skill for player, (skill, _) in before.items()})
            game_id = await conn.fetchval(
                "insert into rated_games (variant, options, race_id) values ($1, $2, $3) "
                "returning id",
                pool.variant,
                pool.options,
                race_id,
            )
            await write_players(conn, pool, game_id, before, placed)
            return await rated_game(conn, game_id)

    # ------------------------------------------------------------ reading

    @guarded
    async def race_game(self, race_id: int) -> tuple[Pool | None, RatedGame | None]:
        """A race's pool (None: not a rated race) and its rated game (None: not yet)."""
        async with self.pool.acquire() as conn:
            row = await conn.fetchrow(
                "select variant, options from rated_races where race_id = $1", race_id
            )
            if row is None:
                return None, None
            game_id = await conn.fetchval("select id from rated_games where race_id = $1", race_id)
            pool = Pool(row["variant"], row["options"])
            return pool, None if game_id is None else await rated_game(conn, game_id)

    @guarded
    async def player_ratings(self, player_id: int, variant: str | None) -> list[Rating]:
        """A player's ratings, one per pool (one variant's, or all), by variant."""
        rows = await self.pool.fetch(
            "select * from ratings where player_id = $1 and ($2::text is null or variant = $2) "
            "order by variant, options",
            player_id,
            variant,
        )
        return [
            Rating(
                Pool(r["variant"], r["options"]),
                Skill(r["mu"], r["sigma"]),
                r["games"],
                r["rated_at"],
            )
            for r in rows
        ]

    @guarded
    async def rating_of(self, player_id: int, pool: Pool) -> Skill:
        """A player's skill in a pool (a new player's when never rated in it)."""
        row = await self.pool.fetchrow(
            "select mu, sigma from ratings where variant = $1 and options = $2 and player_id = $3",
            pool.variant,
            pool.options,
            player_id,
        )
        return Skill() if row is None else Skill(row["mu"], row["sigma"])

    @guarded
    async def history(self, player_id: int, pool: Pool, limit: int) -> list[Point]:
        """A player's last ``limit`` rated games of a pool, oldest first."""
        rows = await self.pool.fetch(
            """
            select g.rated_at, g.race_id, c.mu_before, c.sigma_before, c.mu, c.sigma
            from rating_changes c join rated_games g on g.id = c.game_id
            where c.player_id = $1 and g.variant = $2 and g.options = $3
            order by g.id desc limit $4
            """,
            player_id,
            pool.variant,
            pool.options,
            limit,
        )
        return [
            Point(
                r["rated_at"],
                r["race_id"],
                Skill(r["mu_before"], r["sigma_before"]),
                Skill(r["mu"], r["sigma"]),
            )
            for r in reversed(rows)
        ]
