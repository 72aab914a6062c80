"""The keepalive ping (server/transport/inbox.py): only a client that has sent nothing for
a whole ``ping_interval`` is pinged; one that answers stays, one that does not is closed
with 1011. Pings are counted with a hand-driven client, which answers only when told."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from hand_client import HandClient, request
from websockets.frames import Opcode

from server.ops.config import ServerConfig
from server.transport.app import ArenaServer

INTERVAL = 1.0  # seconds: the test server's ping_interval and ping_timeout


@pytest.fixture
def server_config() -> ServerConfig:
    return ServerConfig(
        port=0, ping_interval=INTERVAL, ping_timeout=INTERVAL, daily_prepare_ahead=False
    )


@pytest.fixture
async def client(server: ArenaServer) -> AsyncIterator[HandClient]:
    """A hand-driven client that has said hello."""
    opened = await HandClient.open(server.url)
    opened.protocol.send_text(request(1, "hello", protocol=1))
    await opened.send(opened.outgoing())
    assert (await opened.replies(1))[0]["type"] == "welcome"
    yield opened
    opened.writer.close()
    await opened.writer.wait_closed()


async def read_for(client: HandClient, seconds: float, answer: bool) -> None:
    """Read what the server sends for ``seconds``; with ``answer``, send the pongs owed."""
    loop = asyncio.get_running_loop()
    until = loop.time() + seconds
    while (left := until - loop.time()) > 0:
        try:
            async with asyncio.timeout(left):
                await client.read()
        except TimeoutError:
            break
        if answer:
            await client.send(client.outgoing())


def pings(client: HandClient) -> int:
    return sum(frame.opcode is Opcode.PING for frame in client.frames)


async def test_a_client_that_keeps_sending_is_never_pinged(client: HandClient) -> None:
    for request_id in range(2, 50):  # a request every 0.05 s for 2.4 s: over two intervals
        client.protocol.send_text(request(request_id))
        await client.send(client.outgoing())
        await read_for(client, 0.05, answer=False)
    assert len(await client.replies(49)) == 49  # every request answered
    assert pings(client) == 0


async def test_a_silent_client_that_answers_is_pinged_and_stays(client: HandClient) -> None:
    await read_for(client, 5 * INTERVAL, answer=True)
    assert pings(client) >= 2  # one an interval after each pong
    client.protocol.send_text(request(2))
    await client.send(client.outgoing())
    assert (await client.replies(2))[1]["id"] == 2  # still open, still served


async def test_a_silent_client_that_does_not_answer_is_closed_with_1011(
    client: HandClient,
) -> None:
    assert await client.close_code() == 1011  # read until it closes, answering nothing
    assert pings(client) == 1
