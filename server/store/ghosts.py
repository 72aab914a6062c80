"""What a ghost race reads: the stored game to race against (the daily's best, or a
player's own best on a deal), with the time of each of its actions.

A game's start is the start of what was timed: its race's start, its daily attempt's
start, or (a practice game) its creation; each action's time is when its row was
committed (the move log's ``played_at``), both as milliseconds after that start.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

import asyncpg

from server.store.pool import guarded, to_ms

_GAME_COLUMNS = """
    e.id, e.player_id, pl.display_name, e.variant, e.options, e.seed, e.status, e.race_id,
    rc.state as race_state, d.day, e.finished_at,
    coalesce(rc.starts_at, d.started_at, e.created_at) as started_at
"""

_GAME_JOINS = """
from entries e
join players pl on pl.id = e.player_id
left join races rc on rc.id = e.race_id
left join daily_entries d on d.entry_id = e.id
"""

# The time a won game took, by the start above: the order of "best".
_TAKEN = "e.finished_at - coalesce(rc.starts_at, d.started_at, e.created_at)"


@dataclass(frozen=True, slots=True)
class StoredGame:
    """A stored game as a ghost needs it: its deal, its player, how it went, its times."""

    game_id: int
    player_id: int
    name: str
    variant: str
    options: dict[str, Any]
    seed: int
    status: str
    race_id: int | None
    race_state: str | None
    day: date | None
    started_at: int
    finished_at: int | None


def _game(row: asyncpg.Record) -> StoredGame:
    return StoredGame(
        game_id=row["id"],
        player_id=row["player_id"],
        name=row["display_name"],
        variant=row["variant"],
        options=json.loads(row["options"]),
        seed=int(row["seed"]),
        status=row["status"],
        race_id=row["race_id"],
        race_state=row["race_state"],
        day=row["day"],
        started_at=to_ms(row["started_at"]) or 0,
        finished_at=to_ms(row["finished_at"]),
    )


class GhostStore:
    """The stored games ghosts are made of."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    @guarded
    async def game(self, game_id: int) -> StoredGame | None:
        """A stored game, or None."""
        row = await self.pool.fetchrow(
            f"select {_GAME_COLUMNS} {_GAME_JOINS} where e.id=$1", game_id
        )
        return None if row is None else _game(row)

    @guarded
    async def daily_best(self, variant: str, day: date) -> StoredGame | None:
        """The first of a day's board: its fastest won ranked attempt (index
        daily_entries_board)."""
        row = await self.pool.fetchrow(
            f"""
            select {_GAME_COLUMNS} {_GAME_JOINS}
            where e.id = (
                select entry_id from daily_entries
                where variant=$1 and day=$2 and ranked and status = 'won'
                order by board_time_ms, board_moves, entry_id limit 1)
            """,
            variant,
            day,
        )
        return None if row is None else _game(row)

    @guarded
    async def own_best(self, player_id: int, like: StoredGame) -> StoredGame | None:
        """A player's fastest won game on the deal of ``like`` (its variant, options and
        seed), fewer moves first on equal time."""
        row = await self.pool.fetchrow(
            f"""
            select {_GAME_COLUMNS} {_GAME_JOINS}
            where e.player_id=$1 and e.variant=$2 and e.options=$3::jsonb and e.seed=$4
              and e.status = 'won' and e.finished_at is not null
            order by {_TAKEN}, (select count(*) from moves m where m.game_id = e.id), e.id
            limit 1
            """,
            player_id,
            like.variant,
            json.dumps(like.options),
            Decimal(like.seed),
        )
        return None if row is None else _game(row)

    @guarded
    async def daily_day(self, variant: str, seed: int) -> date | None:
        """The day whose daily deal of ``variant`` this seed is, if any."""
        found = await self.pool.fetchval(
            "select day from daily_deals where variant=$1 and seed=$2 order by day desc limit 1",
            variant,
            Decimal(seed),
        )
        return found if isinstance(found, date) else None

    @guarded
    async def timeline(self, game: StoredGame) -> tuple[list[str], list[int]]:
        """The game's actions and when each was played, in ms after the game's start."""
        rows = await self.pool.fetch(
            "select seq, action, played_at from moves where game_id=$1 order by seq", game.game_id
        )
        actions = [row["action"] for row in rows]
        offsets = [max(0, (to_ms(row["played_at"]) or 0) - game.started_at) for row in rows]
        return actions, offsets
