"""Practice games played offline and sent later (``practice_record``), over real sockets."""

from __future__ import annotations

from typing import Any

import asyncpg
from arena_client import SOLVER_WAIT

from engine import new_game
from engine.solver import solve


def won_record(variant: str, seed: int) -> list[str]:
    """The actions of a win of ``variant`` on ``seed``, with a hint and an undo in it."""
    game = new_game(variant, seed)
    moves = [m.notation() for m in solve(game.rules, game.position).moves]
    assert moves
    return [moves[0], "hint", "undo", *moves]


async def test_a_won_record_is_kept_as_a_finished_practice_game(connect: Any) -> None:
    ann = await connect(name="Ann")
    actions = won_record("yukon", 2)
    reply = await ann.ok("practice_record", variant="yukon", seed=2, actions=actions)
    view = reply["view"]
    assert view["status"] == "won" and view["outcome"] == "won"
    assert view["counters"]["undos"] == 1 and view["counters"]["hints"] == 1
    assert view["seed"] == 2 and "finished_at" in view

    # Kept as it came: the replay of the stored game is the record, and it is over.
    record = await ann.ok("replay", game=reply["game"], wait=SOLVER_WAIT)
    assert record["actions"] == actions and record["status"] == "won"
    await ann.error("move", "game_over", game=reply["game"], text="1>f")
    # Practice never reaches a board or the statistics.
    stats = await ann.ok("player_stats", variant="yukon")
    assert all(line["games"] == 0 for line in stats["variants"])
    # Nobody else may touch it either.
    bob = await connect(name="Bob")
    await bob.error("get_view", "forbidden", game=reply["game"])


async def test_a_given_up_record_is_kept_as_resigned(connect: Any) -> None:
    ann = await connect(name="Ann")
    reply = await ann.ok(
        "practice_record", variant="klondike-3", seed=7, actions=["d", "d"], resigned=True
    )
    assert reply["view"]["status"] == "resigned"
    assert reply["view"]["counters"]["moves"] == 2
    assert (await ann.ok("replay", game=reply["game"], wait=SOLVER_WAIT))["actions"] == ["d", "d"]


async def test_a_bad_record_is_refused_whole_and_stores_nothing(
    connect: Any, migrated_database_url: str
) -> None:
    ann = await connect(name="Ann", locale="de")
    game = new_game("klondike", 1)
    legal = [m.notation() for m in game.legal_moves]
    illegal = next(
        text
        for text in (f"{s}>{t}" for s in range(1, 8) for t in range(1, 8) if s != t)
        if text not in legal
    )
    bad = await ann.error(
        "practice_record", "bad_record", variant="klondike", seed=1, actions=["d", illegal]
    )
    assert bad["details"]["index"] == 1 and bad["details"]["action"] == illegal
    assert "nicht spielbar" in bad["message"]
    await ann.error("practice_record", "bad_record", variant="klondike", seed=1, actions=["undo"])
    await ann.error(
        "practice_record", "bad_record", variant="klondike", seed=1, actions=["fly home"]
    )
    # Not over: neither won nor given up.
    await ann.error("practice_record", "record_not_over", variant="klondike", seed=1, actions=["d"])
    await ann.error(
        "practice_record", "invalid_options", variant="klondike", seed=-1, actions=[], resigned=True
    )
    await ann.error(
        "practice_record", "invalid_options", variant="nope", seed=1, actions=[], resigned=True
    )
    # Nothing was stored.
    connection = await asyncpg.connect(migrated_database_url)
    try:
        assert await connection.fetchval("select count(*) from entries") == 0
    finally:
        await connection.close()
