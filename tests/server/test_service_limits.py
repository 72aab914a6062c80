"""Rate limits and idling of a service connection (the bot) versus a guest's.

The bot brings every Discord user through one connection, so the per-connection
limit applies to each user it acts for, under a separate, generous cap for the
whole connection; and the bot's connection is not closed for idling.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from arena_client import SERVICE_TOKEN, Client
from websockets.exceptions import ConnectionClosed

from server.ops.config import ServerConfig

ALICE = {"user": "discord:111", "name": "Alice"}
BERT = {"user": "discord:222", "name": "Bert"}


@pytest.fixture
def server_config() -> ServerConfig:
    # One message a second after a burst of 10: a burst sent at once cannot refill.
    return ServerConfig(
        port=0,
        service_tokens=(SERVICE_TOKEN,),
        rate_per_second=1,
        rate_burst=10,
        flood_close_after=3,
        service_rate_per_second=1,
        service_rate_burst=25,
        idle_timeout=1.0,
        daily_prepare_ahead=False,
    )


async def burst(client: Client, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Send every request at once, then read each one's reply (in request order)."""
    first = client.next_id + 1
    for offset, request in enumerate(requests):
        await client.send_raw(json.dumps({"id": first + offset, **request}))
    client.next_id += len(requests)
    replies: dict[int, dict[str, Any]] = {}
    while len(replies) < len(requests):
        message = await client.receive()
        if message["type"] != "event" and isinstance(message.get("id"), int):
            replies[message["id"]] = message
    return [replies[first + offset] for offset in range(len(requests))]


def codes(replies: list[dict[str, Any]]) -> list[str]:
    return [reply.get("code", reply["type"]) for reply in replies]


async def test_each_user_of_a_service_connection_has_its_own_limit(connect: Any) -> None:
    bot = await connect(service_token=SERVICE_TOKEN)
    games = {}
    for who in (ALICE, BERT):
        reply = await bot.ok("practice", variant="klondike", seed=3, act_as=who)
        games[who["user"]] = reply["game"]
    # Eight more each: 18 messages in all, past a guest's burst, each user within theirs.
    requests = [
        {"type": "get_view", "game": games[who["user"]], "act_as": who}
        for _ in range(8)
        for who in (ALICE, BERT)
    ]
    replies = await burst(bot, requests)
    assert codes(replies) == ["view"] * 16
    # Alice is now past her limit; her messages are refused, Bert's still served, and the
    # connection stays open though more were refused in a row than flood_close_after.
    alice_game = games[ALICE["user"]]
    refused = await burst(bot, [{"type": "get_view", "game": alice_game, "act_as": ALICE}] * 5)
    assert codes(refused) == ["view"] + ["rate_limited"] * 4
    assert refused[1]["message"] == "Too many messages; slow down (limit 1 per second)."
    view = await bot.ok("get_view", game=games[BERT["user"]], act_as=BERT)
    assert view["view"]["counters"]["moves"] == 0


async def test_a_service_connection_has_a_cap_for_all_its_users(connect: Any) -> None:
    bot = await connect(service_token=SERVICE_TOKEN)
    users = [{"user": f"discord:{100 + n}"} for n in range(4)]
    # No such game, so each served message is answered not_found (after the limits).
    replies = await burst(bot, [{"type": "get_view", "game": 1, "act_as": w} for w in users * 7])
    # 28 messages, 7 per user (each within their 10): the cap of 25 refuses the rest
    # (not more than flood_close_after in a row, which would close the connection).
    assert codes(replies)[:25] == ["not_found"] * 25
    assert codes(replies)[25:].count("rate_limited") >= 2


async def test_a_guest_connection_keeps_the_per_connection_limit(connect: Any) -> None:
    guest = await connect(name="Gus")  # hello: 1 of 10
    game = (await guest.ok("practice", variant="klondike", seed=3))["game"]  # 2 of 10
    replies = await burst(guest, [{"type": "get_view", "game": game}] * 10)
    assert codes(replies) == ["view"] * 8 + ["rate_limited"] * 2


async def test_a_service_connection_is_not_closed_for_idling(connect: Any) -> None:
    bot = await connect(service_token=SERVICE_TOKEN)
    guest = await connect(name="Quiet")
    with pytest.raises(ConnectionClosed):
        await guest.receive(timeout=10)
    assert guest.websocket.close_code == 4000
    await asyncio.sleep(1.0)  # the bot has now been silent well past idle_timeout
    reply = await bot.ok("practice", variant="klondike", act_as=ALICE)
    assert reply["view"]["status"] == "playing"
