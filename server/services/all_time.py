"""The all-time board of a variant: players ranked by rating, not by a count of wins.

A variant's board (for one option set: its defaults unless the request names others) is
every player rated in that pool who is no longer provisional (docs/ratings.md), ranked
by the conservative estimate of their skill, µ − 3σ (higher first): a player must have
shown their skill over enough rated games to stand high, and playing many games
earns nothing by itself. Equal estimates share a rank; among equals the lower player id
comes first, so pages are stable. Provisional players are apart: the reply counts them.
A guild's board holds the players who played the variant there (a ranked daily attempt
started, or a race created, in that guild); a player's record stays ``player_stats``'s.

A board reads every rating of its pool (bench/all_time.py times it at 100,000 players),
so it is computed once and kept for ``ttl_ms`` (30 s by default, or until a player is
barred or unbarred) per server process: pages and "around me" are read from memory,
concurrent requests for a board being computed wait for that one computation, and a
rated game counts on the board within the ttl. At most ``max_boards`` boards are kept
(least recently used dropped).
"""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import engine
from server import protocol as p
from server.core.ratings import PROVISIONAL_SIGMA, Skill, Z, pool_options
from server.protocol.errors import GameError
from server.store.boards import BoardStore, RatedTotals

BoardKey = tuple[str, str, str | None]


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's place on a rating board (names are read per page)."""

    rank: int
    player: int
    skill: Skill
    rated_games: int


class Ranking:
    """One computed board: players in board order, ranks, each player's place, and how
    many rated players are still provisional."""

    def __init__(self, totals: list[RatedTotals], provisional: int = 0) -> None:
        # (-(µ − Zσ), player, µ, σ, rated games): tuple order is board order (a board may
        # hold every rated player of a variant: plain tuples, no object per line).
        results = sorted(
            (-(mu - Z * sigma), player_id, mu, sigma, games)
            for player_id, mu, sigma, games in totals
        )
        self._results = results
        self.provisional = provisional
        self._ranks: list[int] = []
        self.places: dict[int, int] = {}
        previous: float | None = None
        rank = 0
        for place, result in enumerate(results):
            if result[0] != previous:
                rank, previous = place + 1, result[0]
            self._ranks.append(rank)
            self.places[result[1]] = place

    def __len__(self) -> int:
        return len(self._results)

    def _standings(self, start: int, stop: int) -> list[Standing]:
        return [
            Standing(
                rank=self._ranks[place],
                player=result[1],
                skill=Skill(result[2], result[3]),
                rated_games=result[4],
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
    """Rating boards, computed on demand and kept for a while (see the module doc)."""

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

    async def ranking(self, variant: str, guild_id: str | None, options: str = "") -> Ranking:
        """The board of ``variant`` with ``options`` (canonical JSON; the defaults when
        empty), one guild's or global, fresh within the ttl."""
        options = options or pool_options(variant, {})
        key = (variant, options, guild_id)
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
                self._compute(variant, options, guild_id)
            )
            self._boards[key] = (now, bars, future)
            while len(self._boards) > self.max_boards:
                self._boards.popitem(last=False)
        else:
            assert kept is not None
            future = kept[2]
        self._boards.move_to_end(key)
        return await asyncio.shield(future)

    async def _compute(self, variant: str, options: str, guild_id: str | None) -> Ranking:
        totals, provisional = await self.store.rating_board(
            variant, options, guild_id, PROVISIONAL_SIGMA
        )
        return Ranking(totals, provisional)

    async def reply(self, player: int, message: p.AllTimeBoard) -> p.AllTimeReply:
        """Reply to leaderboard: a page, or the asker's line with ``span`` around it.

        Raises:
            GameError: ``invalid_options`` for an unknown variant or bad options.
        """
        if message.variant not in engine.VARIANTS:
            known = ", ".join(sorted(engine.VARIANTS))
            raise GameError(
                "invalid_options", reason=f"Unknown variant {message.variant!r}; try {known}."
            )
        try:
            options = pool_options(message.variant, message.options)
        except ValueError as err:
            raise GameError("invalid_options", reason=str(err)) from None
        ranking = await self.ranking(message.variant, message.guild_id, options)
        if message.around_me:
            chosen = ranking.around(player, message.span)
        else:
            chosen = ranking.page(message.page, message.page_size)
        names = await self.store.names([s.player for s in chosen])
        lines = [_line(standing, names) for standing in chosen]
        shared = {
            "id": message.id,
            "variant": message.variant,
            "options": json.loads(options),
            "scope": "global" if message.guild_id is None else "guild",
            "total": len(ranking),
            "provisional": ranking.provisional,
            "lines": lines,
        }
        if message.around_me:
            me = next((line for line in lines if line.player == player), None)
            return p.AllTimeReply(**shared, me=me)
        return p.AllTimeReply(**shared, page=message.page, page_size=message.page_size)


def _line(standing: Standing, names: dict[int, str]) -> p.AllTimeLine:
    return p.AllTimeLine(
        rank=standing.rank,
        player=standing.player,
        name=names.get(standing.player, "?"),
        rating=standing.skill.rating,
        deviation=standing.skill.deviation,
        rated_games=standing.rated_games,
    )
