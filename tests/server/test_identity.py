"""Who may act for whom: guest tokens, service clients, and other players' games."""

from __future__ import annotations

import json
from typing import Any

from arena_client import SERVICE_TOKEN


async def test_guest_gets_a_token_and_comes_back_as_the_same_player(connect: Any) -> None:
    first = await connect(name="Ann")
    player = first.welcome["player"]
    assert player["user"].startswith("guest:")
    game = (await first.ok("practice", variant="klondike", seed=9))["game"]
    await first.ok("move", game=game, text="d")
    await first.close()

    again = await connect(token=first.welcome["token"])
    assert again.welcome["player"] == player
    view = await again.ok("get_view", game=game)
    assert view["view"]["counters"]["moves"] == 1


async def test_forged_or_foreign_tokens_are_refused(connect: Any) -> None:
    ann = await connect(name="Ann")
    token = ann.welcome["token"]
    player_id, signature = token.split(".")
    stranger = await connect()
    forged = f"{int(player_id) + 1}.{signature}"
    reply = await stranger.error("hello", "bad_token", token=forged)
    assert reply["message"] == "The player token is not valid."
    await stranger.error("get_view", "not_authenticated", game=1)
    await stranger.error("hello", "bad_token", token="garbage")
    await stranger.ok("hello", token=token)
    await stranger.error("hello", "already_authenticated", token=token)


async def test_a_player_cannot_touch_another_players_game(connect: Any) -> None:
    ann = await connect(name="Ann")
    bob = await connect(name="Bob", locale="de")
    game = (await ann.ok("practice", variant="klondike", seed=3))["game"]
    for kind, fields in [
        ("move", {"text": "d"}),
        ("undo", {}),
        ("hint", {}),
        ("resign", {}),
        ("auto_finish", {}),
        ("get_view", {}),
    ]:
        reply = await bob.error(kind, "forbidden", game=game, **fields)
        assert "gehört jemand anderem" in reply["message"]
    view = await ann.ok("get_view", game=game)
    assert view["view"]["counters"]["moves"] == 0
    assert view["view"]["status"] == "playing"


async def test_a_guest_cannot_act_as_a_discord_user(connect: Any) -> None:
    guest = await connect(name="Eve")
    act_as = {"user": "discord:1234", "name": "Victim"}
    reply = await guest.error("practice", "forbidden", variant="klondike", act_as=act_as)
    assert "service client" in reply["message"]
    sneaky = await connect()
    await sneaky.error("hello", "forbidden", act_as=act_as)
    await sneaky.error("hello", "bad_service_token", service_token="not-the-token")


async def test_service_client_acts_for_discord_users_in_their_locale(connect: Any) -> None:
    bot = await connect(service_token=SERVICE_TOKEN)
    assert bot.welcome["service"] is True
    alice = {"user": "discord:111", "name": "Alice"}
    bert = {"user": "discord:222", "name": "Bert", "locale": "de"}
    created = await bot.ok(
        "create_race",
        variant="spider-1",
        countdown_s=0,
        guild_id="987",
        context={"channel_id": "555"},
        act_as=alice,
    )
    race = created["race"]
    assert race["settings"]["guild_id"] == "987"
    assert race["settings"]["context"] == {"channel_id": "555"}
    joined = await bot.ok("join_race", race=race["race"], act_as=bert)
    assert [p["name"] for p in joined["race"]["players"]] == ["Alice", "Bert"]
    lobby = await bot.event("lobby", race["race"], lambda e: len(e["event"]["players"]) == 2)
    # Events go to every watcher: they name players, never their Discord ids.
    assert lobby["event"]["players"] == [{"id": 1, "name": "Alice"}, {"id": 2, "name": "Bert"}]

    reply = await bot.error("start_race", "not_creator", race=race["race"], act_as=bert)
    assert reply["message"] == "Nur wer das Rennen erstellt hat, kann es starten."
    await bot.ok("start_race", race=race["race"], act_as={"user": "discord:111"})
    # Alice's game is hers alone, even through the same service connection.
    await bot.error("move", "forbidden", game=race["your_game"], text="d", act_as=bert)
    await bot.ok("move", game=race["your_game"], text="d", act_as=alice)
    await bot.error("move", "forbidden", game=race["your_game"], text="d")
    await bot.error(
        "move", "forbidden", game=race["your_game"], text="d", act_as={"user": "guest:abc"}
    )


async def test_where_a_race_was_opened_is_shown_only_to_its_players(connect: Any) -> None:
    """Race ids can be enumerated: a stranger reads a race without its guild or context."""
    bot = await connect(service_token=SERVICE_TOKEN)
    alice = {"user": "discord:111", "name": "Alice"}
    created = await bot.ok(
        "create_race", variant="klondike", guild_id="987", context={"channel_id": "5"}, act_as=alice
    )
    race = created["race"]["race"]
    stranger = await connect(name="Eve")
    seen = (await stranger.ok("get_race", race=race))["race"]
    assert seen["settings"]["guild_id"] is None and seen["settings"]["context"] is None
    assert "discord:" not in json.dumps(seen)
    other_user = {"user": "discord:333", "name": "Carl"}
    through_bot = (await bot.ok("get_race", race=race, act_as=other_user))["race"]
    assert through_bot["settings"]["guild_id"] is None
    mine = (await bot.ok("get_race", race=race, act_as=alice))["race"]
    assert mine["settings"]["guild_id"] == "987" and mine["settings"]["context"] == {
        "channel_id": "5"
    }
