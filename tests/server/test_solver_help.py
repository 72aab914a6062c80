"""The solver's help in games: hints towards a win, "still winnable?", jump back.

Real server, real worker processes; deals and lines the solver answers quickly.
"""

from __future__ import annotations

from typing import Any

from solver_cases import LOST_LINE, LOST_SEED

from server.services.solving import Budget, winnability

BUDGET = Budget(max_nodes=200_000, max_seconds=10.0)


async def test_a_practice_hint_is_the_first_move_of_a_win(connect: Any) -> None:
    ann = await connect(name="Ann")
    game = (await ann.ok("practice", variant="yukon", seed=1))["game"]
    reply = await ann.ok("hint", game=game)
    assert reply["hint_source"] == "solver"
    played = await ann.ok("move", game=game, text=reply["hint"])
    actions = ["hint", *played["played"]]  # the game's record so far
    assert winnability("yukon", {}, 1, actions, BUDGET) == "winnable"
    check = await ann.ok("check", game=game)
    assert check["type"] == "winnability" and check["verdict"] == "winnable"
    assert check["seq"] == 2  # the hint and the move


async def test_a_lost_game_jumps_back_to_its_last_winnable_move(connect: Any, server: Any) -> None:
    ann = await connect(name="Ann")
    game = (await ann.ok("practice", variant="klondike", seed=LOST_SEED))["game"]
    await ann.error("jump_back", "not_lost", game=game)  # the deal itself is winnable
    for text in LOST_LINE:
        await ann.ok("move", game=game, text=text)
    assert (await ann.ok("check", game=game))["verdict"] == "lost"

    back = await ann.ok("jump_back", game=game, move_id="back-1")
    undone = len(back["played"])
    assert back["played"] == ["undo"] * undone and 0 < undone < len(LOST_LINE)
    kept = LOST_LINE[: len(LOST_LINE) - undone]
    assert winnability("klondike", {}, LOST_SEED, kept, BUDGET) == "winnable"
    assert (await ann.ok("check", game=game))["verdict"] == "winnable"
    again = await ann.ok("jump_back", game=game, move_id="back-1")
    assert again["duplicate"] is True  # a retransmission undoes nothing more

    # the undos are in the move log like any others: a replay reaches the same position
    server.services.games.forget(game)
    replayed = await ann.ok("get_view", game=game)
    assert replayed["view"]["tableau"] == back["view"]["tableau"]
    assert replayed["view"]["counters"]["undos"] == undone


async def test_races_refuse_solver_help_unless_switched_on(connect: Any) -> None:
    ann = await connect(name="Ann")
    plain = (await ann.ok("create_race", variant="yukon", start="now", allow_hints=True))["race"]
    game = plain["your_game"]
    await ann.error("check", "solver_help_disabled", game=game)
    await ann.error("jump_back", "solver_help_disabled", game=game)
    hint = await ann.ok("hint", game=game)
    assert hint["hint_source"] == "engine"  # hints allowed, but not the solver's

    helped = (
        await ann.ok(
            "create_race", variant="yukon", start="now", allow_hints=True, solver_help=True
        )
    )["race"]
    assert helped["settings"]["winnable"] == "proven"
    check = await ann.ok("check", game=helped["your_game"])
    assert check["verdict"] == "winnable"
    assert (await ann.ok("hint", game=helped["your_game"]))["hint_source"] == "solver"


async def _told_lost(client: Any, game: int, timeout: float = 30.0) -> dict[str, Any]:
    """The first unasked ``winnability`` message about ``game`` (already received or next)."""
    index = 0
    while True:
        while index < len(client.received):
            message = client.received[index]
            index += 1
            if message["type"] == "winnability" and "id" not in message:
                assert message["game"] == game
                return message
        await client.receive(timeout)


async def test_a_practice_game_thrown_away_is_told_lost_unasked(connect: Any) -> None:
    ann = await connect(name="Ann")
    game = (await ann.ok("practice", variant="klondike", seed=LOST_SEED))["game"]
    for text in LOST_LINE:
        await ann.ok("move", game=game, text=text)
    told = await _told_lost(ann, game)
    assert told["verdict"] == "lost"
    # it speaks of a position the game really reached, and that position is lost
    assert 0 < told["seq"] <= len(LOST_LINE)
    assert winnability("klondike", {}, LOST_SEED, LOST_LINE[: told["seq"]], BUDGET) == "lost"
    # the offer that follows works: back to the last winnable move
    back = await ann.ok("jump_back", game=game)
    assert 0 < len(back["played"]) < len(LOST_LINE)


async def test_winnable_games_and_games_without_solver_help_are_told_nothing(
    connect: Any,
) -> None:
    ann = await connect(name="Ann")
    game = (await ann.ok("practice", variant="klondike", seed=LOST_SEED))["game"]
    await ann.ok("move", game=game, text=LOST_LINE[0])
    # the background check of that move went to the solver before this question
    assert (await ann.ok("check", game=game))["verdict"] == "winnable"

    race = (await ann.ok("create_race", variant="klondike", seed=LOST_SEED, start="now"))["race"]
    for text in LOST_LINE:
        await ann.ok("move", game=race["your_game"], text=text)
    await ann.error("check", "solver_help_disabled", game=race["your_game"])
    assert not [m for m in ann.received if m["type"] == "winnability" and "id" not in m]
