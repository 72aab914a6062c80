"""The read side's stores (server/store/daily.py, boards.py, listings.py) turn a lost
database into ``UnavailableError`` themselves, so no service above them sees asyncpg."""

from __future__ import annotations

import inspect
from datetime import date
from typing import Any

import asyncpg
import pytest

from server.protocol.errors import UnavailableError
from server.store.boards import BoardStore
from server.store.daily import DailyDeal, DailyStore, ProvenDeal
from server.store.daily_board import Board
from server.store.listings import ListingStore
from server.store.pool import guarded
from server.store.storage import Storage

DAY = date(2026, 3, 14)
NOON = 1_773_489_600_000
BOARD = Board("klondike", DAY)
DEAL = DailyDeal("klondike", DAY, 7, "salt", "c", 90)
PROVEN = ProvenDeal("klondike", DAY, 7, 0, "salt", "c", 90, 1, 1)

# Every method of the read side's stores, with arguments of the right kinds.
CALLS: dict[tuple[type, str], tuple[Any, ...]] = {
    (BoardStore, "lines"): (BOARD, 20, 0),
    (BoardStore, "around"): (BOARD, 1, 5),
    (BoardStore, "player_name"): (1,),
    (BoardStore, "names"): ([1, 2],),
    (BoardStore, "figures"): (1, None),
    (BoardStore, "rating_board"): ("klondike", '{"passes":0}', None, 7.0),
    (BoardStore, "bar_count"): (),
    (BoardStore, "race_history"): (1, 10, None),
    (BoardStore, "race"): (1,),
    (BoardStore, "race_results"): (1,),
    (BoardStore, "replay_game"): (1,),
    (BoardStore, "ranked_attempt"): (1, "klondike", DAY),
    (BoardStore, "actions"): (1,),
    (ListingStore, "games_in_play"): (1, NOON, 10),
    (ListingStore, "open_races"): ("g1", {"channel": "1"}, 10),
    (DailyStore, "secret"): (),
    (DailyStore, "deal"): ("klondike", DAY),
    (DailyStore, "add_deal"): (PROVEN,),
    (DailyStore, "attempts"): (1, "klondike", DAY),
    (DailyStore, "sweep"): (NOON,),
    (DailyStore, "start_attempt"): (DEAL, 1, None, NOON, NOON + 1, NOON + 2),
}


def test_every_store_method_is_called_below() -> None:
    methods = {
        (store, name)
        for store in (BoardStore, ListingStore, DailyStore)
        for name, method in vars(store).items()
        if not name.startswith("_") and inspect.iscoroutinefunction(method)
    }
    assert methods == set(CALLS)


async def test_a_lost_database_reads_as_unavailable(database_url: str) -> None:
    pool = await asyncpg.create_pool(database_url, min_size=1, max_size=1)
    await pool.close()  # every call now meets a pool that cannot reach the database
    stores = {
        BoardStore: BoardStore(pool),
        ListingStore: ListingStore(pool),
        DailyStore: DailyStore(Storage(pool)),
    }
    for (store, name), args in CALLS.items():
        with pytest.raises(UnavailableError) as lost:
            await getattr(stores[store], name)(*args)
        assert isinstance(lost.value.__cause__, asyncpg.InterfaceError), name


@pytest.mark.parametrize(
    "lost",
    [
        asyncpg.AdminShutdownError("terminating connection due to administrator command"),
        asyncpg.CannotConnectNowError("the database system is starting up"),
        asyncpg.CannotConnectNowError("the database system is shutting down"),
        ConnectionRefusedError(),
        FileNotFoundError(),  # the Unix socket of a stopped PostgreSQL
        TimeoutError(),
    ],
)
async def test_a_stopping_or_starting_postgres_reads_as_unavailable(lost: Exception) -> None:
    # What a restart of PostgreSQL answers (SQLSTATE class 57, operator intervention)
    # is the database away, never an internal error.
    @guarded
    async def read() -> None:
        raise lost

    with pytest.raises(UnavailableError):
        await read()


async def test_a_database_error_that_is_no_outage_stays_what_it_is() -> None:
    @guarded
    async def read() -> None:
        raise asyncpg.UniqueViolationError("duplicate key")

    with pytest.raises(asyncpg.UniqueViolationError):
        await read()
