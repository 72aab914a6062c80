"""A connection that says nothing is closed, with a code that says why."""

from __future__ import annotations

from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from server.ops.config import ServerConfig


@pytest.fixture
def server_config() -> ServerConfig:
    return ServerConfig(port=0, idle_timeout=1.0, daily_prepare_ahead=False)


async def test_idle_connection_is_closed_with_4000(connect: Any) -> None:
    quiet = await connect(name="Quiet")
    with pytest.raises(ConnectionClosed):
        await quiet.receive(timeout=10)
    assert quiet.websocket.close_code == 4000
    assert quiet.websocket.close_reason == "idle timeout"
    silent = await connect()  # not even a hello
    with pytest.raises(ConnectionClosed):
        await silent.receive(timeout=10)
    assert silent.websocket.close_code == 4000
