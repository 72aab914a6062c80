"""Daily, leaderboard, history and replay messages through a real server and real sockets."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import asyncpg
from arena_client import SOLVER_WAIT

import engine
from server.core.race import commitment
from server.transport.app import ArenaServer


async def store_todays_deal(database_url: str, variant: str = "klondike", seed: int = 77) -> str:
    """Today's deal as the preparer stores it (today in UTC); returns the day."""
    today = datetime.now(UTC).date()
    connection = await asyncpg.connect(database_url)
    try:
        await connection.execute(
            "insert into daily_deals (variant, day, seed, candidate, salt, commitment, verdict, "
            "solution_length, solver_nodes, solver_ms) "
            "values ($1, $2, $3, 0, 's', $4, 'winnable', 100, 1, 1)",
            variant,
            today,
            seed,
            commitment(seed, "s"),
        )
    finally:
        await connection.close()
    return today.isoformat()


async def test_a_day_of_dailies_over_the_wire(connect: Any, migrated_database_url: str) -> None:
    today = await store_todays_deal(migrated_database_url)
    ada = await connect(name="Ada")
    bob = await connect(name="Bob")

    daily = await ada.ok("daily", variant="klondike")
    assert daily["deal"]["date"] == today
    assert daily["deal"]["commitment"] == commitment(77, "s")
    assert daily["deal"]["seed"] is None and daily["deal"]["salt"] is None

    first = await ada.ok("daily_start", variant="klondike", guild_id="g1")
    assert first["type"] == "daily_game" and first["ranked"] is True
    assert "seed" not in first["view"]
    second = await ada.ok("daily_start", variant="klondike")
    assert second["ranked"] is False
    theirs = await bob.ok("daily_start", variant="klondike")
    await ada.ok("resign", game=first["game"])
    await bob.ok("hint", game=theirs["game"])
    await bob.ok("resign", game=theirs["game"])

    board = await ada.ok("daily_board", variant="klondike")
    assert board["type"] == "board" and board["total"] == 2 and board["scope"] == "global"
    assert [(line["rank"], line["name"]) for line in board["lines"]] == [(1, "Ada"), (1, "Bob")]
    assert board["lines"][1]["hints"] == 1
    guild = await ada.ok("daily_board", variant="klondike", guild_id="g1")
    assert [line["name"] for line in guild["lines"]] == ["Ada"]
    practice = await ada.ok("daily_board", variant="klondike", ranked=False)
    assert [line["game"] for line in practice["lines"]] == [second["game"]]
    around = await bob.ok("daily_around", variant="klondike", span=1)
    assert around["me"]["name"] == "Bob" and len(around["lines"]) == 2

    stats = await ada.ok("player_stats")
    assert stats["variants"] == [
        {
            "variant": "klondike",
            "games": 1,
            "wins": 0,
            "win_rate": 0.0,
            "best_time_ms": None,
            "fewest_moves": None,
            "average_win_time_ms": None,
            "current_streak": 0,
            "longest_streak": 0,
        }
    ]
    # Before the day closes, a game of the deal goes only to a player whose own ranked
    # attempt is over: to Cy it would give the deal away; Bob's is over.
    cy = await connect(name="Cy", locale="de")
    refused = await cy.error("replay", "attempt_not_over", game=first["game"])
    assert "opens_at" in refused["details"] and "gewerteten" in refused["message"]
    record = await bob.ok("replay", game=first["game"], step=0)
    assert record["name"] == "Ada" and record["seed"] is None and record["date"] == today
    assert "seed" not in record["view"] and "solution" not in record
    await cy.ok("daily_start", variant="klondike")
    await cy.error("replay", "attempt_not_over", game=first["game"])  # still playing


async def test_bad_board_requests_change_nothing(connect: Any, migrated_database_url: str) -> None:
    ada = await connect(name="Ada")
    await ada.error("daily_board", "invalid_message", variant="klondike", page_size=500)
    await ada.error("daily_board", "invalid_message", variant="klondike", date="14.03.2026")
    await ada.error("daily_around", "invalid_options", variant="chess")
    await ada.error("daily_start", "invalid_options", variant="alaska")
    await ada.error("player_stats", "not_found", player=10**9)
    await ada.error("replay", "not_found", game=10**9)
    await ada.error("race_result", "not_found", race=10**9)


async def test_race_history_result_and_replay(connect: Any) -> None:
    ann = await connect(name="Ann")
    created = await ann.ok("create_race", variant="yukon", start="now", max_players=1)
    race = created["race"]
    game = race["your_game"]
    view = await ann.ok("get_view", game=game)
    first = next(m for moves in view["view"]["legal_moves"].values() for m in moves)
    await ann.ok("move", game=game, text=first)
    await ann.error("replay", "deal_live", game=game)
    await ann.error("race_result", "race_not_finished", race=race["race"])
    await ann.ok("resign", game=game)
    await ann.event("end", race["race"])

    result = await ann.ok("race_result", race=race["race"])
    assert result["commitment"] == commitment(int(result["seed"]), result["salt"])
    assert [(r["name"], r["finished"]) for r in result["ranking"]] == [("Ann", False)]
    assert result["games"] == {str(ann.welcome["player"]["id"]): game}
    history = await ann.ok("race_history")
    assert [(r["race"], r["players"], r["finished"]) for r in history["races"]] == [
        (race["race"], 1, False)
    ]
    replay = await ann.ok("replay", game=game, step=1)
    assert replay["actions"][0] == first and replay["race"] == race["race"]
    assert replay["view"]["counters"]["moves"] == 1


async def test_a_practice_game_replays_once_it_is_over(connect: Any) -> None:
    ann = await connect(name="Ann")
    game = (await ann.ok("practice", variant="klondike"))["game"]
    await ann.error("replay", "deal_live", game=game)
    await ann.ok("resign", game=game)
    replay = await ann.ok("replay", game=game, step=0, wait=SOLVER_WAIT)
    assert replay["type"] == "game_record" and replay["actions"] == []
    assert replay["status"] == "resigned" and replay["view"]["counters"]["moves"] == 0


async def test_a_practice_replay_comes_with_the_solvers_win(
    connect: Any, server: ArenaServer
) -> None:
    ann = await connect(name="Ann")
    game = (await ann.ok("practice", variant="klondike", seed=2))["game"]
    await ann.ok("move", game=game, text="d")
    await ann.ok("resign", game=game)
    replay = await ann.ok("replay", game=game, wait=SOLVER_WAIT)
    assert replay["actions"] == ["d"] and replay["seed"] == "2"
    # The line is the solver's from the deal: the engine plays it to a win.
    won = engine.replay("klondike", 2, {}, replay["solution"])
    assert won.view()["outcome"] == "won"
    # Stepping through it asks the solver once per deal: its win is kept.
    assert server.services is not None
    boards = server.services.boards
    assert list(boards.solutions.values()) == [replay["solution"]]
    boards.solutions[next(iter(boards.solutions))] = ["kept"]
    assert (await ann.ok("replay", game=game, step=1))["solution"] == ["kept"]
