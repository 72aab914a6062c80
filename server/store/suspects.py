"""What the signals of machine-made play are computed from: the won games of a recent
stretch, the time between their moves, and their move logs (server/core/suspicion.py).

Games that count are the competitive ones, where a program would pay: games of races and
daily attempts, won within the last ``days``. The time of a move is when it was committed
(``moves.played_at``), so a gap is the player's time plus a few milliseconds of the
server's; the moves of one group commit share a time, which only a program sends fast
enough to meet.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import asyncpg

from server.store.pool import guarded

_WON = """
select e.id, e.player_id, e.variant, e.options, e.seed, e.finished_at from entries e
where e.status = 'won' and e.finished_at >= now() - make_interval(days => $1)
  and (e.race_id is not null or exists (select 1 from daily_entries d where d.entry_id = e.id))
"""

# Per player with at least $2 such wins: their name, bar, and every gap between two
# consecutive logged actions of the same game, in milliseconds.
_GAPS_SQL = f"""
with won as ({_WON}),
gaps as (
    select w.player_id, w.id,
           extract(epoch from m.played_at - lag(m.played_at)
               over (partition by m.game_id order by m.seq)) * 1000 as gap
    from won w join moves m on m.game_id = w.id
)
select g.player_id, p.principal, p.display_name, p.barred_at is not null as barred,
       count(distinct g.id) as games,
       coalesce(array_agg(g.gap) filter (where g.gap is not null), '{{}}') as gaps
from gaps g join players p on p.id = g.player_id
group by g.player_id, p.principal, p.display_name, p.barred_at
having count(distinct g.id) >= $2
order by g.player_id
"""


@dataclass(frozen=True, slots=True)
class PlayerGaps:
    """A player's recent competitive wins: how many, and the gaps between their moves."""

    player_id: int
    principal: str
    name: str
    barred: bool
    games: int
    gaps_ms: list[float]


@dataclass(frozen=True, slots=True)
class WonGame:
    """A won game as the solver needs it: the deal and the logged actions."""

    game_id: int
    variant: str
    options: dict[str, Any]
    seed: int
    actions: list[str]


class SuspectStore:
    """The read side of the review of machine-made play."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    @guarded
    async def gaps(self, days: int, min_games: int) -> list[PlayerGaps]:
        """Every player with at least ``min_games`` competitive wins in ``days`` days."""
        rows = await self.pool.fetch(_GAPS_SQL, days, min_games)
        return [
            PlayerGaps(
                r["player_id"],
                r["principal"],
                r["display_name"],
                r["barred"],
                r["games"],
                [float(gap) for gap in r["gaps"]],
            )
            for r in rows
        ]

    @guarded
    async def recent_wins(self, player_id: int, days: int, limit: int) -> list[WonGame]:
        """A player's latest competitive wins (at most ``limit``), with their actions."""
        async with self.pool.acquire() as conn:
            games = await conn.fetch(
                f"select * from ({_WON}) w where w.player_id = $2 "
                "order by w.finished_at desc, w.id desc limit $3",
                days,
                player_id,
                limit,
            )
            actions = await conn.fetch(
                "select game_id, action from moves where game_id = any($1::bigint[]) "
                "order by game_id, seq",
                [g["id"] for g in games],
            )
        logs: dict[int, list[str]] = {}
        for row in actions:
            logs.setdefault(row["game_id"], []).append(row["action"])
        return [
            WonGame(
                g["id"],
                g["variant"],
                json.loads(g["options"]),
                int(g["seed"]),
                logs.get(g["id"], []),
            )
            for g in games
        ]
