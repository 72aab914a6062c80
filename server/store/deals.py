"""Deal ratings in PostgreSQL, and solo games rated as games against the deal
(sql/0131_deal_ratings.sql).

A deal's row holds the solver's verdict and the positions it searched (its first rating
is computed from them, server/core/deals.py) and its rating now. A daily deal's row is
made from the daily's own proof the first time it is needed. Rating a daily attempt is
one transaction under its pool's lock, as a race's is (server/store/ratings.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date

import asyncpg

from server.core import deals
from server.core.ratings import (
    SIGNED_IN_PREFIXES,
    Placed,
    Skill,
    pool_options,
    rate_solo,
    signed_in,
)
from server.store.pool import guarded
from server.store.ratings import (
    LOCK,
    Conn,
    Pool,
    RatedGame,
    rated_game,
    skills_of,
    write_players,
)

_ATTEMPT_SQL = """
select d.entry_id, d.variant, d.status, d.player_id, d.ranked, d.held, e.options,
       dd.seed, dd.verdict, dd.solver_nodes, p.principal
from daily_entries d
join entries e on e.id = d.entry_id
join daily_deals dd on dd.variant = d.variant and dd.day = d.day
join players p on p.id = d.player_id
where d.entry_id = $1
"""


@dataclass(frozen=True, slots=True)
class DealRating:
    """A deal's rating and the solver's work it started from."""

    pool: Pool
    seed: int
    verdict: str
    solver_nodes: int
    skill: Skill
    games: int


def _deal(row: asyncpg.Record) -> DealRating:
    return DealRating(
        Pool(row["variant"], row["options"]),
        int(row["seed"]),
        row["verdict"],
        row["solver_nodes"],
        Skill(row["mu"], row["sigma"]),
        row["games"],
    )


async def ensure_deal(
    conn: Conn, pool: Pool, seed: int, verdict: str, nodes: int, practice: bool = False
) -> DealRating:
    """The deal's row, made with its first rating when it has none (``practice`` marks
    it as one a practice game may be given)."""
    first = deals.prior(deals.estimate(verdict, nodes))
    row = await conn.fetchrow(
        """
        insert into deal_ratings (variant, options, seed, verdict, solver_nodes, mu, sigma,
                                  practice)
        values ($1, $2, $3, $4, $5, $6, $7, $8)
        on conflict (variant, options, seed) do update
        set practice = deal_ratings.practice or excluded.practice
        returning *
        """,
        pool.variant,
        pool.options,
        seed,
        verdict,
        nodes,
        first.mu,
        first.sigma,
        practice,
    )
    assert row is not None
    return _deal(row)


class DealStore:
    """Reads and writes of deal ratings and of solo games rated against deals."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    @guarded
    async def ensure(
        self, pool: Pool, seed: int, verdict: str, nodes: int, practice: bool = False
    ) -> DealRating:
        """The deal's row, made when it has none (``ensure_deal``)."""
        async with self.pool.acquire() as conn:
            return await ensure_deal(conn, pool, seed, verdict, nodes, practice)

    @guarded
    async def daily(self, variant: str, day: date) -> DealRating | None:
        """The rating of a day's deal (made from the daily's proof), or None when the
        day has no deal yet."""
        row = await self.pool.fetchrow(
            "select seed, verdict, solver_nodes from daily_deals where variant = $1 and day = $2",
            variant,
            day,
        )
        if row is None:
            return None
        pool = Pool(variant, pool_options(variant, {}))
        async with self.pool.acquire() as conn:
            return await ensure_deal(
                conn, pool, int(row["seed"]), row["verdict"], row["solver_nodes"]
            )

    @guarded
    async def practice_seed(
        self, pool: Pool, low: float, high: float, player_id: int
    ) -> DealRating | None:
        """A practice deal rated µ in [low, high) that the player has not been dealt yet
        (any game of theirs on that seed), chosen at random; None when the stock has none."""
        row = await self.pool.fetchrow(
            """
            select * from deal_ratings r
            where r.variant = $1 and r.options = $2 and r.practice and r.verdict = 'winnable'
              and r.mu >= $3 and r.mu < $4
              and not exists (select 1 from entries e where e.player_id = $5
                              and e.variant = r.variant and e.seed = r.seed)
            order by random() limit 1
            """,
            pool.variant,
            pool.options,
            low,
            high,
            player_id,
        )
        return None if row is None else _deal(row)

    # ------------------------------------------------------------ solo games

    @guarded
    async def pending_attempts(self, limit: int = 100) -> list[int]:
        """Daily attempts over and counted, of signed-in players, not rated yet, in the
        order they ended."""
        rows = await self.pool.fetch(
            """
            select d.entry_id from daily_entries d join players p on p.id = d.player_id
            where d.ranked and d.held is null and d.status <> 'playing'
              and p.principal like any($1::text[])
              and not exists (select 1 from rated_games g where g.entry_id = d.entry_id)
            order by d.finished_at, d.entry_id limit $2
            """,
            [f"{prefix}%" for prefix in SIGNED_IN_PREFIXES],
            limit,
        )
        return [row["entry_id"] for row in rows]

    @guarded
    async def rate_attempt(self, entry_id: int) -> RatedGame | None:
        """Rate a daily attempt once, as a game of the player against the deal: None
        when it is not over, not counted (practice, or held by the fair-play review),
        not a signed-in player's, or already rated."""
        async with self.pool.acquire() as conn, conn.transaction():
            row = await conn.fetchrow(_ATTEMPT_SQL, entry_id)
            if (
                row is None
                or not row["ranked"]
                or row["held"] is not None
                or row["status"] == "playing"
                or not signed_in(row["principal"])
            ):
                return None
            variant = row["variant"]
            pool = Pool(variant, pool_options(variant, json.loads(row["options"])))
            await conn.execute(LOCK, pool.variant, pool.options)
            if await conn.fetchval("select 1 from rated_games where entry_id = $1", entry_id):
                return None
            seed = int(row["seed"])
            deal = await ensure_deal(conn, pool, seed, row["verdict"], row["solver_nodes"])
            player = row["player_id"]
            before = await skills_of(conn, pool, [player])
            won = row["status"] == "won"
            after, deal_after = rate_solo(before.get(player, (Skill(), 0))[0], deal.skill, won)
            game_id = await conn.fetchval(
                """
                insert into rated_games (variant, options, entry_id, seed, deal_mu_before,
                    deal_sigma_before, deal_mu, deal_sigma)
                values ($1, $2, $3, $4, $5, $6, $7, $8) returning id
                """,
                pool.variant,
                pool.options,
                entry_id,
                seed,
                deal.skill.mu,
                deal.skill.sigma,
                deal_after.mu,
                deal_after.sigma,
            )
            placed = {player: Placed(1 if won else 2, after)}
            await write_players(conn, pool, game_id, before, placed)
            await conn.execute(
                "update deal_ratings set mu = $4, sigma = $5, games = games + 1 "
                "where variant = $1 and options = $2 and seed = $3",
                pool.variant,
                pool.options,
                seed,
                deal_after.mu,
                deal_after.sigma,
            )
            return await rated_game(conn, game_id)
