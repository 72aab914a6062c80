"""Finding games and races again: a player's games still being played, and the races
a service (the Discord bot) opened and that are not yet finished.

A client that forgot what it was doing (the bot after a restart keeps nothing in
memory) asks here instead of keeping its own copy: the database is the one record
of which games are live and where each race was opened (``guild_id``, ``context``).
"""

from __future__ import annotations

import json
from collections.abc import Callable

import asyncpg

from server import protocol as p
from server.core.identity import Principal
from server.store.storage import _guarded, from_ms, to_ms

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


class Listings:
    """Reads that let a client find its games and races again."""

    def __init__(self, pool: asyncpg.Pool, clock: Callable[[], int]) -> None:
        self.pool = pool
        self.clock = clock

    @_guarded
    async def my_games(self, who: Principal, message: p.MyGames) -> p.MyGamesReply:
        """Reply to my_games: the asker's games still being played, newest first."""
        rows = await self.pool.fetch(
            MY_GAMES_SQL, who.player_id, from_ms(self.clock()), message.limit
        )
        games = [
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
        return p.MyGamesReply(id=message.id, games=games)

    @_guarded
    async def open_races(self, message: p.OpenRaces) -> p.OpenRacesReply:
        """Reply to open_races (the connection lets only service clients ask)."""
        context = None if message.context is None else json.dumps(message.context)
        rows = await self.pool.fetch(OPEN_RACES_SQL, message.guild_id, context, message.limit)
        races = [
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
        return p.OpenRacesReply(id=message.id, races=races)
