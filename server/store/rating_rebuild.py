"""``solitaire ratings rebuild``: every rating recomputed from the ledger and the results.

Ratings are derived data. The ledger (``rated_games``) says which games were rated and in
which order; the stored results say how each ended (a race's result lines, a daily
attempt's status), and a deal's first rating comes from the solver's work kept with it.
Replaying the ledger in order with the live arithmetic (server/core/ratings.py) gives the
same floats (the arithmetic is deterministic and PostgreSQL's double precision keeps
every bit), so a rebuild of a healthy database changes nothing, and after a fix of the
arithmetic or of a result it puts every later number right. Each pool is rebuilt in one
transaction under the pool's lock, so a game rated meanwhile waits and then builds on
the rebuilt numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import asyncpg

from server.core import deals
from server.core.ratings import Placed, Skill, rate_finishes, rate_solo
from server.store.pool import guarded
from server.store.ratings import LOCK, Conn, Pool, lines_of

ChangeRow = tuple[int, int, int, float, float, float, float]
DealRow = tuple[float, float, float, float]  # a solo game's deal µ, σ before and after


@dataclass(frozen=True, slots=True)
class Rebuilt:
    """What a rebuild did: pools and games replayed, ratings written, and how many stored
    numbers (a player's or a deal's rating, one change of a game) differed from the
    recomputed ones."""

    pools: int = 0
    games: int = 0
    ratings: int = 0
    differing: int = 0


@dataclass
class Replay:
    """One pool's ledger replayed: every change in order, where each player and each
    deal ends."""

    skills: dict[int, tuple[Skill, int, datetime]] = field(default_factory=dict)
    changes: list[ChangeRow] = field(default_factory=list)
    deals: dict[int, tuple[Skill, int]] = field(default_factory=dict)
    solo: dict[int, DealRow] = field(default_factory=dict)

    def player(self, player: int, at: datetime) -> Skill:
        return self.skills.get(player, (Skill(), 0, at))[0]

    def placed(self, game_id: int, at: datetime, placed: Mapping[int, Placed]) -> None:
        """Record what a rated game did to its players."""
        for player, outcome in placed.items():
            before, count, _ = self.skills.get(player, (Skill(), 0, at))
            after = outcome.skill
            self.skills[player] = (after, count + 1, at)
            self.changes.append(
                (game_id, player, outcome.place, before.mu, before.sigma, after.mu, after.sigma)
            )

    def current(self) -> dict[int, Skill]:
        return {player: skill for player, (skill, _, _) in self.skills.items()}


@guarded
async def rebuild(pool: asyncpg.Pool) -> Rebuilt:
    """Recompute and store every pool's ratings (see the module docstring)."""
    rows = await pool.fetch(
        "select variant, options from rated_games union "
        "select variant, options from deal_ratings order by variant, options"
    )
    total = Rebuilt(pools=len(rows))
    for row in rows:
        async with pool.acquire() as conn, conn.transaction():
            games, players, differing = await _rebuild_pool(
                conn, Pool(row["variant"], row["options"])
            )
        total = Rebuilt(
            total.pools, total.games + games, total.ratings + players, total.differing + differing
        )
    return total


async def _rebuild_pool(conn: Conn, pool: Pool) -> tuple[int, int, int]:
    await conn.execute(LOCK, pool.variant, pool.options)
    games = await conn.fetch(
        """
        select g.id, g.race_id, g.entry_id, g.seed, g.rated_at, d.player_id, d.status
        from rated_games g left join daily_entries d on d.entry_id = g.entry_id
        where g.variant = $1 and g.options = $2
          and (d.entry_id is null or d.held is distinct from 'barred')
        order by g.id
        """,
        pool.variant,
        pool.options,
    )
    lines = await lines_of(conn, [g["race_id"] for g in games if g["race_id"] is not None])
    replay = Replay()
    stored_deals = {
        int(r["seed"]): r
        for r in await conn.fetch(
            "select * from deal_ratings where variant = $1 and options = $2",
            pool.variant,
            pool.options,
        )
    }
    for seed, row in stored_deals.items():
        replay.deals[seed] = (deals.prior(deals.estimate(row["verdict"], row["solver_nodes"])), 0)
    for game in games:
        at = game["rated_at"]
        if game["race_id"] is not None:
            replay.placed(game["id"], at, rate_finishes(lines[game["race_id"]], replay.current()))
            continue
        seed, player, won = int(game["seed"]), game["player_id"], game["status"] == "won"
        deal, count = replay.deals[seed]
        after, deal_after = rate_solo(replay.player(player, at), deal, won)
        replay.placed(game["id"], at, {player: Placed(1 if won else 2, after)})
        replay.deals[seed] = (deal_after, count + 1)
        replay.solo[game["id"]] = (deal.mu, deal.sigma, deal_after.mu, deal_after.sigma)
    differing = await _differing(conn, pool, replay, stored_deals)
    await _store(conn, pool, replay)
    return len(games), len(replay.skills), differing


async def _differing(
    conn: Conn,
    pool: Pool,
    replay: Replay,
    stored_deals: Mapping[int, asyncpg.Record],
) -> int:
    """How many stored numbers the replay changes: changes, ratings and deal ratings that
    differ, are missing, or should not be there."""
    stored_changes = {
        (r["game_id"], r["player_id"]): (
            r["place"],
            r["mu_before"],
            r["sigma_before"],
            r["mu"],
            r["sigma"],
        )
        for r in await conn.fetch(
            "select c.* from rating_changes c join rated_games g on g.id = c.game_id "
            "where g.variant = $1 and g.options = $2",
            pool.variant,
            pool.options,
        )
    }
    stored_ratings = {
        r["player_id"]: (r["mu"], r["sigma"], r["games"])
        for r in await conn.fetch(
            "select player_id, mu, sigma, games from ratings where variant = $1 and options = $2",
            pool.variant,
            pool.options,
        )
    }
    stored_solo = {
        r["id"]: (r["deal_mu_before"], r["deal_sigma_before"], r["deal_mu"], r["deal_sigma"])
        for r in await conn.fetch(
            "select * from rated_games where variant = $1 and options = $2 "
            "and entry_id is not null",
            pool.variant,
            pool.options,
        )
    }
    return (
        _count_differences(stored_changes, {(c[0], c[1]): c[2:] for c in replay.changes})
        + _count_differences(
            stored_ratings,
            {p: (s.mu, s.sigma, n) for p, (s, n, _) in replay.skills.items()},
        )
        + _count_differences(
            {seed: (r["mu"], r["sigma"], r["games"]) for seed, r in stored_deals.items()},
            {seed: (s.mu, s.sigma, n) for seed, (s, n) in replay.deals.items()},
        )
        + _count_differences(stored_solo, replay.solo)
    )


def _count_differences(stored: Mapping[Any, Any], computed: Mapping[Any, Any]) -> int:
    return sum(1 for key in stored.keys() | computed.keys() if stored.get(key) != computed.get(key))


async def _store(conn: Conn, pool: Pool, replay: Replay) -> None:
    await conn.execute(
        "delete from rating_changes c using rated_games g where g.id = c.game_id "
        "and g.variant = $1 and g.options = $2",
        pool.variant,
        pool.options,
    )
    await conn.execute(
        "delete from ratings where variant = $1 and options = $2", pool.variant, pool.options
    )
    await conn.copy_records_to_table(
        "rating_changes",
        records=replay.changes,
        columns=["game_id", "player_id", "place", "mu_before", "sigma_before", "mu", "sigma"],
    )
    await conn.copy_records_to_table(
        "ratings",
        records=[
            (pool.variant, pool.options, player, skill.mu, skill.sigma, count, at)
            for player, (skill, count, at) in replay.skills.items()
        ],
        columns=["variant", "options", "player_id", "mu", "sigma", "games", "rated_at"],
    )
    await conn.executemany(
        "update deal_ratings set mu = $4, sigma = $5, games = $6 "
        "where variant = $1 and options = $2 and seed = $3",
        [
            (pool.variant, pool.options, seed, skill.mu, skill.sigma, count)
            for seed, (skill, count) in replay.deals.items()
        ],
    )
    await conn.executemany(
        "update rated_games set deal_mu_before = $2, deal_sigma_before = $3, deal_mu = $4, "
        "deal_sigma = $5 where id = $1",
        [(game_id, *row) for game_id, row in replay.solo.items()],
    )
