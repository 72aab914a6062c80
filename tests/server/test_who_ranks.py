"""Guests rank nowhere by default: their race results and daily attempts answer
``ranked: false`` with the reason ``guest``, and reach no board; the Discord bot's players
rank; the operator's switch lets guests rank on a private server."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from arena_client import SERVICE_TOKEN, Client
from test_leaderboard_protocol import store_todays_deal
from websockets.asyncio.client import connect as ws_connect

from server.core.identity import unranked_reason
from server.ops.config import ServerConfig
from server.transport.app import ArenaServer

ANN = {"user": "discord:80351110224678912", "name": "Ann"}


@pytest.fixture
def server_config() -> ServerConfig:
    """A server with its defaults for who ranks (guests do not)."""
    return ServerConfig(
        port=0,
        service_tokens=(SERVICE_TOKEN,),
        rate_per_second=1000,
        rate_burst=1000,
        progress_interval_ms=0,
        daily_prepare_ahead=False,
    )


def test_only_an_identity_that_costs_something_ranks() -> None:
    assert unranked_reason("discord:80351110224678912") is None
    assert unranked_reason("guest:9940d2e2878e3574") == "guest"
    assert unranked_reason("guest:9940d2e2878e3574", guests_rank=True) is None
    assert unranked_reason("someone:else", guests_rank=True) == "guest"


async def test_a_guests_race_result_answers_unranked_and_reaches_no_board(
    connect: Any,
) -> None:
    guest = await connect(name="Gus")
    assert guest.welcome["unranked"] == "guest"
    bot = await connect(service_token=SERVICE_TOKEN)
    created = await guest.ok(
        "create_race", variant="klondike", max_players=2, start="now", require_winnable=False
    )
    race = created["race"]
    assert race["settings"]["ranked"] is True and race["unranked"] == "guest"
    joined = await bot.ok("join_race", race=race["race"], act_as=ANN)
    assert joined["race"]["unranked"] is None
    await guest.ok("resign", game=race["your_game"])
    await bot.ok("resign", game=joined["race"]["your_game"], act_as=ANN)
    await guest.event("end", race["race"])

    history = await guest.ok("race_history")
    assert [(line["race"], line["unranked"]) for line in history["races"]] == [
        (race["race"], "guest")
    ]
    theirs = await bot.ok("race_history", act_as=ANN)
    assert theirs["races"][0]["unranked"] is None
    # The all-time board ranks ratings (a race opened by hand rates nobody): the stats
    # are where a race's result counts or not.
    assert (await guest.ok("player_stats"))["variants"] == []
    ann_stats = await bot.ok("player_stats", act_as=ANN)
    assert ann_stats["variants"][0]["games"] == 1


async def test_a_guests_daily_attempt_answers_unranked_and_reaches_no_board(
    connect: Any, migrated_database_url: str
) -> None:
    await store_todays_deal(migrated_database_url)
    guest = await connect(name="Gus")
    bot = await connect(service_token=SERVICE_TOKEN)
    first = await guest.ok("daily_start", variant="klondike")
    assert (first["ranked"], first["unranked"]) == (False, "guest")
    again = await guest.ok("daily_start", variant="klondike")
    assert (again["ranked"], again["unranked"]) == (False, "later_attempt")
    theirs = await bot.ok("daily_start", variant="klondike", act_as=ANN)
    assert theirs["ranked"] is True and "unranked" not in theirs
    await guest.ok("resign", game=first["game"])
    await bot.ok("resign", game=theirs["game"], act_as=ANN)

    attempts = (await guest.ok("daily", variant="klondike"))["attempts"]
    assert [(a["ranked"], a["unranked"], a["status"]) for a in attempts] == [
        (False, "guest", "resigned"),
        (False, "later_attempt", "playing"),
    ]
    board = await guest.ok("daily_board", variant="klondike")
    assert [line["name"] for line in board["lines"]] == ["Ann"]
    around = await guest.ok("daily_around", variant="klondike")
    assert around.get("me") is None and around["lines"] == []
    # Its first attempt was its one: the guest may see the day's replays now, as anyone
    # whose first attempt is over.
    await guest.ok("replay", game=theirs["game"])


async def test_the_operators_switch_lets_guests_rank(
    server_config: ServerConfig, migrated_database_url: str
) -> None:
    config = dataclasses.replace(server_config, guests_rank=True)
    async with ArenaServer(config, migrated_database_url) as server:
        guest = Client(await ws_connect(server.url))
        try:
            welcome = await guest.ok("hello", name="Gus")
            assert "unranked" not in welcome
            created = await guest.ok(
                "create_race",
                variant="klondike",
                max_players=1,
                start="now",
                require_winnable=False,
            )
            assert created["race"]["unranked"] is None
            await guest.ok("resign", game=created["race"]["your_game"])
            history = await guest.ok("race_history")
            assert history["races"][0]["unranked"] is None
            stats = await guest.ok("player_stats")
            assert stats["variants"][0]["games"] == 1
        finally:
            await guest.close()
