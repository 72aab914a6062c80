"""The bot's client speaks the server's protocol types: typed requests and replies, bad
requests refused before they are sent, frames that break the protocol dropped."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import msgspec
import pytest
from bot_setup import MakeClient
from websockets.asyncio.server import ServerConnection, serve

from bot.client import Actor, ArenaClient, ServerError
from server import protocol as p

ALICE = Actor(1001, "Alice", "en")


class TestTyped:
    async def test_ask_returns_the_servers_typed_reply(self, make_client: MakeClient) -> None:
        client = await make_client()
        reply = await client.ask(p.Practice(variant="klondike", seed=39), ALICE)
        assert isinstance(reply, p.ViewReply)
        assert isinstance(reply.view, p.PlayerView) and reply.view.tableau[0].down == 0
        move = next(iter(reply.view.legal_moves.values()))[0]
        played = await client.ask(p.Move(game=reply.game, text=move, move_id="t1"), ALICE)
        assert isinstance(played, p.ViewReply) and played.played == [move]

    async def test_a_race_asked_for_is_watched_and_reaches_the_desk_as_its_state(
        self, make_client: MakeClient
    ) -> None:
        seen: list[p.RaceInfo] = []
        client = await make_client(on_race=seen.append)
        reply = await client.ask(p.CreateRace(variant="yukon"), ALICE)
        assert isinstance(reply, p.RaceReply)
        assert client.watches[reply.race.race].last_seq == reply.race.seq
        assert seen[-1] == reply.race  # the desk's face: the protocol's own type

    async def test_a_refused_request_raises_with_the_servers_code(
        self, make_client: MakeClient
    ) -> None:
        client = await make_client()
        with pytest.raises(ServerError) as caught:
            await client.ask(p.GetView(game=999_999), ALICE)
        assert caught.value.code == "not_found"


class TestBadRequests:
    """Refused before anything is sent: this client never connects."""

    async def test_a_field_of_the_wrong_type_is_an_invalid_message(self) -> None:
        client = ArenaClient("ws://127.0.0.1:9/", "x", request_timeout=0.3)
        with pytest.raises(ServerError) as caught:
            await client.request("get_view", ALICE, game="seven")
        assert caught.value.code == "invalid_message"
        assert "game" in caught.value.message
        assert client._next_id == 0  # nothing was sent

    async def test_a_request_the_protocol_does_not_know_is_an_unknown_type(self) -> None:
        client = ArenaClient("ws://127.0.0.1:9/", "x", request_timeout=0.3)
        with pytest.raises(ServerError) as caught:
            await client.request("teleport", ALICE, game=1)
        assert caught.value.code == "unknown_type"
        with pytest.raises(ServerError) as caught:
            await client.request("move", ALICE, game=1, text="7>2", colour="red")
        assert caught.value.code == "invalid_message"


# ---------------------------------------------------------------- a server that breaks the protocol

WELCOME = {"type": "welcome", "protocol": 1, "server_time": 0, "service": True}
BROKEN = [
    "not json at all",
    json.dumps({"type": "event", "race": "seven", "seq": 1, "time": 0}),
    json.dumps({"type": "no_such_message"}),
    json.dumps([1, 2, 3]),
]
NOTICE = {"type": "winnability", "game": 5, "seq": 3, "verdict": "lost"}


@pytest.fixture
async def rogue() -> AsyncIterator[str]:
    """A WebSocket peer that greets the bot, then breaks the protocol: broken frames
    unasked, a malformed reply to ``my_games`` of ``limit`` 1, a good one otherwise."""

    async def handle(websocket: ServerConnection) -> None:
        async for frame in websocket:
            request = json.loads(frame)
            if request["type"] == "hello":
                await websocket.send(json.dumps({**WELCOME, "id": request["id"]}))
                for broken in BROKEN:
                    await websocket.send(broken)
                await websocket.send(json.dumps(NOTICE))
            elif request.get("limit") == 1:
                await websocket.send(json.dumps({"type": "games", "id": request["id"]}))
            else:
                await websocket.send(
                    json.dumps({"type": "games", "id": request["id"], "games": []})
                )

    async with serve(handle, "127.0.0.1", 0) as server:
        host, port = server.sockets[0].getsockname()[:2]
        yield f"ws://{host}:{port}/"


class TestBrokenFrames:
    async def test_broken_frames_are_dropped_and_the_client_carries_on(self, rogue: str) -> None:
        notices: list[p.ServerMessage] = []
        client = ArenaClient(rogue, "token", on_notice=notices.append, request_timeout=30)
        try:
            await client.start(timeout=10)
            async with asyncio.timeout(10):
                while not notices:
                    await asyncio.sleep(0.01)
            # The good frame after the broken ones arrived, decoded.
            assert [msgspec.to_builtins(n) for n in notices] == [NOTICE]
            with pytest.raises(ServerError) as caught:
                await client.request("my_games", ALICE, limit=1)
            assert caught.value.code == "bad_reply"  # at once, not after the timeout
            assert "games" in caught.value.message
            assert await client.request("my_games", ALICE, limit=5) == {
                "type": "games",
                "id": 3,
                "games": [],
            }
            assert client.connections == 1  # never dropped the connection
        finally:
            await client.close()
