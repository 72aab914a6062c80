"""Rated races played for real through a running server, for the ratings tests.

A service client (as the Discord bot is) acts for signed-in players (``discord:<id>``);
the seed of a server-dealt race is read back from the database so that a player can
win it with the solver's moves, in the order the test wants.
"""

from __future__ import annotations

from typing import Any

from arena_client import Client

import engine
from engine.solver import solve
from server.core import ratings
from server.store.ratings import Pool
from server.transport.app import ArenaServer


def user(n: int, name: str | None = None) -> dict[str, str]:
    """The ``act_as`` of signed-in player ``n``."""
    return {"user": f"discord:{1000 + n}", "name": name or f"Player {n}"}


def solution(variant: str, seed: int) -> list[str]:
    """The solver's winning line from the deal of ``seed`` (the test picks the seed's
    variant so that the solver wins it)."""
    game = engine.new_game(variant, seed=seed)
    line = solve(game.rules, game.position, max_seconds=30).moves
    assert line, f"the solver wins {variant} seed {seed}"
    return [str(move.notation()) for move in line]


async def play_rated_race(
    server: ArenaServer,
    bot: Client,
    players: list[dict[str, str]],
    winners: list[int],
    variant: str = "klondike",
    mark_rated: bool = True,
    guests: tuple[Client, ...] = (),
) -> int:
    """A rated race of ``players`` (``act_as`` values; the first creates it) and
    ``guests`` (their own connections): the players at the indexes ``winners`` win it in
    that order, the others and the guests resign after them. Returns the race id once
    it has ended."""
    assert server.services is not None
    created = await bot.ok(
        "create_race",
        variant=variant,
        countdown_s=0,
        max_players=len(players) + len(guests),
        require_winnable=True,
        act_as=players[0],
        wait=40.0,
    )
    race = created["race"]["race"]
    if mark_rated:
        pool = Pool(variant, ratings.pool_options(variant, {}))
        await server.services.ratings.store.mark_rated(race, pool)
    games = {0: created["race"]["your_game"]}
    for index, player in enumerate(players[1:], start=1):
        joined = await bot.ok("join_race", race=race, act_as=player)
        games[index] = joined["race"]["your_game"]
    for guest in guests:
        await guest.ok("join_race", race=race)
    await bot.ok("start_race", race=race, act_as=players[0])
    seed = int(
        await server.services.storage.pool.fetchval("select seed from races where id=$1", race)
    )
    line = solution(variant, seed)
    for index in winners:
        for move in line:
            await bot.ok("move", game=games[index], text=move, act_as=players[index])
    for index in range(len(players)):
        if index not in winners:
            await bot.ok("leave_race", race=race, act_as=players[index])
    for guest in guests:
        await guest.ok("leave_race", race=race)
    await bot.event("end", race)
    return int(race)


async def rating_changes(bot: Client, race: int) -> dict[str, Any]:
    """The ``rating_changes`` message the race's watchers get once it is rated."""
    while True:
        for message in bot.received:
            if message["type"] == "rating_changes" and message["race"] == race:
                return message
        await bot.receive()
