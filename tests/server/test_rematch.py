"""Rematch after a race's end: one new race with the same settings for its players."""

from __future__ import annotations

from typing import Any


async def test_a_rematch_is_one_new_race_with_the_same_settings(connect: Any) -> None:
    ann = await connect(name="Ann")
    bob = await connect(name="Bob")
    cy = await connect(name="Cy")
    created = await ann.ok(
        "create_race",
        variant="spider-2",
        options={"layout": "digital"},
        max_players=3,
        countdown_s=0,
        time_limit_s=600,
        allow_hints=True,
        require_winnable=False,
    )
    race = created["race"]["race"]
    await bob.ok("join_race", race=race)
    await bob.error("rematch", "wrong_state", race=race)  # not over yet
    await ann.ok("start_race", race=race)
    await ann.ok("resign", game=created["race"]["your_game"])
    joined = await bob.ok("get_race", race=race)
    await bob.ok("resign", game=joined["race"]["your_game"])
    await ann.event("end", race=race)
    await cy.error("rematch", "not_in_race", race=race)

    first = await bob.ok("rematch", race=race)
    again = first["race"]
    assert (
        again["race"] != race
        and again["state"] == "lobby"
        and again["creator"] != created["race"]["creator"]
    )
    old_settings = dict(created["race"]["settings"])
    new_settings = dict(again["settings"])
    for settings in (old_settings, new_settings):
        settings.pop("ranked", None)
    assert new_settings == old_settings
    told = await ann.event("rematch", race=race)
    assert told["event"]["rematch"] == again["race"]
    assert told["event"]["by"]["name"] == "Bob"

    # Ann asking too joins the same race, not another one.
    second = await ann.ok("rematch", race=race)
    assert second["race"]["race"] == again["race"]
    names = sorted(p["name"] for p in second["race"]["players"])
    assert names == ["Ann", "Bob"]
    await ann.error("rematch", "already_joined", race=race)
