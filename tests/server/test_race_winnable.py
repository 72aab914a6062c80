"""Races dealt winnable: the server draws seeds until the solver proves one.

(server/services/solving.py)
"""

from __future__ import annotations

from typing import Any

import asyncpg

from server.services.solving import Budget, prove_deal


async def revealed_seed(client: Any, race: dict[str, Any]) -> int:
    """Resign so the one-player race ends and its seed is revealed."""
    await client.ok("resign", game=race["your_game"])
    end = (await client.event("end", race["race"]))["event"]
    return int(end["seed"])


async def test_a_race_the_server_deals_is_proven_winnable(
    connect: Any, migrated_database_url: str
) -> None:
    ann = await connect(name="Ann")
    race = (await ann.ok("create_race", variant="yukon", start="now"))["race"]
    settings = race["settings"]
    assert settings["require_winnable"] is True and settings["winnable"] == "proven"
    seed = await revealed_seed(ann, race)
    assert prove_deal("yukon", {}, seed, Budget(200_000, 10.0)).winnable
    connection = await asyncpg.connect(migrated_database_url)
    try:
        row = await connection.fetchrow(
            "select require_winnable, solver_help, winnable from races where id=$1", race["race"]
        )
    finally:
        await connection.close()
    assert dict(row) == {"require_winnable": True, "solver_help": False, "winnable": "proven"}


async def test_a_seed_the_creator_gives_is_unproven(connect: Any) -> None:
    ann = await connect(name="Ann")
    race = (await ann.ok("create_race", variant="klondike", seed=2))["race"]
    assert race["settings"]["winnable"] == "unproven"  # deal 2 is winnable, but nobody asked


async def test_a_race_without_the_requirement_is_unproven(connect: Any) -> None:
    ann = await connect(name="Ann")
    race = (await ann.ok("create_race", variant="yukon", require_winnable=False))["race"]
    assert race["settings"]["require_winnable"] is False
    assert race["settings"]["winnable"] == "unproven"


async def test_the_proof_survives_a_reload_from_the_database(connect: Any, server: Any) -> None:
    ann = await connect(name="Ann")
    race = (await ann.ok("create_race", variant="yukon", solver_help=True))["race"]
    server.services.hosting.rooms.clear()  # the next request rebuilds the race from its stored row
    again = (await ann.ok("get_race", race=race["race"]))["race"]["settings"]
    assert again["winnable"] == race["settings"]["winnable"] == "proven"
    assert again["solver_help"] is True and again["require_winnable"] is True
