"""Race leases: which server process owns each unfinished race (sql/0090_race_leases.sql).

A lease names its holder; it is good while the holder's own row in ``lease_holders``
has not run out, and the holder renews that one row, however many races it holds.
Every change is one statement and compare-and-set: a lease is taken only where there
is none, where it is already ours, or where its holder has run out, so two processes
that try at once cannot both hold it. Times are the database's own (``now()``), so the
hosts' clocks need not agree for a lease to run out at one moment for everybody.

A race that needs no owner for now (nothing happened in it for a while, nobody here
watches it, and no clock of its runs: server/services/races.py) is *parked*: its lease
names the holder ``PARKED``, which never renews, so the next process asked about the
race takes it as from a holder gone; but no process takes it over unasked, so races
that players walked away from do not fill the memory of whoever restarts next.
"""

from __future__ import annotations

import asyncpg

from server.core.place import Place
from server.store.pool import guarded

# The holder of a parked lease: no process's name (those are hex, server/store/commit.py).
PARKED = "parked"

# Whether a lease's holder has run out (or has no row at all).
_GONE = """not exists (
    select 1 from lease_holders h where h.holder = race_leases.holder and h.expires_at >= now())"""

# A lease that changes hands gets a new fencing number (sql/0140_lease_fences.sql).
_NEXT_FENCE = """case when race_leases.holder <> excluded.holder
    then nextval('race_lease_fences') else race_leases.fence end"""

TAKE = f"""
    with taken as (
        insert into race_leases (race_id, holder) values ($1, $2)
        on conflict (race_id) do update
            set holder = excluded.holder, taken_at = now(), fence = {_NEXT_FENCE}
            where race_leases.holder = excluded.holder or {_GONE}
        returning holder
    )
    select holder from taken
    union all
    select holder from race_leases where race_id = $1 and not exists (select 1 from taken)
"""

HOLDER = "select holder from race_leases where race_id = $1"

# The fencing numbers of leases this process holds.
FENCES = "select race_id, fence from race_leases where race_id = any($1::bigint[]) and holder = $2"

# The holder's row, renewed; true when it had run out before (others may have taken
# some of its races meanwhile) or did not exist yet.
RENEW = """
    with before as (select expires_at from lease_holders where holder = $1)
    insert into lease_holders (holder, expires_at) values ($1, now() + $2 * interval '1 second')
    on conflict (holder) do update set expires_at = excluded.expires_at
    returning coalesce((select expires_at < now() from before), true) as lapsed
"""

HELD = "select race_id from race_leases where holder = $1"

# Leases of finished races are of no more use; nor are holders gone for an hour
# that hold nothing.
DROP_FINISHED = """
    delete from race_leases l using races r
    where l.holder = $1 and r.id = l.race_id and r.state = 'finished'
"""
DROP_GONE_HOLDERS = """
    delete from lease_holders h where h.expires_at < now() - interval '1 hour'
    and not exists (select 1 from race_leases l where l.holder = h.holder)
"""

# Unfinished races whose owner is gone (no lease, or a holder run out). A race's home
# process (server/core/place.py) takes it at once; any other only once the holder has
# been out for ``$4`` seconds more, so a host that restarts gets its own races back.
TAKE_ORPHANS = f"""
    insert into race_leases (race_id, holder)
    select r.id, $1
    from races r
    left join race_leases l on l.race_id = r.id
    left join lease_holders h on h.holder = l.holder
    where r.state <> 'finished' and (
        l.race_id is null
        or l.holder <> $6 and (
            h.holder is null
            or h.expires_at < now() - case when r.id % $2 = $3 then interval '0 second'
                                           else $4 * interval '1 second' end))
    order by r.id
    limit $5
    on conflict (race_id) do update
        set holder = excluded.holder, taken_at = now(), fence = {_NEXT_FENCE}
        where {_GONE}
    returning race_id
"""

PARK = """
    update race_leases set holder = $3, taken_at = now(), fence = nextval('race_lease_fences')
    where holder = $1 and race_id = any($2::bigint[])
    returning race_id
"""

RELEASE_LEASES = "delete from race_leases where holder = $1"
RELEASE_HOLDER = "delete from lease_holders where holder = $1"


async def renew_holder(
    conn: asyncpg.Connection | asyncpg.pool.PoolConnectionProxy, holder: str, seconds: float
) -> bool:
    """Renew the holder's row for ``seconds``; whether it had run out before (or was
    not there yet). Also the lease keeper's statement, on its own connection."""
    return bool(await conn.fetchval(RENEW, holder, seconds))


class LeaseStore:
    """The race leases of one process (``holder``), as statements on the pool."""

    def __init__(self, pool: asyncpg.Pool, holder: str) -> None:
        self.pool = pool
        self.holder = holder

    @guarded
    async def take(self, race_id: int) -> str | None:
        """Take the race's lease if nobody holds it; the holder after the attempt.

        The holder must have renewed (``renew``) for a lease it takes to be good.
        """
        holder = await self.pool.fetchval(TAKE, race_id, self.holder)
        if holder is None:
            # Another process took it while this statement ran: its snapshot, older than
            # that insert, saw no lease; a statement of its own sees the new one.
            holder = await self.pool.fetchval(HOLDER, race_id)
        return None if holder is None else str(holder)

    @guarded
    async def fences(self, race_ids: list[int]) -> dict[int, int]:
        """The fencing numbers of these races' leases, where this process holds them."""
        rows = await self.pool.fetch(FENCES, race_ids, self.holder)
        return {int(row["race_id"]): int(row["fence"]) for row in rows}

    @guarded
    async def renew(self, seconds: float, held: bool = False) -> set[int] | None:
        """Keep every lease of this process good for ``seconds``; when they had run out
        meanwhile (or ``held`` asks for it), the races this process still holds (others
        may have taken some), else None (it holds what it held)."""
        async with self.pool.acquire() as conn:
            lapsed = await renew_holder(conn, self.holder, seconds)
            await conn.execute(DROP_FINISHED, self.holder)
            if not (lapsed or held):
                return None
            return {int(row["race_id"]) for row in await conn.fetch(HELD, self.holder)}

    @guarded
    async def take_orphans(self, seconds: float, place: Place, limit: int = 100) -> list[int]:
        """Take the leases of unfinished races whose owner is gone; their ids. A race
        whose home is another process only once its holder has been gone ``seconds``."""
        await self.pool.execute(DROP_GONE_HOLDERS)
        rows = await self.pool.fetch(
            TAKE_ORPHANS, self.holder, place.count, place.index, seconds, limit, PARKED
        )
        return [int(row["race_id"]) for row in rows]

    @guarded
    async def park(self, race_ids: list[int]) -> list[int]:
        """Park these races' leases where this process still holds them; their ids."""
        rows = await self.pool.fetch(PARK, self.holder, race_ids, PARKED)
        return [int(row["race_id"]) for row in rows]

    @guarded
    async def release(self) -> None:
        """Give up every lease (at a clean stop: another process takes over at once)."""
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute(RELEASE_LEASES, self.holder)
            await conn.execute(RELEASE_HOLDER, self.holder)
