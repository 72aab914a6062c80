"""``solitaire ratings rebuild``: every rating recomputed from the ledger and the results.

Ratings are derived data. The ledger (``rated_games``) says which games were rated and in
which order; the stored results say how each ended. Replaying the ledger in order with
the same rule as the live rating gives the same floats (the arithmetic is deterministic
and PostgreSQL's double precision keeps every bit), so a rebuild of a healthy database
changes nothing, and after a fix of the rule or of a result it puts every later number
right. Each pool is rebuilt in one transaction under the pool's lock, so a game rated
meanwhile waits and then builds on the rebuilt numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import asyncpg

from server.core.ratings import Placed, Skill
from server.store.pool import guarded
from server.store.ratings import LOCK, Conn, Pool, RaceRule, lines_of

ChangeRow = tuple[int, int, int, float, float, float, float]


@dataclass(frozen=True, slots=True)
class Rebuilt:
    """What a rebuild did: pools and games replayed, ratings written, and how many stored
    numbers (a player's rating or one change of a game) differed from the recomputed."""

    pools: int = 0
    games: int = 0
    ratings: int = 0
    differing: int = 0


@dataclass
class Replay:
    """One pool's ledger replayed: every change in order and where each player ends."""

    skills: dict[int, tuple[Skill, int, datetime]] = field(default_factory=dict)
    changes: list[ChangeRow] = field(default_factory=list)

    def race(self, game_id: int, at: datetime, placed: Mapping[int, Placed]) -> None:
        """Record a rated race's outcome (``placed``: the rule's answer)."""
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
async def rebuild(pool: asyncpg.Pool, rule: RaceRule) -> Rebuilt:
    """Recompute and store every pool's ratings (see the module docstring)."""
    rows = await pool.fetch(
        "select distinct variant, options from rated_games order by variant, options"
    )
    total = Rebuilt(pools=len(rows))
    for row in rows:
        async with pool.acquire() as conn, conn.transaction():
            games, players, differing = await _rebuild_pool(
                conn, Pool(row["variant"], row["options"]), rule
            )
        total = Rebuilt(
            total.pools, total.games + games, total.ratings + players, total.differing + differing
        )
    return total


async def _rebuild_pool(conn: Conn, pool: Pool, rule: RaceRule) -> tuple[int, int, int]:
    await conn.execute(LOCK, pool.variant, pool.options)
    games = await conn.fetch(
        "select id, race_id, rated_at from rated_games "
        "where variant = $1 and options = $2 order by id",
        pool.variant,
        pool.options,
    )
    lines = await lines_of(conn, [g["race_id"] for g in games if g["race_id"] is not None])
    replay = Replay()
    for game in games:
        if game["race_id"] is not None:
            placed = rule(lines[game["race_id"]], replay.current())
            replay.race(game["id"], game["rated_at"], placed)
    differing = await _differing(conn, pool, replay)
    await _store(conn, pool, replay)
    return len(games), len(replay.skills), differing


async def _differing(conn: Conn, pool: Pool, replay: Replay) -> int:
    """How many stored numbers the replay changes: changes and ratings that differ,
    are missing, or should not be there."""
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
    changes = {(c[0], c[1]): c[2:] for c in replay.changes}
    ratings = {
        player: (skill.mu, skill.sigma, count)
        for player, (skill, count, _) in replay.skills.items()
    }
    return _count_differences(stored_changes, changes) + _count_differences(stored_ratings, ratings)


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
