"""The bot's races spread over three hosts behind the real HAProxy (bot/spread.py).

With one connection, every race the bot opens lives on the one host that connection
landed on. With one connection per host, the bot creates its races on each in turn,
so each host owns a share, and everything about a race goes over its own connection.
Each connection asks the proxy for its host: sent by load, two of the three could land
on one host when other clients connected at the same moment.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from arena_client import SERVICE_TOKEN
from proxy_hosts import hosts_behind_proxy

from bot.client import Actor
from bot.spread import SpreadClient
from server import protocol as p


@pytest.mark.timeout(90)
async def test_the_bots_races_live_on_every_host(
    migrated_database_url: str, tmp_path: Path, nats_url: str
) -> None:
    events: list[p.Event] = []
    async with hosts_behind_proxy(
        migrated_database_url, tmp_path, nats_url=nats_url, service_tokens=SERVICE_TOKEN
    ) as cluster:
        client = SpreadClient(
            f"ws://127.0.0.1:{cluster.proxy_port}/", SERVICE_TOKEN, 3, on_event=events.append
        )
        # Two players are on host 0 already (a race's address there): by load, the
        # bot's connections would go to hosts 1 and 2, then one of them again.
        others = [await cluster.connect("/races/3", name=f"P{i}") for i in range(2)]
        assert {host for _, host in others} == {"host0"}
        await client.start(timeout=20)
        try:
            races = []
            for number in range(6):
                creator, rival = (
                    Actor(100 + number, f"C{number}"),
                    Actor(200 + number, f"R{number}"),
                )
                created = await client.request(
                    "create_race", creator, variant="klondike", seed=8, countdown_s=0
                )
                race = created["race"]["race"]
                joined = await client.request("join_race", rival, race=race)
                await client.request("start_race", creator, race=race)
                races.append((race, rival, joined["race"]["your_game"]))
            # Created on each connection in turn, so on each host in turn: every host
            # owns two of the six races.
            hosts = sorted(race % 3 for race, _, _ in races)
            assert hosts == [0, 0, 1, 1, 2, 2]
            for race, rival, game in races:
                await client.request("move", rival, game=game, text="d")
                # The race's requests and games ride on the connection that created it.
                assert client.link_for_race(race) == client.link_for_game(game)
            for race, _, _ in races:
                seen = [
                    e
                    for e in events
                    if e.race == race and isinstance(e.event, p.StartEvent | p.ProgressEvent)
                ]
                assert seen, race
        finally:
            await client.close()
            for other, _ in others:
                await other.close()
