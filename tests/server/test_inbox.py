"""The lean receive path (server/transport/inbox.py) against a real server: messages cut
anywhere and run together arrive whole and in order, with pings and fragmented messages
among them; what websockets refuses is still refused with its close code."""

from __future__ import annotations

import asyncio
import os
import random
import struct
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
import structlog.testing
from hand_client import HandClient, request
from websockets.frames import Opcode

from server.ops.config import ServerConfig
from server.transport.app import ArenaServer

Open = Callable[[], Awaitable[HandClient]]


@pytest.fixture
async def hand_client(server: ArenaServer) -> AsyncIterator[Open]:
    """Open hand-driven clients to the test server (closed after the test)."""
    clients: list[HandClient] = []

    async def open_client() -> HandClient:
        clients.append(await HandClient.open(server.url))
        return clients[-1]

    yield open_client
    for client in clients:
        client.writer.close()
        await client.writer.wait_closed()


async def test_messages_cut_anywhere_arrive_whole_and_in_order(hand_client: Open) -> None:
    client = await hand_client()
    protocol = client.protocol
    protocol.send_text(request(1, "hello", protocol=1, name="Ann"))
    for request_id in range(2, 40):
        if request_id == 10:
            protocol.send_ping(b"are you there")
        if request_id == 20:  # one message in three fragments
            whole = request(20)
            protocol.send_text(whole[:5], fin=False)
            protocol.send_continuation(whole[5:12], fin=False)
            protocol.send_continuation(whole[12:], fin=True)
            continue
        protocol.send_text(request(request_id))
    await client.send(client.outgoing(), piece=7)  # cut everywhere, a header included
    replies = await client.replies(39)
    assert [reply["id"] for reply in replies] == list(range(1, 40))
    assert replies[0]["type"] == "welcome"
    assert all(reply["type"] == "games" for reply in replies[1:])
    assert any(f.opcode is Opcode.PONG and f.data == b"are you there" for f in client.frames)


async def test_a_text_that_is_not_utf8_closes_with_1007(hand_client: Open) -> None:
    client = await hand_client()
    client.protocol.send_text(request(1, "hello", protocol=1))
    client.protocol.send_text(b'{"type": "my_games", "id": 2, "x": "\xff"}')
    await client.send(client.outgoing())
    assert await client.close_code() == 1007


async def test_an_unmasked_frame_closes_with_1002(hand_client: Open) -> None:
    client = await hand_client()
    payload = request(1, "hello", protocol=1)
    await client.send(bytes((0x81, len(payload))) + payload)  # a client's frame must be masked
    assert await client.close_code() == 1002


async def test_a_frame_past_the_size_limit_closes_with_1009(
    server: ArenaServer, hand_client: Open
) -> None:
    client = await hand_client()
    size = server.config.max_message_bytes + 1
    header = struct.pack("!BBH", 0x81, 0x80 | 126, size) + os.urandom(4)
    await client.send(header + b"x" * 100)  # refused on its header, before its payload
    assert await client.close_code() == 1009


async def test_a_frame_cut_short_as_the_server_closes_reaches_websockets_whole(
    migrated_database_url: str,
) -> None:
    """The server closes an idle connection while the start of a client's frame waits
    in the receive path: that start goes to websockets with the rest, so it reads the
    client's closing frame after it and the close handshake ends cleanly."""
    config = ServerConfig(port=0, idle_timeout=0.5, daily_prepare_ahead=False)
    async with ArenaServer(config, migrated_database_url) as server:
        with structlog.testing.capture_logs() as logs:
            client = await HandClient.open(server.url)
            client.protocol.send_text(request(1, "hello", protocol=1))
            client.protocol.send_text(request(2))
            welcome, second = client.outgoing(), b""
            hello_size = 6 + len(request(1, "hello", protocol=1))  # header, mask, text
            welcome, second = welcome[:hello_size], welcome[hello_size:]
            await client.send(welcome)
            assert (await client.replies(1))[0]["type"] == "welcome"
            await client.send(second[:5])  # a frame's start; the rest comes after the close
            assert await client.close_code() == 4000  # idle: the frame is not a message yet
            await client.send(second[5:] + client.outgoing())  # the rest, then its close
            while not client.reader.at_eof():
                await client.read()
            client.writer.close()
            await client.writer.wait_closed()
            for _ in range(100):
                if any(line["event"] == "disconnected" for line in logs):
                    break
                await asyncio.sleep(0.02)
    [closed] = [line for line in logs if line["event"] == "disconnected"]
    assert closed["code"] == 4000  # the client's closing frame came back: a clean close


def masked_text(payload: bytes, mask: bytes | None = None) -> bytes:
    """A client's text frame (RFC 6455 5.2), masked, for a payload under 126 bytes."""
    mask = mask or os.urandom(4)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes((0x81, 0x80 | len(payload))) + mask + body


def tail_like_a_frame(payload: bytes, tail: int) -> bytes:
    """A frame of ``payload`` whose last ``tail`` bytes read as a whole short text frame
    of their own: a receive path that took them for the start of a frame would take a
    message that was never sent."""
    rng = random.Random(5)
    while True:
        frame = masked_text(payload, bytes(rng.randrange(256) for _ in range(4)))
        end = frame[-tail:]
        length = end[1] & 0x7F
        if end[0] == 0x81 and end[1] & 0x80 and 6 + length <= tail:
            fake = bytes(b ^ end[2 + i % 4] for i, b in enumerate(end[6 : 6 + length]))
            try:
                fake.decode()
            except UnicodeDecodeError:
                continue
            return frame


async def test_frames_sent_with_the_handshake_are_read_in_order(server: ArenaServer) -> None:
    """A client that sends frames before the handshake's answer (with its request, the
    last one cut short): websockets reads what it started, and everything after."""
    frames = masked_text(request(1, "hello", protocol=1)) + tail_like_a_frame(request(2), 10)
    cut = len(frames) - 10
    client = await HandClient.open(server.url, early=frames[:cut])
    await client.send(frames[cut:] + masked_text(request(3)))
    replies = await client.replies(3)
    assert [(r["id"], r["type"]) for r in replies] == [(1, "welcome"), (2, "games"), (3, "games")]
    client.writer.close()
    await client.writer.wait_closed()
