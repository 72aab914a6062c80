"""The all-time board of a variant: every player ranked over all their counted games.

Counted games are those of a player's all-time figures (server/store/boards.py,
``STATS_SQL``): ranked daily attempts that are over, and games of finished races;
a guild's board counts the daily attempts started from that guild and the races
created there. Players are ranked by wins, then win rate, then best time (players
without a win last); equal results share a rank, and among equals the lower player
id comes first so that pages are stable.

Unlike a day's board, the all-time board aggregates every game of the variant, which
costs about a second at a million attempts (bench/all_time.py). So a board is
computed once and kept for ``ttl_ms`` (30 s by default, or until a player is barred or
unbarred) per server process: pages and
"around me" are then read from memory, concurrent requests for a board being
computed wait for that one computation, and a game counts on the board within the
ttl. At most ``max_boards`` boards are kept (least recently used dropped).

The totals come from the store (server/store/boards.py, ``TOTALS_SQL``); the ranking
rule and the cache are here.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import engine
from server import protocol as p
from server.protocol.errors import GameError
from server.store.boards import BoardStore, PlayerTotals

BoardKey = tuple[str, str | None]


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's place on an all-time board (names are read per page)."""

    rank: int
    player: int
    games: int
    wins: int
    best_time_ms: int | None

    @property
    def win_rate(self) -> float:
        return self.wins / self.games


class Ranking:
    """One computed all-time board: results in board order, ranks, each player's place.

    Kept as plain sorted tuples (a board may hold every player of a variant); a
    ``Standing`` is built only for the lines a reply shows.
    """

    def __init__(self, totals: list[PlayerTotals]) -> None:
        # (-wins, -win rate, no win, best time, player, games): tuple order is board order;
        # equal rates give equal floats, so ties are exact.
        results = sorted(
            (-wins, -wins / games, best_time_ms is None, best_time_ms or 0, player_id, games)
            for player_id, games, wins, best_time_ms in totals
        )
        self._results = results
        self._ranks: list[int] = []
        self.places: dict[int, int] = {}
        previous: tuple[int, float, bool, int] | None = None
        rank = 0
        for place, result in enumerate(results):
            if result[:4] != previous:
                rank, previous = place + 1, result[:4]
            self._ranks.append(rank)
            self.places[result[4]] = place

    def __len__(self) -> int:
        return len(self._results)

    def _standings(self, start: int, stop: int) -> list[Standing]:
        return [
            Standing(
                rank=self._ranks[place],
                player=result[4],
                games=result[5],
                wins=-result[0],
                best_time_ms=None if result[2] else result[3],
            )
            for place, result in enumerate(self._results[start:stop], start=start)
        ]

    def page(self, page: int, page_size: int) -> list[Standing]:
        """Page ``page`` (from 1) of ``page_size`` standings."""
        start = (page - 1) * page_size
        return self._standings(start, start + page_size)

    def around(self, player: int, span: int) -> list[Standing]:
        """The player's standing with ``span`` above and below; empty when not on it."""
        place = self.places.get(player)
        if place is None:
            return []
        return self._standings(max(0, place - span), place + span + 1)


class AllTimeBoards:
    """All-time boards, computed on demand and kept for a while (see the module doc)."""

    def __init__(
        self,
        store: BoardStore,
        clock: Callable[[], int],
        ttl_ms: int = 30_000,
        max_boards: int = 64,
    ) -> None:
        self.store = store
        self.clock = clock
        self.ttl_ms = ttl_ms
        self.max_boards = max_boards
        # Per board: when it was computed, the bar count it was computed under, the board.
        self._boards: OrderedDict[BoardKey, tuple[int, int, asyncio.Future[Ranking]]] = (
            OrderedDict()
        )

    async def ranking(self, variant: str, guild_id: str | None) -> Ranking:
        """The board of ``variant`` (one guild's, or global), fresh within the ttl."""
        key = (variant, guild_id)
        now = self.clock()
        # A player barred or unbarred since (solitaire players bar) leaves or comes back at
        # once: one small read per request, against a board's second of computing.
        bars = await self.store.bar_count()
        kept = self._boards.get(key)
        stale = kept is None or now - kept[0] >= self.ttl_ms or kept[1] != bars
        if kept is not None and kept[2].done() and (kept[2].cancelled() or kept[2].exception()):
            stale = True  # the last computation failed: try again
        if stale:
            future: asyncio.Future[Ranking] = asyncio.ensure_future(
                self._compute(variant, guild_id)
            )
            self._boards[key] = (now, bars, future)
            while len(self._boards) > self.max_boards:
                self._boards.popitem(last=False)
        else:
            assert kept is not None
            future = kept[2]
        self._boards.move_to_end(key)
        return await asyncio.shield(future)

    async def _compute(self, variant: str, guild_id: str | None) -> Ranking:
        return Ranking(await self.store.all_time_totals(variant, guild_id))

    async def reply(self, player: int, message: p.AllTimeBoard) -> p.AllTimeReply:
        """Reply to leaderboard: a page, or the asker's line with ``span`` around it.

        Raises:
            GameError: ``invalid_options`` for an unknown variant.
        """
        if message.variant not in engine.VARIANTS:
            known = ", ".join(sorted(engine.VARIANTS))
            raise GameError(
                "invalid_options", reason=f"Unknown variant {message.variant!r}; try {known}."
            )
        ranking = await self.ranking(message.variant, message.guild_id)
        if message.around_me:
            chosen = ranking.around(player, message.span)
        else:
            chosen = ranking.page(message.page, message.page_size)
        names = await self.store.names([s.player for s in chosen])
        lines = [_line(standing, names) for standing in chosen]
        scope = "global" if message.guild_id is None else "guild"
        total = len(ranking)
        if message.around_me:
            me = next((line for line in lines if line.player == player), None)
            return p.AllTimeReply(
                id=message.id,
                variant=message.variant,
                scope=scope,
                total=total,
                lines=lines,
                me=me,
            )
        return p.AllTimeReply(
            id=message.id,
            variant=message.variant,
            scope=scope,
            total=total,
            lines=lines,
            page=message.page,
            page_size=message.page_size,
        )


def _line(standing: Standing, names: dict[int, str]) -> p.AllTimeLine:
    return p.AllTimeLine(
        rank=standing.rank,
        player=standing.player,
        name=names.get(standing.player, "?"),
        games=standing.games,
        wins=standing.wins,
        win_rate=round(standing.win_rate, 4),
        best_time_ms=standing.best_time_ms,
    )
