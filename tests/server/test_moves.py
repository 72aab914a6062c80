"""Playing over real sockets: bad moves, retransmissions, undo, hints, forks."""

from __future__ import annotations

from typing import Any

import asyncpg
import pytest
from arena_client import Client
from websockets.asyncio.client import connect as ws_connect

from server.ops.config import ServerConfig
from server.protocol.errors import UnavailableError
from server.store.pool import guarded
from server.transport.app import ArenaServer


async def test_unreadable_illegal_and_ambiguous_moves_change_nothing(connect: Any) -> None:
    ann = await connect(name="Ann", locale="de")
    # In this Russian deal, after these moves "3 1" fits two moves.
    opening = ["4:5>3", "6:4>7", "7>2", "1>f"]
    game = (await ann.ok("practice", variant="russian", seed=6))["game"]
    for text in opening:
        await ann.ok("move", game=game, text=text)
    before = (await ann.ok("get_view", game=game))["view"]

    unreadable = await ann.error("move", "invalid_move", game=game, text="flip the king")
    assert "kein lesbarer Zug" in unreadable["message"]
    ambiguous = await ann.error("move", "ambiguous_move", game=game, text="3 1")
    assert sorted(ambiguous["details"]["candidates"]) == ["3:6>1", "3:8>1"]
    illegal = await ann.error("move", "illegal_move", game=game, text="1 1")
    assert illegal["message"]
    await ann.error("move", "invalid_message", game=game)
    await ann.error("move", "not_found", game=999_999, text="1 2")

    after = (await ann.ok("get_view", game=game))["view"]
    assert after == before
    played = await ann.ok("move", game=game, text="3:6>1")
    assert played["played"] == ["3:6>1"]


async def test_a_retransmitted_move_is_applied_once(connect: Any) -> None:
    ann = await connect(name="Ann")
    game = (await ann.ok("practice", variant="klondike", seed=11))["game"]
    first = await ann.ok("move", game=game, text="d", move_id="m-1")
    again = await ann.ok("move", game=game, text="d", move_id="m-1")
    assert again["duplicate"] is True and "duplicate" not in first
    assert again["view"] == first["view"]
    assert first["view"]["counters"]["moves"] == 1
    second = await ann.ok("move", game=game, text="d", move_id="m-2")
    assert second["view"]["counters"]["moves"] == 2


async def test_a_game_that_is_over_answers_from_its_move_log(connect: Any) -> None:
    # A game that is over leaves the server's memory (GameCache.retire); what a player
    # asks of it later is replayed from the move log, the ids of its moves included.
    ann = await connect(name="Ann")
    game = (await ann.ok("practice", variant="klondike", seed=11))["game"]
    first = await ann.ok("move", game=game, text="d", move_id="m-1")
    resigned = await ann.ok("resign", game=game)
    assert resigned["view"]["status"] == "resigned"
    again = await ann.ok("move", game=game, text="d", move_id="m-1")
    assert again["duplicate"] is True
    assert again["view"]["counters"] == first["view"]["counters"]
    await ann.error("move", "game_over", game=game, text="d", move_id="m-2")
    await ann.error("resign", "game_over", game=game)
    view = (await ann.ok("get_view", game=game))["view"]
    assert view["status"] == "resigned" and view["counters"]["moves"] == 1
    assert view["tableau"] == first["view"]["tableau"]


async def test_undo_and_hints_follow_the_race_policy(connect: Any) -> None:
    ann = await connect(name="Ann")
    created = await ann.ok(
        "create_race", variant="klondike", seed=2, start="now", allow_undo=False, allow_hints=True
    )
    game = created["race"]["your_game"]
    await ann.ok("move", game=game, text="d")
    await ann.error("undo", "undo_disabled", game=game)
    await ann.error("move", "undo_disabled", game=game, text="undo")
    hint = await ann.ok("hint", game=game)
    assert hint["hint"] in [m for ms in hint["view"]["legal_moves"].values() for m in ms]
    assert hint["view"]["counters"]["hints"] == 1
    await ann.error("auto_finish", "cannot_finish", game=game)

    practice = (await ann.ok("practice", variant="klondike", seed=2))["game"]
    await ann.error("undo", "nothing_to_undo", game=practice)
    await ann.ok("move", game=practice, text="d")
    undone = await ann.ok("move", game=practice, text="zurück")
    assert undone["played"] == ["undo"]
    assert undone["view"]["counters"] == {"moves": 0, "undos": 1, "hints": 0, "score": 0}
    resigned = await ann.ok("resign", game=practice)
    assert resigned["view"]["status"] == "resigned"
    assert resigned["view"]["seed"] == 2  # a finished practice game shows its deal
    await ann.error("move", "game_over", game=practice, text="d")


async def test_unknown_variant_or_options_are_refused(connect: Any) -> None:
    ann = await connect(name="Ann")
    reply = await ann.error("practice", "invalid_options", variant="freecell")
    assert "klondike" in reply["message"]
    await ann.error("practice", "invalid_options", variant="klondike", options={"colour": 1})
    await ann.error("practice", "invalid_options", variant="klondike", seed=2**64)
    await ann.error("create_race", "invalid_options", variant="yukon", max_players=0)
    await ann.error("create_race", "invalid_options", variant="yukon", time_limit_s=0)


async def test_a_practice_game_with_a_server_seed_hides_the_seed(connect: Any) -> None:
    ann = await connect(name="Ann")
    reply = await ann.ok("practice", variant="spider-2")
    assert "seed" not in reply["view"] and "deal_code" not in reply["view"]


async def test_two_processes_cannot_fork_a_game(
    connect: Any, server: ArenaServer, migrated_database_url: str
) -> None:
    """A second server on the same database: the move log's key picks one winner."""
    ann = await connect(name="Ann")
    game = (await ann.ok("practice", variant="klondike", seed=21))["game"]
    async with ArenaServer(server.config, migrated_database_url) as other:
        twin = Client(await ws_connect(other.url, max_queue=None))
        await twin.ok("hello", token=ann.welcome["token"])
        await twin.ok("get_view", game=game)  # the other process caches the game now
        await ann.ok("move", game=game, text="d")  # first: sequence number 0
        lost = await twin.error("move", "conflict", game=game, text="d")
        assert lost["view"]["counters"]["moves"] == 1  # the fresh view
        won = await twin.ok("move", game=game, text="d")
        assert won["view"]["counters"]["moves"] == 2
        await twin.close()
    # The first process's cache is behind now: its next move loses in the same way.
    behind = await ann.error("move", "conflict", game=game, text="d")
    assert behind["view"]["counters"]["moves"] == 2
    database = await asyncpg.connect(migrated_database_url)
    try:
        rows = await database.fetch(
            "select seq, action from moves where game_id=$1 order by seq", game
        )
    finally:
        await database.close()
    assert [(r["seq"], r["action"]) for r in rows] == [(0, "d"), (1, "d")]


async def test_cut_database_connections_are_replaced_and_no_move_is_lost(
    connect: Any, migrated_database_url: str
) -> None:
    """Every connection to the database is cut: the group commit opens new ones and
    commits each move waiting (server/store/commit.py), and acknowledges it only then."""
    ann = await connect(name="Ann")
    game = (await ann.ok("practice", variant="klondike", seed=5))["game"]
    await ann.ok("move", game=game, text="d", move_id="before")
    admin = await asyncpg.connect(migrated_database_url)
    try:
        cut = await admin.fetchval(
            "select count(pg_terminate_backend(pid)) from pg_stat_activity "
            "where datname = current_database() and pid <> pg_backend_pid()"
        )
    finally:
        await admin.close()
    assert cut >= 1  # the committer's connection among them
    replies = [await ann.request("move", game=game, text="d", move_id=f"m{i}") for i in range(8)]
    assert [r["type"] for r in replies] == ["view"] * 8, replies
    assert [r["view"]["counters"]["moves"] for r in replies] == list(range(2, 10))
    view = await ann.ok("get_view", game=game)
    assert view["view"]["counters"]["moves"] == 9
    database = await asyncpg.connect(migrated_database_url)
    try:
        stored = await database.fetch(
            "select move_id from moves where game_id=$1 order by seq", game
        )
    finally:
        await database.close()
    assert [row["move_id"] for row in stored] == ["before", *(f"m{i}" for i in range(8))]


@pytest.mark.parametrize(
    "lost",
    [
        asyncpg.InternalClientError(
            "cannot switch to state 15; another operation (2) is in progress"
        ),
        asyncpg.ConnectionDoesNotExistError("connection was closed in the middle of operation"),
        ConnectionResetError(),
    ],
)
async def test_a_connection_whose_server_process_ended_reads_as_unavailable(
    lost: Exception,
) -> None:
    # What asyncpg raises depends on when the cut lands (the test above meets each now
    # and then): every one is the database gone, never an internal error.
    @guarded
    async def read() -> None:
        raise lost

    with pytest.raises(UnavailableError, match="cannot reach its database"):
        await read()


async def test_a_practice_view_carries_its_clock_from_the_stored_game(
    server_config: ServerConfig, migrated_database_url: str
) -> None:
    """``started_at`` is the server's time at creation, kept by every view and by a replay."""
    now = [1_773_490_500_000]
    async with ArenaServer(server_config, migrated_database_url, clock=lambda: now[0]) as server:
        ann = Client(await ws_connect(server.url, max_queue=None))
        ann.welcome = await ann.ok("hello", name="Ann")
        created = await ann.ok("practice", variant="klondike", seed=5)
        game = created["game"]
        assert created["view"]["started_at"] == 1_773_490_500_000
        assert "finished_at" not in created["view"]
        now[0] = 1_773_490_583_000
        moved = await ann.ok("move", game=game, text="d")
        assert moved["view"]["started_at"] == 1_773_490_500_000
        await ann.close()
    async with ArenaServer(
        server_config, migrated_database_url
    ) as other:  # rebuilt from the database
        twin = Client(await ws_connect(other.url, max_queue=None))
        await twin.ok("hello", token=ann.welcome["token"])
        replayed = await twin.ok("get_view", game=game)
        await twin.close()
    assert replayed["view"]["started_at"] == 1_773_490_500_000
    assert replayed["view"]["counters"]["moves"] == 1
