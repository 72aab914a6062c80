"""The daily deals and the attempts at them, as PostgreSQL keeps them.

``daily_deals`` holds one deal per variant and day (sql/0020_daily.sql); an attempt is
an ordinary game (``entries``) plus its ``daily_entries`` row, which says whether it is
the player's ranked first attempt and when its play time runs out. The rules (which
day, which deal, what counts) are the daily service's (server/services/daily.py); this
module only reads and writes them, and turns a lost database into ``UnavailableError``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

import asyncpg

from server import protocol as p
from server.core.identity import UNRANKED_GUEST
from server.store.pool import from_ms, guarded
from server.store.storage import Storage


@dataclass(frozen=True, slots=True)
class DailyDeal:
    """A day's deal as stored: public parts, and the seed and salt kept back until close."""

    variant: str
    day: date
    seed: int
    salt: str
    commitment: str
    solution_length: int


@dataclass(frozen=True, slots=True)
class ProvenDeal:
    """A deal the solver proved winnable, to be stored as a day's deal."""

    variant: str
    day: date
    seed: int
    candidate: int
    salt: str
    commitment: str
    solution_length: int
    solver_nodes: int
    solver_ms: int


@dataclass(frozen=True, slots=True)
class StartedAttempt:
    """A new attempt: its game, and whether it is the player's ranked one."""

    game_id: int
    ranked: bool


def _deal(row: asyncpg.Record) -> DailyDeal:
    return DailyDeal(
        variant=row["variant"],
        day=row["day"],
        seed=int(row["seed"]),
        salt=row["salt"],
        commitment=row["commitment"],
        solution_length=row["solution_length"],
    )


# Close every attempt whose deadline passed ($1), counting its moves from the move log
# as a finished game's counters are counted.
_SWEEP = """
update daily_entries d set
    status = 'out_of_time',
    finished_at = d.deadline,
    time_ms = round(extract(epoch from d.deadline - d.started_at) * 1000)::bigint,
    moves = m.played - m.taken_back,
    undos = m.taken_back,
    hints = m.hinted
from daily_entries o
cross join lateral (
    select count(*) filter (where action not in ('undo', 'hint')) as played,
           count(*) filter (where action = 'undo') as taken_back,
           count(*) filter (where action = 'hint') as hinted
    from moves where game_id = o.entry_id
) m
where o.entry_id = d.entry_id and o.status = 'playing' and o.deadline < $1
"""

# The attempt's row: ranked unless the player already has a ranked one that day. The
# partial unique index (player, variant, day) where ranked settles two first attempts
# started at once: the loser inserts nothing and is stored as practice.
_RANKED_ATTEMPT = """
insert into daily_entries (entry_id, variant, day, player_id, guild_id, ranked,
    started_at, deadline, held)
select $1, $2, $3, $4, $5, not exists (
    select 1 from daily_entries
    where player_id=$4 and variant=$2 and day=$3 and ranked
), $6, $7, $8
on conflict (player_id, variant, day) where ranked do nothing
returning ranked
"""


class DailyStore:
    """The daily deals and attempts in the server's database (its pool and key store)."""

    def __init__(self, storage: Storage) -> None:
        self._storage = storage
        self.pool = storage.pool

    async def secret(self) -> bytes:
        """The key the day's candidate seeds are derived under, shared by all processes."""
        return await self._storage.secret("daily")

    @guarded
    async def deal(self, variant: str, day: date) -> DailyDeal | None:
        """The deal of ``variant`` on ``day`` if it was stored."""
        row = await self.pool.fetchrow(
            "select * from daily_deals where variant=$1 and day=$2", variant, day
        )
        return None if row is None else _deal(row)

    @guarded
    async def add_deal(self, proven: ProvenDeal) -> None:
        """Store a day's deal unless one is stored already (another process may have
        chosen the same deal meanwhile; its salt stands)."""
        await self.pool.execute(
            """
            insert into daily_deals (variant, day, seed, candidate, salt, commitment, verdict,
                solution_length, solver_nodes, solver_ms)
            values ($1, $2, $3, $4, $5, $6, 'winnable', $7, $8, $9)
            on conflict (variant, day) do nothing
            """,
            proven.variant,
            proven.day,
            Decimal(proven.seed),
            proven.candidate,
            proven.salt,
            proven.commitment,
            proven.solution_length,
            proven.solver_nodes,
            proven.solver_ms,
        )

    @guarded
    async def attempts(self, player_id: int, variant: str, day: date) -> list[p.DailyAttempt]:
        """A player's attempts at ``variant``'s deal of ``day``, first started first."""
        rows = await self.pool.fetch(
            """
            select entry_id, ranked, status, time_ms, moves, undos, hints, held
            from daily_entries where player_id=$1 and variant=$2 and day=$3 order by entry_id
            """,
            player_id,
            variant,
            day,
        )
        return [
            p.DailyAttempt(
                game=r["entry_id"],
                ranked=r["ranked"] and r["held"] != UNRANKED_GUEST,
                unranked=(
                    "later_attempt"
                    if not r["ranked"]
                    else "guest"
                    if r["held"] == UNRANKED_GUEST
                    else None
                ),
                status=r["status"],
                time_ms=r["time_ms"],
                moves=r["moves"],
                undos=r["undos"],
                hints=r["hints"],
            )
            for r in rows
        ]

    @guarded
    async def sweep(self, now: int) -> int:
        """Close attempts whose play time ran out before ``now``; returns how many."""
        result = await self.pool.execute(_SWEEP, from_ms(now))
        return int(result.split()[-1])

    @guarded
    async def start_attempt(
        self,
        deal: DailyDeal,
        player_id: int,
        guild_id: str | None,
        started_at: int,
        deadline: int,
        sealed_until: int,
        held: str | None = None,
    ) -> StartedAttempt:
        """Store a new attempt at ``deal``: its game and its daily row, in one transaction.

        The game plays the deal's seed, kept secret until ``sealed_until``; its play time
        runs out at ``deadline``. Ranked when it is the player's first attempt that day;
        ``held`` (``guest``) keeps a first attempt off every board all the same.
        """
        started, until = from_ms(started_at), from_ms(deadline)
        async with self.pool.acquire() as conn, conn.transaction():
            game_id = await conn.fetchval(
                """
                insert into entries (race_id, player_id, variant, options, seed, seed_public,
                    guild_id, created_at, play_until, seed_sealed_until)
                values (null, $1, $2, '{}', $3, false, $4, $5, $6, $7) returning id
                """,
                player_id,
                deal.variant,
                Decimal(deal.seed),
                guild_id,
                started,
                until,
                from_ms(sealed_until),
            )
            attempt = (game_id, deal.variant, deal.day, player_id, guild_id, started, until)
            ranked = await conn.fetchval(_RANKED_ATTEMPT, *attempt, held)
            if ranked is None:  # a first attempt started at the same moment won
                ranked = await conn.fetchval(
                    "insert into daily_entries (entry_id, variant, day, player_id, guild_id, "
                    "ranked, started_at, deadline) values ($1, $2, $3, $4, $5, false, $6, $7) "
                    "returning ranked",
                    *attempt,
                )
        return StartedAttempt(int(game_id), bool(ranked))
