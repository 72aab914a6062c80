"""A race played on three hosts behind the real HAProxy (deploy/haproxy.cfg).

The proxy sends a race's address to the host that owns the race and everything else
by load, so a race's players may sit on every host; the race stays one race: one
owner numbers its events, and every host's watchers see every player's moves.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from arena_client import Client
from proxy_hosts import hosts_behind_proxy


async def draw(client: Client, game: int, count: int) -> None:
    for _ in range(count):
        await client.ok("move", game=game, text="d")


@pytest.mark.timeout(90)
async def test_a_race_over_three_hosts_behind_haproxy(
    migrated_database_url: str, tmp_path: Path, nats_url: str
) -> None:
    async with hosts_behind_proxy(migrated_database_url, tmp_path, nats_url=nats_url) as cluster:
        ann, home = await cluster.connect("/", name="Ann")
        created = await ann.ok("create_race", variant="klondike", seed=8, countdown_s=0)
        race = created["race"]["race"]
        # The host that created the race gave it an id that names it ...
        assert home == f"host{race % 3}"
        # ... so the proxy sends the race's address there.
        bob, bob_host = await cluster.connect(f"/races/{race}", name="Bob")
        cy, cy_host = await cluster.connect(f"/races/{race}", name="Cy")
        assert bob_host == cy_host == home
        # Other connections go by load: to the hosts with fewer.
        dee, dee_host = await cluster.connect("/", name="Dee")
        eve, eve_host = await cluster.connect("/", name="Eve")
        assert {dee_host, eve_host} == {f"host{i}" for i in range(3)} - {home}

        games = {"Ann": created["race"]["your_game"]}
        for client, name in ((bob, "Bob"), (cy, "Cy"), (dee, "Dee")):
            games[name] = (await client.ok("join_race", race=race))["race"]["your_game"]
        await eve.ok("get_race", race=race)  # a watcher on the third host
        await ann.ok("start_race", race=race)
        moves = {"Ann": 3, "Bob": 5, "Cy": 1, "Dee": 7}
        players = {"Ann": ann, "Bob": bob, "Cy": cy, "Dee": dee}
        await asyncio.gather(*(draw(players[n], games[n], moves[n]) for n in moves))
        # The watcher on the host nobody plays on sees the player on another one.
        await eve.event(
            "progress",
            race,
            lambda e: {s["name"]: s["moves"] for s in e["event"]["standings"]}.get("Dee") == 7,
        )
        for name in ("Dee", "Cy", "Bob", "Ann"):
            await players[name].ok("resign", game=games[name])
        end = await eve.event("end", race)
        ranking = [(line["name"], line["moves"]) for line in end["event"]["ranking"]]
        assert ranking == [("Cy", 1), ("Ann", 3), ("Bob", 5), ("Dee", 7)]  # fewest moves first
        numbers = [e["seq"] for e in eve.events]
        assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
        for client in (ann, bob, cy, dee, eve):
            await client.close()
