"""Finding games and races again, as the database records them: a player's games still
being played, and the races not yet finished (server/services/listings.py answers with
them).
"""

from __future__ import annotations

import json
from typing import Any

import asyncpg

from server import protocol as p
from server.store.pool import from_ms, guarded, to_ms

# Still being played: the entry is playing, its race (if any) is not finished and its
# play time (a daily attempt's) has not run out. Index: entries_playing.
MY_GAMES_SQL = """
select e.id, e.variant, e.race_id, e.created_at, e.play_until, d.day
from entries e
left join races rc on rc.id = e.race_id
left join daily_entries d on d.entry_id = e.id
where e.player_id = $1 and e.status = 'playing'
  and (rc.state is null or rc.state <> 'finished')
  and (e.play_until is null or e.play_until > $2)
order by e.created_at desc, e.id desc
limit $3
"""

# Races not finished, of a guild ($1) and/or whose context contains $2. Indexes:
# races_open_guild, races_open.
OPEN_RACES_SQL = """
select rc.id, rc.state, rc.variant, rc.guild_id, rc.context, rc.created_at, rc.starts_at,
       pl.id as creator_id, pl.display_name, pl.principal,
       (select count(*) from entries e
        where e.race_id = rc.id and e.status <> 'left') as players
from races rc join players pl on pl.id = rc.creator_id
where rc.state <> 'finished'
  and ($1::text is null or rc.guild_id = $1)
  and ($2::jsonb is null or rc.context @> $2::jsonb)
order by rc.created_at, rc.id
limit $3
"""


class ListingStore:
    """The live games and open races in the server's database."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    @guarded
    async def games_in_play(self, player_id: int, now: int, limit: int) -> list[p.OpenGame]:
        """A player's games still being played at ``now``, newest first, at most ``limit``."""
        rows = await self.pool.fetch(MY_GAMES_SQL, player_id, from_ms(now), limit)
        return [
            p.OpenGame(
                game=row["id"],
                variant=row["variant"],
                started_at=to_ms(row["created_at"]) or 0,
                race=row["race_id"],
                date=None if row["day"] is None else row["day"].isoformat(),
                deadline=to_ms(row["play_until"]),
            )
            for row in rows
        ]

    @guarded
    async def open_races(
        self, guild_id: str | None, context: dict[str, Any] | None, limit: int
    ) -> list[p.OpenRace]:
        """Races not yet finished, oldest first: of ``guild_id`` when given, and whose
        context contains ``context`` when given; at most ``limit``."""
        wanted = None if context is None else json.dumps(context)
        rows = await self.pool.fetch(OPEN_RACES_SQL, guild_id, wanted, limit)
        return [
            p.OpenRace(
                race=row["id"],
                state=row["state"],
                variant=row["variant"],
                creator=p.PlayerInfo(
                    id=row["creator_id"], name=row["display_name"], user=row["principal"]
                ),
                players=row["players"],
                created_at=to_ms(row["created_at"]) or 0,
                guild_id=row["guild_id"],
                context=None if row["context"] is None else json.loads(row["context"]),
                starts_at=to_ms(row["starts_at"]),
            )
            for row in rows
        ]
