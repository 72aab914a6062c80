"""The solver's help in games: hints towards a win, "still winnable?", jump back.

Real server, real worker processes; deals and lines the solver answers quickly.
"""

from __future__ import annotations

from typing import Any

from solver_cases import LOST_LINE, LOST_SEED, STRAYED_YUKON_21

import engine
from engine.hints import position_key, undoes
from engine.solver import solve
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


async def test_hints_alone_win_a_practice_game_and_never_go_back(connect: Any, server: Any) -> None:
    """Issue 37's game (Yukon 21, where hints used to alternate 1>f and f1>1): pressing
    Hint and playing the hinted move, again and again, wins along the solver's line;
    halfway the server forgets the game, which is rebuilt from its record and keeps on
    along the same line."""
    ann = await connect(name="Ann")
    game = (await ann.ok("practice", variant="yukon", seed=21))["game"]
    replica = engine.new_game("yukon", 21)
    hinted: list[str] = []
    outcome = None
    while outcome != "won":
        assert len(hinted) < 200, hinted
        reply = await ann.ok("hint", game=game)
        assert reply["hint_source"] == "solver"
        move = engine.Move.from_notation(reply["hint"])
        if replica.moves:
            before, last = replica.line()[-1]
            assert not undoes(replica.rules, before, last, replica.position, move), hinted
            after = replica.rules.apply(replica.position, move)
            assert position_key(replica.rules, after) != position_key(replica.rules, before)
        replica.play(move)
        hinted.append(reply["hint"])
        outcome = (await ann.ok("move", game=game, text=reply["hint"]))["view"]["outcome"]
        if len(hinted) == 40:
            server.services.games.forget(game)
    first = solve(replica.rules, engine.new_game("yukon", 21).position)
    assert len(hinted) == len(first.moves)  # the solver's line, move for move
    view = (await ann.ok("get_view", game=game))["view"]
    assert view["counters"]["hints"] == len(hinted) and view["status"] == "won"


async def test_a_hint_after_the_players_own_move_does_not_take_it_back(connect: Any) -> None:
    """Where the solver's own way starts by taking the player's move back, the hint
    finds another way on (Yukon 21 after the 22 moves of ``STRAYED_YUKON_21``: the solver would play
    1>f, which the player has just taken back with f1>1)."""
    ann = await connect(name="Ann")
    game = (await ann.ok("practice", variant="yukon", seed=21))["game"]
    replica = engine.new_game("yukon", 21)
    for text in STRAYED_YUKON_21:
        await ann.ok("move", game=game, text=text)
        replica.play(text)
    before = replica.line()[-1][0]
    reply = await ann.ok("hint", game=game)
    assert reply["hint_source"] == "solver"
    after = replica.rules.apply(replica.position, engine.Move.from_notation(reply["hint"]))
    assert position_key(replica.rules, after) != position_key(replica.rules, before)
