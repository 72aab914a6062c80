"""Bad input and abuse: each gets a clear error or close code, and others keep playing."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from server.ops.config import ServerConfig
from server.transport.app import ArenaServer


@pytest.fixture
def server_config() -> ServerConfig:
    return ServerConfig(
        port=0,
        max_message_bytes=2048,
        rate_per_second=5,
        rate_burst=10,
        flood_close_after=20,
        daily_prepare_ahead=False,
    )


async def test_malformed_messages_get_errors_and_change_nothing(connect: Any) -> None:
    client = await connect(name="Ann")
    game = (await client.ok("practice", variant="klondike", seed=4))["game"]
    await client.send_raw("{not json")
    assert (await client.receive())["code"] == "bad_json"
    await client.send_raw("[1, 2]")
    assert (await client.receive())["code"] == "invalid_message"
    await client.send_raw(json.dumps({"type": "teleport", "id": 7}))
    reply = await client.receive()
    assert (reply["code"], reply["id"]) == ("unknown_type", 7)
    assert reply["message"] == "Unknown message type 'teleport'."
    await client.send_raw(json.dumps({"type": "move", "id": 8, "game": "x", "text": 3}))
    reply = await client.receive()
    assert (reply["code"], reply["id"]) == ("invalid_message", 8)
    newcomer = await connect()
    reply = await newcomer.error("hello", "unsupported_version", protocol=99)
    assert reply["message"] == "Protocol version 99 is not supported; this server speaks 1."
    view = await client.ok("get_view", game=game)
    assert view["view"]["counters"]["moves"] == 0


async def test_oversized_frame_closes_with_1009_and_others_play_on(connect: Any) -> None:
    big = await connect(name="Big")
    other = await connect(name="Other")
    await big.send_raw(json.dumps({"type": "move", "game": 1, "text": "x" * 4096}))
    with pytest.raises(ConnectionClosed):
        await big.receive()
    assert big.websocket.close_code == 1009
    await other.ok("practice", variant="yukon")


async def test_flood_gets_rate_limited_then_closed_and_others_play_on(connect: Any) -> None:
    flood = await connect(name="Flood")
    calm = await connect(name="Calm")
    game = (await calm.ok("practice", variant="klondike", seed=1))["game"]
    for index in range(60):
        await flood.send_raw(json.dumps({"type": "get_view", "id": index, "game": 1}))
    codes = []
    with pytest.raises(ConnectionClosed):
        while True:
            codes.append((await flood.receive())["code"])
    assert "rate_limited" in codes
    assert flood.websocket.close_code == 1008
    assert flood.websocket.close_reason == "rate limit exceeded"
    await calm.ok("move", game=game, text="d")


def fetch(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=5) as answer:
        return int(answer.status), answer.read().decode()


async def test_health_and_metrics_share_the_websocket_port(
    connect: Any, server: ArenaServer
) -> None:
    client = await connect(name="Ann")
    game = (await client.ok("practice", variant="klondike", seed=1))["game"]
    await client.ok("move", game=game, text="d")
    await client.error("move", "invalid_move", game=game, text="???")
    base = f"http://127.0.0.1:{server.port}"
    status, body = await asyncio.to_thread(fetch, base + "/healthz")
    assert (status, body) == (200, "ok\n")
    status, metrics = await asyncio.to_thread(fetch, base + "/metrics")
    assert status == 200
    assert "solitaire_connections 1" in metrics
    assert "solitaire_moves_total 1" in metrics
    assert 'solitaire_errors_total{code="invalid_move"} 1' in metrics
    assert 'solitaire_messages_total{type="move"} 2' in metrics
    assert "solitaire_commit_seconds_count" in metrics


async def test_shutdown_commits_pending_moves_and_closes_with_1001(
    database_url: str, server_config: ServerConfig
) -> None:
    from arena_client import Client
    from websockets.asyncio.client import connect as ws_connect

    running = ArenaServer(server_config, database_url)
    await running.start()
    client = Client(await ws_connect(running.url, max_queue=None))
    await client.ok("hello", name="Ann")
    game = (await client.ok("practice", variant="klondike", seed=1))["game"]
    await client.send_raw(json.dumps({"type": "move", "id": "last", "game": game, "text": "d"}))
    await asyncio.sleep(0)
    await running.stop()
    received = []
    with pytest.raises(ConnectionClosed):
        while True:
            received.append(await client.receive())
    assert client.websocket.close_code == 1001
    acknowledged = [m for m in received if m.get("id") == "last" and m["type"] == "view"]
    again = ArenaServer(server_config, database_url)
    await again.start()
    try:
        assert again.services is not None
        stored = await again.services.storage.entry(game)
        assert stored is not None
        if acknowledged:
            assert stored.actions == ["d"]
    finally:
        await again.stop()
