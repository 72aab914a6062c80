"""Accounts in the database: the players tokens stand for, and a guest merged into the
Discord player it signed in as.

What moves when a guest signs in (docs/operations.md, "Sign in with Discord"): every game
of the guest that is over (a practice or daily game won or given up, a game of a race
that has finished), with its race result and daily attempt. Games still in play stay the
guest's: the server may hold them in memory under the guest (server/services/games.py),
and a race's racers are its players. Where the Discord player has a game of the same
race, the guest's stays too (one entry per player and race); where both made a first
attempt at the same daily deal, the guest's becomes a later (practice) one. A result the
guest could not rank stays unranked: it was played without an identity that costs
anything, and ranking it now would let the best of many guests sign in.
"""

from __future__ import annotations

from dataclasses import dataclass

import asyncpg

from server.core.identity import Principal
from server.store.pool import guarded

# The guest's games that are over, and not of a race the Discord player is in too.
_MOVING_SQL = """
select e.id from entries e left join races r on r.id = e.race_id
where e.player_id = $1
  and (case when e.race_id is null then e.status <> 'playing' else r.state = 'finished' end)
  and not exists (
      select 1 from entries o
      where e.race_id is not null and o.race_id = e.race_id and o.player_id = $2
        and o.status <> 'left')
"""

# A first attempt at a daily deal the Discord player has made too becomes a later one.
_SECOND_FIRST_ATTEMPTS_SQL = """
update daily_entries g set ranked = false
where g.entry_id = any($1::bigint[]) and g.ranked and exists (
    select 1 from daily_entries t
    where t.player_id = $2 and t.variant = g.variant and t.day = g.day and t.ranked)
"""


@dataclass(frozen=True, slots=True)
class Account:
    """A stored player as a token finds it: who, and whether it became someone else."""

    principal: Principal
    merged_into: int | None


@dataclass(frozen=True, slots=True)
class Merged:
    """What a guest's sign-in moved to the Discord player: game ids, and how many results
    and daily attempts came with them."""

    games: list[int]
    results: int
    attempts: int


class AccountStore:
    """Players as accounts: looked up by token, merged on sign-in."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    @guarded
    async def account(self, player_id: int) -> Account | None:
        """A stored player, touching their last-seen time; None when there is none."""
        row = await self.pool.fetchrow(
            "update players set last_seen_at=now() where id=$1 "
            "returning id, principal, display_name, locale, merged_into",
            player_id,
        )
        if row is None:
            return None
        principal = Principal(row["id"], row["principal"], row["display_name"], row["locale"])
        return Account(principal, row["merged_into"])

    @guarded
    async def merge_guest(self, guest_id: int, player_id: int) -> Merged | None:
        """Move what the guest ``guest_id`` finished to ``player_id`` (a Discord player)
        and mark the guest as merged into it, in one transaction.

        None when ``guest_id`` is no guest, or was merged before (a second sign-in with
        the same guest moves nothing twice).
        """
        async with self.pool.acquire() as conn, conn.transaction():
            rows = await conn.fetch(
                "select id, principal, merged_into from players where id = any($1::bigint[]) "
                "order by id for update",
                [guest_id, player_id],
            )
            found = {row["id"]: row for row in rows}
            guest, player = found.get(guest_id), found.get(player_id)
            if (
                guest is None
                or player is None
                or not guest["principal"].startswith("guest:")
                or guest["merged_into"] is not None
                or not player["principal"].startswith("discord:")
            ):
                return None
            games = [int(r["id"]) for r in await conn.fetch(_MOVING_SQL, guest_id, player_id)]
            await conn.execute(_SECOND_FIRST_ATTEMPTS_SQL, games, player_id)
            await conn.execute(
                "update entries set player_id=$2 where id = any($1::bigint[])", games, player_id
            )
            results = await conn.execute(
                "update results set player_id=$2 where entry_id = any($1::bigint[])",
                games,
                player_id,
            )
            attempts = await conn.execute(
                "update daily_entries set player_id=$2 where entry_id = any($1::bigint[])",
                games,
                player_id,
            )
            await conn.execute(
                "update players set merged_into=$2, merged_at=now() where id=$1",
                guest_id,
                player_id,
            )
        return Merged(games, _count(results), _count(attempts))


def _count(status: str) -> int:
    """The row count of a command's status (``UPDATE 3``)."""
    return int(status.split()[-1])
