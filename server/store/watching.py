"""What watching a race reads: the live races, a race's stored events, and the racers'
move logs up to a moment (the boards a watcher sees, as they stood then).
"""

from __future__ import annotations

import json

import asyncpg
import msgspec

from server import protocol as p
from server.store.pool import from_ms, guarded, to_ms

# Public races under way, newest first: ranked (on a deal the server dealt) and not
# finished. Index: races_open.
_LIVE_SQL = """
select r.id, r.state, r.variant, r.created_at, r.starts_at, r.context,
    (select count(*) from entries e where e.race_id = r.id and e.status <> 'left') as players
from races r
where r.state <> 'finished' and r.ranked and ($1::text is null or r.variant = $1)
order by r.created_at desc, r.id desc
limit $2
"""


class WatchingStore:
    """Reads for watchers."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    @guarded
    async def live_races(self, variant: str | None, limit: int, delay_ms: int) -> list[p.LiveRace]:
        """The public races under way, newest first, at most ``limit``."""
        rows = await self.pool.fetch(_LIVE_SQL, variant, limit)
        races = []
        for row in rows:
            context = json.loads(row["context"]) if row["context"] is not None else {}
            arena = context.get("arena") if isinstance(context, dict) else None
            races.append(
                p.LiveRace(
                    race=row["id"],
                    state=row["state"],
                    variant=row["variant"],
                    players=row["players"],
                    created_at=to_ms(row["created_at"]) or 0,
                    starts_at=to_ms(row["starts_at"]),
                    arena=arena if isinstance(arena, int) else None,
                    delay_ms=delay_ms,
                )
            )
        return races

    @guarded
    async def events(self, race_id: int) -> list[p.Event]:
        """Every stored event of a race, in order."""
        rows = await self.pool.fetch(
            "select seq, body, at from race_events where race_id=$1 order by seq", race_id
        )
        return [
            p.Event(
                race=race_id,
                seq=row["seq"],
                time=to_ms(row["at"]) or 0,
                event=msgspec.json.decode(row["body"], type=p.RaceEvent),
            )
            for row in rows
        ]

    @guarded
    async def moves_by(
        self, games: dict[int, int], cutoff: int
    ) -> dict[int, list[tuple[int, str]]]:
        """For each game (id → the first sequence number wanted), its actions from there
        played by ``cutoff`` (server ms), in order: ``(seq, action)``."""
        rows = await self.pool.fetch(
            """
            select m.game_id, m.seq, m.action
            from unnest($1::bigint[], $2::int[]) as w (game_id, after)
            join moves m on m.game_id = w.game_id and m.seq >= w.after
            where m.played_at <= $3
            order by m.game_id, m.seq
            """,
            list(games),
            list(games.values()),
            from_ms(cutoff),
        )
        found: dict[int, list[tuple[int, str]]] = {game: [] for game in games}
        for row in rows:
            found[row["game_id"]].append((row["seq"], row["action"]))
        return found
