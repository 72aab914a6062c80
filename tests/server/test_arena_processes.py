"""An arena played through two server processes pairs each player once at a time.

Both processes run pairing rounds over the same arena; the lock on the arena's row makes
each round the only one at that moment, so a player waiting is seated in one race, never
two, and each process pushes the arena's events to its own clients.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from arena_client import Client
from arena_events import arena_event, pushed
from server_process import free_port, open_client, server_process, wait_healthy

ROUNDS = 3


async def play_round(players: list[Client], number: int) -> None:
    """Each player takes their race of this round, plays a card and gives up."""

    async def one(client: Client) -> None:
        while len(pushed(client, "race")) <= number:
            await client.receive(20)
        event = pushed(client, "race")[number]
        race = (await client.ok("get_race", race=event["race"]))["race"]
        assert race["state"] == "running", race
        assert sorted(s["name"] for s in race["players"]) == sorted(
            p["name"] for p in event["players"]
        )
        await client.ok("move", game=race["your_game"], text="d")
        await client.ok("resign", game=race["your_game"])

    await asyncio.gather(*(one(client) for client in players))


async def test_two_processes_pair_each_player_once_at_a_time(
    migrated_database_url: str, tmp_path: Path
) -> None:
    port = free_port()
    settings = {"arena_round_ms": "50", "arena_poll_ms": "50", "arena_countdown_s": "0"}
    with server_process(
        migrated_database_url, port, tmp_path / "server.log", "--processes", "2", **settings
    ):
        await wait_healthy(port)
        players = [await open_client(port, f"/?process={n % 2}", name=f"P{n}") for n in range(6)]
        created = await players[0].ok(
            "create_arena", variant="klondike", minutes=10, race_size=3, starts_in_s=3
        )
        arena = created["arena"]["arena"]
        for client in players[1:]:
            await client.ok("join_arena", arena=arena)
        for number in range(ROUNDS):
            await play_round(players, number)
        await asyncio.sleep(1)  # a round or two more: a player paired twice would show
        pairings: dict[int, list[str]] = {}
        for client in players:
            name = client.welcome["player"]["name"]
            events = pushed(client, "race")
            # One race at a time: a race of the next round at most, after the last given up.
            assert ROUNDS <= len(events) <= ROUNDS + 1
            assert len({event["race"] for event in events}) == len(events)
            for event in events:
                names = sorted(player["name"] for player in event["players"])
                assert name in names and 2 <= len(names) <= 3
                assert pairings.setdefault(event["pairing"], names) == names
        # Both processes push the standings to their own clients.
        for client in players[:2]:
            await arena_event(
                client, "standings", lambda m: sum(x["races"] for x in m["event"]["top"]) >= 6
            )
