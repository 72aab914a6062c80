"""A race's progress: gathered per race per interval, one encoding, the same bytes to all.

docs/protocol.md: at most one ``progress`` event every 250 ms per race, listing every
player whose counts changed since the last; each event is framed once and the same
bytes go to every racer and watcher.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest
from arena_client import Client
from websockets.asyncio.client import connect as ws_connect
from websockets.frames import Frame, Opcode

from server.ops.config import ServerConfig
from server.transport.app import ArenaServer
from server.transport.socket_parts import text_frame

INTERVAL_MS = 250


@pytest.fixture
def server_config() -> ServerConfig:
    return ServerConfig(
        port=0,
        rate_per_second=1000,
        rate_burst=1000,
        progress_interval_ms=INTERVAL_MS,  # the default, which the test server turns off
        daily_prepare_ahead=False,
    )


@pytest.mark.parametrize("length", [0, 1, 125, 126, 127, 65535, 65536, 70000])
def test_a_frame_built_once_is_what_websockets_would_send(length: int) -> None:
    payload = b"x" * length
    assert text_frame(payload) == Frame(Opcode.TEXT, payload).serialize(mask=False)


async def test_progress_is_gathered_and_the_same_bytes_reach_everyone(connect: Any) -> None:
    ann = await connect(name="Ann")
    bob = await connect(name="Bob")
    cara = await connect(name="Cara")  # a watcher, not a racer
    created = await ann.ok("create_race", variant="klondike", seed=8, countdown_s=0)
    race = created["race"]["race"]
    games = {"ann": created["race"]["your_game"]}
    games["bob"] = (await bob.ok("join_race", race=race))["race"]["your_game"]
    await cara.ok("get_race", race=race)
    await ann.ok("start_race", race=race)

    frames: dict[str, list[str | bytes]] = {"ann": [], "bob": [], "cara": []}
    for name, client in (("ann", ann), ("bob", bob), ("cara", cara)):
        original = client.websocket.recv

        async def recv(original: Any = original, name: str = name) -> Any:
            frame = await original()
            if '"kind":"progress"' in frame:
                frames[name].append(frame)
            return frame

        client.websocket.recv = recv

    # Both move as fast as their moves are acknowledged, far faster than the interval.
    moves = 40
    for _ in range(moves):
        await asyncio.gather(
            ann.ok("move", game=games["ann"], text="d"),
            bob.ok("move", game=games["bob"], text="d"),
        )

    for client in (ann, bob, cara):
        # Each progress lists whoever changed since the one before, in their latest state.
        counts: dict[str, int] = {}
        seq = 0
        while counts != {"Ann": moves, "Bob": moves}:
            event = await client.event("progress", race, lambda e, seq=seq: e["seq"] > seq)
            seq = event["seq"]
            counts |= {s["name"]: s["moves"] for s in event["event"]["standings"]}

    progress = [e for e in cara.events if e["event"]["kind"] == "progress"]
    # Gathered: fewer events than the 80 changes, each at least the interval apart.
    assert len(progress) < 2 * moves
    times = [e["time"] for e in progress]
    assert all(later - earlier >= INTERVAL_MS for earlier, later in itertools.pairwise(times))
    # One encoding: every racer and the watcher got the very same frames, in one order.
    assert frames["ann"] and frames["ann"] == frames["bob"] == frames["cara"]


async def test_with_compression_events_still_reach_everyone(
    migrated_database_url: str,
) -> None:
    # permessage-deflate frames differ per connection: websockets frames them there.
    config = ServerConfig(
        port=0, compression=True, progress_interval_ms=0, daily_prepare_ahead=False
    )
    async with ArenaServer(config, migrated_database_url) as server:
        ann = Client(await ws_connect(server.url, max_queue=None))
        bob = Client(await ws_connect(server.url, max_queue=None))
        try:
            for client, name in ((ann, "Ann"), (bob, "Bob")):
                await client.ok("hello", name=name)
                assert client.websocket.protocol.extensions
            created = await ann.ok("create_race", variant="klondike", seed=8, countdown_s=0)
            race = created["race"]["race"]
            await bob.ok("join_race", race=race)
            await ann.ok("start_race", race=race)
            await ann.ok("move", game=created["race"]["your_game"], text="d")
            for client in (ann, bob):
                event = await client.event("progress", race)
                assert event["event"]["standings"][0]["moves"] == 1
        finally:
            await ann.close()
            await bob.close()
