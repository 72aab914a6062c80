"""What is derived from results, rebuilt when results change whose or whether they count.

Results (a race's ``results`` rows, a daily attempt's ``daily_entries`` row) are the
truth; the boards read them as they are, through SQL that keeps only what counts
(``held is null``), so a board is right the moment a result changes. Anything computed
from results and stored, such as ratings, is derived: when the results of some players
change (a player barred or unbarred, ``solitaire players bar``; a guest's games merged
into the Discord player it signed in as), it must be rebuilt from the results as they
now stand.

The one place: ``REBUILDS``. Each derived store adds one function to it, which rebuilds
what depends on the results of the given players (or all of it, if it cannot do less),
from the database alone: it runs in the server process that merged a guest and in the
``solitaire`` command that barred a player, which share nothing but the database.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import asyncpg
import structlog

from server.store import rating_rebuild

log = structlog.get_logger(__name__)

# Rebuilds what is derived from the results of the players given (their ids).
Rebuild = Callable[[asyncpg.Pool, list[int]], Awaitable[None]]


async def _ratings(pool: asyncpg.Pool, players: list[int]) -> None:
    """Ratings replay every rated game of every pool (server/store/rating_rebuild.py):
    a barred player's results are left out, so everyone who raced them is rated again
    as if they had not been there."""
    await rating_rebuild.rebuild(pool)


# Every derived store's rebuild, run in this order after results changed.
REBUILDS: tuple[Rebuild, ...] = (_ratings,)


async def rebuild_derived(
    pool: asyncpg.Pool, players: list[int], rebuilds: tuple[Rebuild, ...] = REBUILDS
) -> None:
    """Rebuild everything derived from the results of ``players``."""
    for rebuild in rebuilds:
        await rebuild(pool, players)
        log.info("derived_rebuilt", rebuild=getattr(rebuild, "__qualname__", repr(rebuild)))
