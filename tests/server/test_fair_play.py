"""Ranked means fair: results recomputed from the move log, humanly fast, on unchosen deals.

The farming sequence of issue 19: a race of one on a chosen seed, won at once with the
moves the solver prints, must reach no board; so must a server-dealt race won faster
than a person could enter its moves. A win at a person's pace ranks.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
from arena_client import Client
from websockets.asyncio.client import connect as ws_connect

import engine
from engine.solver import solve
from server.core import fairness
from server.ops.config import ServerConfig
from server.transport.app import ArenaServer

START = 1_773_490_500_000


def solution(variant: str, seed: int) -> list[str]:
    game = engine.new_game(variant, seed=seed)
    line = solve(game.rules, game.position, max_seconds=30).moves
    assert line, f"the solver wins {variant} seed {seed}"
    return [move.notation() for move in line]


class TestTheReview:
    """server/core/fairness.py, on games replayed as the log gives them."""

    def won_game(self) -> engine.Game:
        game = engine.new_game("klondike", seed=1)
        for move in solution("klondike", 1):
            game.play(move)
        return game

    def test_moves_the_game_finished_by_itself_are_not_counted_as_entered(self) -> None:
        game = self.won_game()
        entered = fairness.entered_moves(game)
        assert 0 < entered < game.position.moves
        replayed = engine.new_game("klondike", seed=1)
        for move in game.moves[:entered]:
            replayed.play(move)
        assert replayed.can_finish

    def test_a_win_at_a_persons_pace_counts(self) -> None:
        game = self.won_game()
        slow = fairness.entered_moves(game) * fairness.MIN_MS_PER_MOVE
        assert fairness.review(game, won=True, moves=game.position.moves, time_ms=slow) is None

    def test_a_win_faster_than_a_person_is_held(self) -> None:
        game = self.won_game()
        fast = fairness.entered_moves(game) * fairness.MIN_MS_PER_MOVE - 1
        held = fairness.review(game, won=True, moves=game.position.moves, time_ms=fast)
        assert held == fairness.HELD_TOO_FAST

    def test_a_result_the_log_does_not_give_is_held(self) -> None:
        game = self.won_game()
        slow = 10**9
        assert fairness.review(game, won=True, moves=3, time_ms=slow) == fairness.HELD_MISMATCH
        unfinished = engine.new_game("klondike", seed=1)
        claimed = fairness.review(unfinished, won=True, moves=0, time_ms=slow)
        assert claimed == fairness.HELD_MISMATCH
        assert fairness.review(unfinished, won=False, moves=0, time_ms=None) is None


@pytest.fixture
async def timed(
    server_config: ServerConfig, migrated_database_url: str
) -> AsyncIterator[tuple[ArenaServer, list[int]]]:
    """A server whose clock the test moves (``now[0]``)."""
    now = [START]
    async with ArenaServer(server_config, migrated_database_url, clock=lambda: now[0]) as server:
        yield server, now


async def player(server: ArenaServer, name: str) -> Client:
    client = Client(await ws_connect(server.url, max_queue=None))
    client.welcome = await client.ok("hello", name=name)
    return client


async def race_won(
    server: ArenaServer, now: list[int], client: Client, ms_per_move: int, seed: int | None
) -> int:
    """Win a race of one on Klondike (its seed chosen, or read back from the database as a
    cheat would need to), ``ms_per_move`` apart; the race's game id."""
    create: dict[str, Any] = {"variant": "klondike", "start": "now", "max_players": 1}
    if seed is not None:
        create["seed"] = seed
    race = (await client.ok("create_race", **create))["race"]
    assert race["settings"]["ranked"] is (seed is None)
    if seed is None:
        assert server.services is not None
        seed = int(
            await server.services.storage.pool.fetchval(
                "select seed from races where id=$1", race["race"]
            )
        )
    for move in solution("klondike", seed):
        now[0] += ms_per_move
        await client.ok("move", game=race["your_game"], text=move)
    await client.event("end", race["race"])
    return int(race["your_game"])


async def held(pool: asyncpg.Pool, game: int) -> str | None:
    """The result's verdict, once the review has decided it."""
    for _ in range(200):
        verdict = await pool.fetchval("select held from results where entry_id=$1", game)
        if verdict != fairness.HELD_UNREVIEWED:
            return verdict  # type: ignore[no-any-return]
        await asyncio.sleep(0.05)
    raise AssertionError(f"the result of game {game} was never reviewed")


async def test_only_a_fair_win_reaches_the_boards(timed: tuple[ArenaServer, list[int]]) -> None:
    server, now = timed
    assert server.services is not None
    pool = server.services.storage.pool
    farmer = await player(server, "Farmer")
    rusher = await player(server, "Rusher")
    fair = await player(server, "Fair")
    farmed = await race_won(server, now, farmer, ms_per_move=57, seed=1)  # issue 19's farm
    rushed = await race_won(server, now, rusher, ms_per_move=57, seed=None)
    played = await race_won(server, now, fair, ms_per_move=2_000, seed=None)
    assert await held(pool, farmed) == fairness.HELD_UNRANKED
    assert await held(pool, rushed) == fairness.HELD_TOO_FAST
    assert await held(pool, played) is None

    figures = await fair.ok("player_stats")
    assert [(line["variant"], line["wins"]) for line in figures["variants"]] == [("klondike", 1)]
    for client in (farmer, rusher):
        stats = await client.ok("player_stats")
        assert stats["variants"] == []
        await client.close()
    await fair.close()


async def test_results_left_unreviewed_by_a_stop_are_reviewed_at_the_next_start(
    timed: tuple[ArenaServer, list[int]], server_config: ServerConfig, migrated_database_url: str
) -> None:
    server, now = timed
    assert server.services is not None
    pool = server.services.storage.pool
    fair = await player(server, "Fair")
    game = await race_won(server, now, fair, ms_per_move=2_000, seed=None)
    assert await held(pool, game) is None
    await pool.execute("update results set held = 'unreviewed' where entry_id=$1", game)
    await fair.close()
    async with ArenaServer(server_config, migrated_database_url):
        assert await held(pool, game) is None
