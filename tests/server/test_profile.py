"""set_profile: a player's name and locale after hello, for guests and for services."""

from __future__ import annotations

from typing import Any

from arena_client import SERVICE_TOKEN

from server.transport.app import ArenaServer


async def test_a_guest_renames_and_switches_language(connect: Any) -> None:
    ann = await connect(name="Ann")
    token = ann.welcome["token"]
    player = ann.welcome["player"]["id"]
    reply = await ann.error("get_view", "not_found", game=999_999)
    assert reply["message"] == "No game with id 999999."

    profile = await ann.ok("set_profile", name="  Annika  ", locale="de")
    assert profile == {
        "type": "profile",
        "id": profile["id"],
        "player": {"id": player, "name": "Annika"},
        "locale": "de",
    }
    reply = await ann.error("get_view", "not_found", game=999_999)
    assert reply["message"] == "Kein(e) game mit der Kennung 999999."  # now in German

    # A field left out stays as it is; the name is the player's, on every connection.
    assert (await ann.ok("set_profile", locale="en"))["player"]["name"] == "Annika"
    again = await connect(token=token)
    assert again.welcome["player"]["name"] == "Annika"
    stats = await again.ok("player_stats")
    assert stats["name"] == "Annika"


async def test_bad_profiles_are_refused_and_change_nothing(connect: Any) -> None:
    ann = await connect(name="Ann")
    bad: list[dict[str, Any]] = [
        {"name": "x" * 33},
        {"name": ""},
        {"name": " \t\u200b "},  # nothing printable is left
        {"name": "An\u0000n"},
        {"name": 7},
        {"locale": "fr"},
        {"name": "Bob", "locale": "fr"},  # one bad field refuses the whole message
        {"name": "Bob", "colour": "red"},
    ]
    for fields in bad:
        reply = await ann.error("set_profile", "invalid_message", **fields)
        assert reply["message"].startswith("Invalid message"), (fields, reply)
    again = await connect(token=ann.welcome["token"])
    assert again.welcome["player"]["name"] == "Ann"
    stats = await ann.ok("player_stats")
    assert stats["name"] == "Ann"
    # Before hello there is nobody to rename.
    stranger = await connect()
    await stranger.error("set_profile", "not_authenticated", name="Eve")


async def test_nobody_renames_another_player(connect: Any) -> None:
    ann = await connect(name="Ann")
    eve = await connect(name="Eve")
    await eve.error(
        "set_profile", "forbidden", name="Ann2", act_as={"user": ann.welcome["player"]["user"]}
    )
    await eve.error("set_profile", "forbidden", name="Bob", act_as={"user": "discord:42"})

    bot = await connect(service_token=SERVICE_TOKEN)
    # For itself (no act_as), or for a guest: refused.
    await bot.error("set_profile", "forbidden", name="Bot")
    reply = await bot.error(
        "set_profile", "forbidden", name="Ann2", act_as={"user": ann.welcome["player"]["user"]}
    )
    assert "discord:" in reply["message"]
    assert (await ann.ok("player_stats"))["name"] == "Ann"

    # The Discord user it names: renamed, and its errors follow the new locale.
    dora = {"user": "discord:42", "name": "Dora"}
    created = await bot.ok("practice", variant="klondike", act_as=dora)
    profile = await bot.ok(
        "set_profile", name="Dorothea", locale="de", act_as={"user": "discord:42"}
    )
    assert profile["player"]["name"] == "Dorothea" and profile["locale"] == "de"
    stats = await bot.ok("player_stats", act_as={"user": "discord:42"})
    assert stats["name"] == "Dorothea"
    dora_again = {"user": "discord:42"}
    reply = await bot.error(
        "move", "illegal_move", game=created["game"], text="1 1", act_as=dora_again
    )
    assert reply["message"] != reply["details"]["reason"]  # German message, English reason


async def test_a_race_keeps_the_names_its_racers_joined_with(
    connect: Any, server: ArenaServer
) -> None:
    ann = await connect(name="Ann")
    bob = await connect(name="Bob")
    race = (await ann.ok("create_race", variant="klondike", seed=5, start="manual", countdown_s=0))[
        "race"
    ]
    await bob.ok("join_race", race=race["race"])
    await ann.ok("set_profile", name="Bob")  # taking a rival's name mid-race changes nothing

    def names(state: dict[str, Any]) -> list[str]:
        return sorted(line["name"] for line in state["players"])

    assert names((await bob.ok("get_race", race=race["race"]))["race"]) == ["Ann", "Bob"]
    await ann.ok("start_race", race=race["race"])
    game = (await ann.ok("get_race", race=race["race"]))["race"]["your_game"]
    await ann.ok("move", game=game, text="d")
    ann_id = ann.welcome["player"]["id"]
    progress = await bob.event(
        "progress", race["race"], lambda e: e["event"]["standings"][0]["player"] == ann_id
    )
    assert progress["event"]["standings"][0]["name"] == "Ann"
    # As the race is stored, so any process that rebuilds it reads the same names.
    assert server.services is not None
    stored = await server.services.storage.race(race["race"])
    assert stored is not None
    assert sorted(entry.name for entry in stored.entries) == ["Ann", "Bob"]

    # The next race is joined under the new name.
    second = (await ann.ok("create_race", variant="klondike", start="manual"))["race"]
    assert [line["name"] for line in second["players"]] == ["Bob"]
