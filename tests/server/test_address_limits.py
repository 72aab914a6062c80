"""Limits per client address as well as per connection: requests, new connections and new
guests, with the address from a trusted proxy's X-Forwarded-For.

Linux routes all of 127.0.0.0/8 to the loopback, so clients bound to 127.0.0.2, .3, …
are distinct client addresses to the server.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from arena_client import SERVICE_TOKEN, Client
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import InvalidStatus

from server.core.limits import client_address, trusted_networks
from server.ops.config import ServerConfig
from server.transport.app import ArenaServer

Open = Callable[..., Awaitable[Client]]


@pytest.fixture
def server_config() -> ServerConfig:
    return ServerConfig(
        port=0,
        service_tokens=(SERVICE_TOKEN,),
        rate_per_second=1000,
        rate_burst=1000,
        daily_prepare_ahead=False,
        address_rate_per_second=0.05,
        address_rate_burst=10,
        address_connections_per_second=0.05,
        address_connection_burst=3,
        address_guests_per_minute=1,
        address_guest_burst=2,
        trusted_proxies=("127.0.0.20",),
    )


@pytest.fixture
async def open_from(server: ArenaServer) -> AsyncIterator[Open]:
    """Open a client bound to a loopback address (and with X-Forwarded-For, if given)."""
    clients: list[Client] = []

    async def opened(address: str, forwarded_for: str | None = None) -> Client:
        headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else None
        websocket = await ws_connect(
            server.url, local_addr=(address, 0), additional_headers=headers, max_queue=None
        )
        client = Client(websocket)
        clients.append(client)
        return client

    yield opened
    for client in clients:
        await client.close()


def test_the_address_is_the_peers_unless_a_trusted_proxy_says_otherwise() -> None:
    proxies = trusted_networks(["10.0.0.0/8", "192.168.1.5"])
    assert client_address("203.0.113.9", ["198.51.100.1"], proxies) == "203.0.113.9"
    assert client_address("10.1.2.3", ["198.51.100.1"], proxies) == "198.51.100.1"
    # What the client wrote itself (left) is never believed past the proxy's own entry.
    assert client_address("10.1.2.3", ["6.6.6.6, 198.51.100.1"], proxies) == "198.51.100.1"
    assert client_address("10.1.2.3", ["6.6.6.6", "192.168.1.5, 10.9.9.9"], proxies) == "6.6.6.6"
    assert client_address("10.1.2.3", [], proxies) == "10.1.2.3"
    assert client_address("::ffff:198.51.100.1", [], proxies) == "198.51.100.1"
    assert client_address("10.1.2.3", ["2001:DB8::1"], proxies) == "2001:db8::1"
    assert client_address("10.1.2.3", ["unknown"], proxies) == "unknown"
    assert client_address("203.0.113.9", ["198.51.100.1"], ()) == "203.0.113.9"
    with pytest.raises(ValueError):
        trusted_networks(["not a proxy"])


async def test_the_connections_of_one_address_share_its_request_rate(open_from: Open) -> None:
    ann = await open_from("127.0.0.2")
    ann.welcome = await ann.ok("hello", name="Ann")
    twin = await open_from("127.0.0.2")  # the same address: the same bucket
    await twin.ok("hello", name="Twin")
    for _ in range(8):  # 10 in all with the two hellos
        await ann.ok("my_games")
    refused = await twin.error("my_games", "rate_limited")
    assert refused["details"] == {"rate": 0.05, "per": "address"}
    other = await open_from("127.0.0.3")
    await other.ok("hello", name="Other")
    await other.ok("my_games")


async def test_new_connections_per_address_are_refused_before_anything_else(
    open_from: Open,
) -> None:
    for _ in range(3):
        await open_from("127.0.0.4")
    with pytest.raises(InvalidStatus) as refused:
        await open_from("127.0.0.4")
    assert refused.value.response.status_code == 429
    assert refused.value.response.headers["Retry-After"] == "20"
    assert b"Too many new connections" in refused.value.response.body
    await open_from("127.0.0.5")  # another address opens as ever


async def test_new_guests_per_address_are_limited_but_a_token_comes_back(
    open_from: Open,
) -> None:
    first = await open_from("127.0.0.6")
    first.welcome = await first.ok("hello", name="One")
    second = await open_from("127.0.0.6")
    await second.ok("hello", name="Two")
    third = await open_from("127.0.0.6")
    reply = await third.error("hello", "too_many_guests", name="Three")
    assert "come back with your token" in reply["message"]
    await third.ok("hello", token=first.welcome["token"])  # an old guest is welcome


async def test_a_trusted_proxy_names_the_client_and_nobody_else_can(open_from: Open) -> None:
    # Through the trusted proxy, each client is the address it forwards.
    for _ in range(3):
        await open_from("127.0.0.20", "198.51.100.7")
    with pytest.raises(InvalidStatus):
        await open_from("127.0.0.20", "198.51.100.7")
    await open_from("127.0.0.20", "198.51.100.8")
    # A client that is no trusted proxy cannot pick its address with the header.
    for forwarded in ("203.0.113.1", "203.0.113.2", "203.0.113.3"):
        await open_from("127.0.0.21", forwarded)
    with pytest.raises(InvalidStatus):
        await open_from("127.0.0.21", "203.0.113.4")


async def test_a_service_brings_its_players_through_one_address_unhindered(
    open_from: Open,
) -> None:
    bot = await open_from("127.0.0.9")
    await bot.ok("hello", service_token=SERVICE_TOKEN)
    for index in range(30):  # three times the address's burst, for many players
        act_as = {"user": f"discord:{1000 + index}", "name": f"P{index}"}
        await bot.ok("my_games", act_as=act_as)


def test_the_defaults_are_the_documented_ones() -> None:
    config = ServerConfig()
    assert (config.address_rate_per_second, config.address_rate_burst) == (60.0, 120)
    assert (config.address_connections_per_second, config.address_connection_burst) == (2.0, 30)
    assert (config.address_guests_per_minute, config.address_guest_burst) == (2.0, 30)
    assert config.trusted_proxies == ()
