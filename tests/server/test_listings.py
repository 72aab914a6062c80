"""Finding games and races again (my_games, open_races) and the all-time board, through a
real server and real sockets; the daily play-time bound with a clock set by hand."""

from __future__ import annotations

from typing import Any

import asyncpg
from arena_client import SERVICE_TOKEN
from test_daily import LIMIT_MS, Clock, clock, deal, guest, services  # noqa: F401 (fixtures)
from test_leaderboard_protocol import store_todays_deal

from server import protocol as p
from server.services.wiring import Services

BOT_USER = {"user": "discord:80351110224678912", "name": "Ann", "locale": "en"}
OTHER_USER = {"user": "discord:80351110224678913", "name": "Bob", "locale": "de"}


async def test_my_games_lists_games_still_being_played(
    connect: Any, migrated_database_url: str
) -> None:
    today = await store_todays_deal(migrated_database_url)
    ann = await connect(name="Ann")
    bob = await connect(name="Bob")
    assert (await ann.ok("my_games"))["games"] == []

    practice = await ann.ok("practice", variant="yukon")
    race = (await ann.ok("create_race", variant="klondike", countdown_s=0))["race"]
    daily = await ann.ok("daily_start", variant="klondike")
    await bob.ok("practice", variant="klondike")  # someone else's: never listed

    games = (await ann.ok("my_games"))["games"]
    assert [(g["game"], g["variant"], g.get("race"), g.get("date")) for g in games] == [
        (daily["game"], "klondike", None, today),
        (race["your_game"], "klondike", race["race"], None),
        (practice["game"], "yukon", None, None),
    ]
    assert games[0]["deadline"] == daily["deadline"]
    assert games[1]["deadline"] is None and games[2]["started_at"] <= games[0]["started_at"]
    assert [g["game"] for g in (await ann.ok("my_games", limit=1))["games"]] == [daily["game"]]

    await ann.ok("resign", game=practice["game"])
    await ann.ok("resign", game=daily["game"])
    await ann.ok("start_race", race=race["race"])
    await ann.ok("resign", game=race["your_game"])  # the only racer: the race ends
    await ann.event("end", race["race"])
    assert (await ann.ok("my_games"))["games"] == []
    await ann.error("my_games", "invalid_message", limit=0)


async def test_a_service_asks_for_the_user_it_acts_for(connect: Any) -> None:
    bot = await connect(service_token=SERVICE_TOKEN)
    game = (await bot.ok("practice", variant="klondike", act_as=BOT_USER))["game"]
    mine = await bot.ok("my_games", act_as=BOT_USER)
    assert [g["game"] for g in mine["games"]] == [game]
    assert (await bot.ok("my_games", act_as=OTHER_USER))["games"] == []
    await bot.error("my_games", "forbidden")  # a service must say for whom


async def test_a_daily_game_whose_play_time_ran_out_is_not_listed(
    services: Services,  # noqa: F811
    clock: Clock,  # noqa: F811
) -> None:
    await deal(services)
    ada = await guest(services)
    start = await services.dailies.start(ada, p.DailyStart(variant="klondike"))
    listed = await services.listings.my_games(ada, p.MyGames())
    assert [g.game for g in listed.games] == [start.game] and listed.games[0].date == "2026-03-14"
    clock.ms += LIMIT_MS + 1
    assert (await services.listings.my_games(ada, p.MyGames())).games == []


async def test_open_races_by_guild_and_context(connect: Any) -> None:
    bot = await connect(service_token=SERVICE_TOKEN)
    here = {"channel_id": "5151", "message_id": "77"}
    first = await bot.ok(
        "create_race", variant="yukon", guild_id="g1", context=here, act_as=BOT_USER
    )
    second = await bot.ok(
        "create_race",
        variant="klondike",
        guild_id="g1",
        context={"channel_id": "6262"},
        start="countdown",
        countdown_s=600,
        act_as=OTHER_USER,
    )
    elsewhere = await bot.ok("create_race", variant="yukon", guild_id="g2", act_as=BOT_USER)
    done = await bot.ok(
        "create_race", variant="yukon", guild_id="g1", start="now", max_players=1, act_as=BOT_USER
    )
    await bot.ok("resign", game=done["race"]["your_game"], act_as=BOT_USER)
    await bot.event("end", done["race"]["race"])

    everything = await bot.ok("open_races")
    assert [r["race"] for r in everything["races"]] == [
        first["race"]["race"],
        second["race"]["race"],
        elsewhere["race"]["race"],
    ]
    g1 = (await bot.ok("open_races", guild_id="g1"))["races"]
    assert [(r["race"], r["state"], r["players"]) for r in g1] == [
        (first["race"]["race"], "lobby", 1),
        (second["race"]["race"], "countdown", 1),
    ]
    assert g1[0]["context"] == here and g1[0]["variant"] == "yukon"
    assert g1[0]["creator"]["user"] == BOT_USER["user"] and g1[0]["creator"]["name"] == "Ann"
    assert g1[1]["starts_at"] == second["race"]["starts_at"]
    in_channel = await bot.ok("open_races", guild_id="g1", context={"channel_id": "5151"})
    assert [r["race"] for r in in_channel["races"]] == [first["race"]["race"]]
    assert (await bot.ok("open_races", guild_id="g3"))["races"] == []


async def test_only_a_service_lists_open_races_and_for_itself(connect: Any) -> None:
    guest_client = await connect(name="Eve")
    await guest_client.error("open_races", "forbidden")
    bot = await connect(service_token=SERVICE_TOKEN)
    await bot.error("open_races", "forbidden", act_as=BOT_USER)
    fresh = await connect()
    await fresh.error("open_races", "not_authenticated")


async def test_the_all_time_board_over_the_wire(connect: Any, migrated_database_url: str) -> None:
    await store_todays_deal(migrated_database_url)
    ann = await connect(name="Ann")
    bob = await connect(name="Bob")
    cy = await connect(name="Cy")
    ann_daily = await ann.ok("daily_start", variant="klondike", guild_id="g1")
    bob_daily = await bob.ok("daily_start", variant="klondike")
    await ann.ok("resign", game=ann_daily["game"])
    await bob.ok("resign", game=bob_daily["game"])
    # Their ratings, as rated games would have left them (Cy is still provisional).
    connection = await asyncpg.connect(migrated_database_url)
    try:
        for client, mu, sigma in ((ann, 28.0, 2.0), (bob, 31.0, 2.0), (cy, 40.0, 7.5)):
            await connection.execute(
                "insert into ratings (variant, options, player_id, mu, sigma, games, rated_at) "
                "values ('klondike', '{\"passes\":0}', $1, $2, $3, 12, now())",
                client.welcome["player"]["id"],
                mu,
                sigma,
            )
    finally:
        await connection.close()

    board = await ann.ok("leaderboard", variant="klondike")
    assert board["type"] == "all_time_board" and board["scope"] == "global"
    assert [(line["rank"], line["name"], line["rated_games"]) for line in board["lines"]] == [
        (1, "Bob", 12),
        (2, "Ann", 12),
    ]
    assert board["provisional"] == 1 and board["lines"][0]["rating"] == 1677
    guild = await bob.ok("leaderboard", variant="klondike", guild_id="g1", around_me=True)
    assert guild["scope"] == "guild" and guild["total"] == 1 and "me" not in guild
    around = await bob.ok("leaderboard", variant="klondike", around_me=True, span=0)
    assert around["me"]["name"] == "Bob" and [line["name"] for line in around["lines"]] == ["Bob"]
    await ann.error("leaderboard", "invalid_options", variant="chess")
    await ann.error("leaderboard", "invalid_message", variant="klondike", page_size=101)
