"""Players who join a race through a process that does not own it hear its events.

A join through a mirror (a process other than the race's owner) stores the entry and
reports it to the owner, then watches the race there. Two joins at once through the same
mirror each reread the race, and the race clock dropped the mirror's copy of the race
while a join was still running (nobody watched it yet): the player then watched a copy
that no event reached, for the whole race, while their own moves worked.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from arena_client import Client
from server_process import free_port, open_client, server_process, wait_healthy

RACES = 60
AT_ONCE = 10  # races played side by side
EVENT_WAIT = 10.0  # seconds a joiner waits for the start before it counts as deaf


async def heard_the_start(client: Client, race: int) -> bool:
    try:
        await asyncio.wait_for(client.event("start", race), EVENT_WAIT)
    except TimeoutError:
        return False
    return True


async def one_race(port: int, creator: Client) -> list[str]:
    """A race created on process 0, joined by two players at once through process 1;
    the joiners that heard no event of it."""
    created = await creator.ok("create_race", variant="klondike", seed=8, countdown_s=0)
    race = created["race"]["race"]
    joiners = await asyncio.gather(
        open_client(port, "/?process=1", name="Bob"), open_client(port, "/?process=1", name="Cy")
    )
    try:
        joined = await asyncio.gather(*(j.ok("join_race", race=race) for j in joiners))
        await creator.ok("start_race", race=race)
        heard = await asyncio.gather(*(heard_the_start(j, race) for j in joiners))
        # Their own moves work either way; what must not happen is silence.
        for joiner, reply in zip(joiners, joined, strict=True):
            await joiner.ok("move", game=reply["race"]["your_game"], text="d")
        return [f"race {race} player {i}" for i, ok in enumerate(heard) if not ok]
    finally:
        for joiner in joiners:
            await joiner.close()


@pytest.mark.timeout(240)
async def test_joins_at_once_through_a_mirror_all_hear_the_race(
    migrated_database_url: str, tmp_path: Path
) -> None:
    port = free_port()
    with server_process(
        migrated_database_url, port, tmp_path / "server.log", "--processes", "2", **{}
    ):
        await wait_healthy(port)
        creators = [await open_client(port, "/?process=0", name="Ann") for _ in range(AT_ONCE)]
        deaf: list[str] = []
        for _ in range(RACES // AT_ONCE):
            batches = await asyncio.gather(*(one_race(port, c) for c in creators))
            deaf += [player for batch in batches for player in batch]
        assert deaf == [], f"{len(deaf)} of {2 * RACES} joiners heard nothing: {deaf}"
        for creator in creators:
            await creator.close()
