"""Race leases: which server process owns each unfinished race (sql/0090_race_leases.sql).

Every change is one statement and compare-and-set: a lease is taken only where there is
none or where the one there has run out (or is already ours), so two processes that try
at once cannot both hold it. Times are the database's own (``now()``), so the hosts'
clocks need not agree for a lease to run out at one moment for everybody.
"""

from __future__ import annotations

import asyncpg

from server.core.place import Place
from server.store.pool import guarded

TAKE = """
    with taken as (
        insert into race_leases (race_id, holder, expires_at)
        values ($1, $2, now() + $3 * interval '1 second')
        on conflict (race_id) do update
            set holder = excluded.holder, expires_at = excluded.expires_at, taken_at = now()
            where race_leases.expires_at < now() or race_leases.holder = excluded.holder
        returning holder
    )
    select holder from taken
    union all
    select holder from race_leases where race_id = $1 and not exists (select 1 from taken)
"""

HOLDER = "select holder from race_leases where race_id = $1"

RENEW = """
    update race_leases set expires_at = now() + $2 * interval '1 second'
    where holder = $1 returning race_id
"""

# Leases of finished races are of no more use: their rows go.
DROP_FINISHED = """
    delete from race_leases l using races r
    where l.holder = $1 and r.id = l.race_id and r.state = 'finished'
"""

# Unfinished races whose owner is gone (no lease, or one run out). A race's home process
# (server/core/place.py) takes it at once; any other only once the lease has been out for
# ``$5`` seconds more, so a host that restarts gets its own races back.
TAKE_ORPHANS = """
    insert into race_leases (race_id, holder, expires_at)
    select r.id, $1, now() + $2 * interval '1 second'
    from races r left join race_leases l on l.race_id = r.id
    where r.state <> 'finished' and (
        l.race_id is null
        or l.expires_at < now() - case when r.id % $3 = $4 then interval '0 second'
                                       else $5 * interval '1 second' end)
    order by r.id
    limit $6
    on conflict (race_id) do update
        set holder = excluded.holder, expires_at = excluded.expires_at, taken_at = now()
        where race_leases.expires_at < now()
    returning race_id
"""

RELEASE = "delete from race_leases where holder = $1"


class LeaseStore:
    """The race leases of one process (``holder``), as statements on the pool."""

    def __init__(self, pool: asyncpg.Pool, holder: str) -> None:
        self.pool = pool
        self.holder = holder

    @guarded
    async def take(self, race_id: int, seconds: float) -> str | None:
        """Take the race's lease if nobody holds it; the holder after the attempt."""
        holder = await self.pool.fetchval(TAKE, race_id, self.holder, seconds)
        if holder is None:
            # Another process took it while this statement ran: its snapshot, older than
            # that insert, saw no lease; a statement of its own sees the new one.
            holder = await self.pool.fetchval(HOLDER, race_id)
        return None if holder is None else str(holder)

    @guarded
    async def renew(self, seconds: float) -> set[int]:
        """Extend every lease this process still holds; the races they are for."""
        async with self.pool.acquire() as conn:
            await conn.execute(DROP_FINISHED, self.holder)
            rows = await conn.fetch(RENEW, self.holder, seconds)
        return {int(row["race_id"]) for row in rows}

    @guarded
    async def take_orphans(self, seconds: float, place: Place, limit: int = 100) -> list[int]:
        """Take the leases of unfinished races whose owner is gone; their ids."""
        rows = await self.pool.fetch(
            TAKE_ORPHANS, self.holder, seconds, place.count, place.index, seconds, limit
        )
        return [int(row["race_id"]) for row in rows]

    @guarded
    async def release(self) -> None:
        """Give up every lease (at a clean stop: another process takes over at once)."""
        await self.pool.execute(RELEASE, self.holder)
