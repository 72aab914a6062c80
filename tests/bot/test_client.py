"""The bot's server client against a real server: acting for users, errors, reconnects."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from bot.client import Actor, ArenaClient, FatalClientError, ServerError
from server import protocol as p
from server.transport.app import ArenaServer

ALICE = Actor(1001, "Alice", "en")
BERND = Actor(1002, "Bernd", "de")
MakeClient = Callable[..., Awaitable[ArenaClient]]


class TestActing:
    async def test_practice_moves_and_views_as_the_user(self, make_client: MakeClient) -> None:
        client = await make_client()
        reply = await client.request("practice", ALICE, variant="klondike", seed=39)
        game, view = reply["game"], reply["view"]
        assert view["deal_code"] is not None and view["tableau"][0]["down"] == 0
        move = next(iter(view["legal_moves"].values()))[0]
        played = await client.request("move", ALICE, game=game, text=move, move_id="m1")
        assert played["played"] == [move]
        again = await client.request("move", ALICE, game=game, text=move, move_id="m1")
        assert again["duplicate"] is True
        fetched = await client.request("get_view", ALICE, game=game)
        assert fetched["view"]["counters"]["moves"] == 1

    async def test_nobody_acts_for_another_user(self, make_client: MakeClient) -> None:
        client = await make_client()
        game = (await client.request("practice", ALICE, variant="yukon"))["game"]
        with pytest.raises(ServerError) as caught:
            await client.request("get_view", BERND, game=game)
        assert caught.value.code == "forbidden"
        assert "gehört" in caught.value.message  # in Bernd's language

    async def test_illegal_move_changes_nothing_and_says_why(self, make_client: MakeClient) -> None:
        client = await make_client()
        reply = await client.request("practice", BERND, variant="klondike", seed=5)
        with pytest.raises(ServerError) as caught:
            await client.request("move", BERND, game=reply["game"], text="f1>3")
        assert caught.value.code in {"illegal_move", "invalid_move"}
        view = (await client.request("get_view", BERND, game=reply["game"]))["view"]
        assert view == reply["view"]


class TestConnection:
    async def test_wrong_service_token_is_a_clear_fatal_error(self, arena: ArenaServer) -> None:
        client = ArenaClient(arena.url, "wrong", backoff_initial=0.01)
        with pytest.raises(FatalClientError, match="service token"):
            await client.start(timeout=10)
        await client.close()

    async def test_unreachable_server_fails_requests_cleanly(self) -> None:
        client = ArenaClient("ws://127.0.0.1:9/", "x", request_timeout=0.3, backoff_initial=0.01)
        await client.start()
        with pytest.raises(ServerError) as caught:
            await client.request("get_view", ALICE, game=1)
        assert caught.value.code in {"timeout", "connection_lost"}
        await client.close()

    async def test_a_request_while_the_server_is_down_fails_at_once(self) -> None:
        """With the server down, a press is told "not reachable" after the short wait for
        a reconnect, not after the request timeout (twice, with its retry)."""
        client = ArenaClient("ws://127.0.0.1:9/", "x", request_timeout=60.0, backoff_initial=0.01)
        await client.start()
        try:
            async with asyncio.timeout(client.ready_wait * 3):
                with pytest.raises(ServerError) as caught:
                    await client.request("get_view", ALICE, game=1)
            assert caught.value.code == "connection_lost"
        finally:
            await client.close()

    async def test_reconnects_after_the_server_drops_it(
        self, arena: ArenaServer, make_client: MakeClient
    ) -> None:
        client = await make_client()
        game = (await client.request("practice", ALICE, variant="spider-1"))["game"]
        for connection in list(arena._server.connections):  # type: ignore[union-attr]
            await connection.close(1011, "test drop")
        view = await client.request("get_view", ALICE, game=game)
        assert view["game"] == game
        assert client.connections == 2

    async def test_resumes_a_watched_race_with_the_events_it_missed(
        self, make_client: MakeClient
    ) -> None:
        events: list[p.Event] = []
        first = await make_client(on_event=events.append)
        other = await make_client()
        race = (await first.request("create_race", ALICE, variant="klondike"))["race"]["race"]
        await first.close()  # the bot is down while Bernd joins elsewhere
        await other.request("join_race", BERND, race=race)
        await first.start(timeout=10)
        for _ in range(200):
            if any(isinstance(e.event, p.LobbyEvent) and len(e.event.players) == 2 for e in events):
                break
            await asyncio.sleep(0.02)
        lobby = [e for e in events if isinstance(e.event, p.LobbyEvent)]
        last = lobby[-1].event
        assert isinstance(last, p.LobbyEvent)
        assert [player.name for player in last.players] == ["Alice", "Bernd"]
        assert first.watches[race].last_seq == lobby[-1].seq
