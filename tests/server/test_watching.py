"""Watching races on a real server, PostgreSQL and sockets (docs/arena.md, "Watching")."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest
from arena_client import Client, Connect

from server.ops.config import ServerConfig

DELAY_MS = 4000  # the test server's delay for ranked races (15 s in production)
CARD = re.compile(r'"((?:[2-9TJQKA]|10)[cdhs])"')


@pytest.fixture
def server_config(server_config: ServerConfig) -> ServerConfig:
    return replace(server_config, watch_delay_ms=DELAY_MS)


async def race_of(ann: Client, bob: Client, **settings: object) -> tuple[int, int, int]:
    """A running race of Ann and Bob: its id and their games."""
    created = (await ann.ok("create_race", variant="klondike", countdown_s=0, **settings))["race"]
    race = created["race"]
    bob_game = (await bob.ok("join_race", race=race))["race"]["your_game"]
    await ann.ok("start_race", race=race)
    return race, created["your_game"], bob_game


async def next_message(client: Client, kind: str, start: int) -> dict[str, object]:
    """The first message of ``kind`` from index ``start`` on of what the client received."""
    index = start
    while True:
        while index < len(client.received):
            message = client.received[index]
            index += 1
            if message["type"] == kind:
                return message
        await client.receive(DELAY_MS / 1000 + 10)


async def test_a_watcher_sees_a_racers_board_live_in_an_unranked_race(connect: Connect) -> None:
    ann = await connect(name="Ann")
    bob = await connect(name="Bob")
    fan = await connect(name="Fan")
    race, ann_game, _ = await race_of(ann, bob, seed=43)
    ann_id = ann.welcome["player"]["id"]
    watching = await fan.ok("watch_race", race=race, player=ann_id)
    assert watching["delay_ms"] == 0 and watching["state"] == "running"
    assert watching["settings"]["ranked"] is False
    assert {s["name"] for s in watching["players"]} == {"Ann", "Bob"}
    board = watching["board"]
    assert set(board) == {"tableau", "stock", "waste", "foundations", "counters", "outcome"}
    own = (await ann.ok("get_view", game=ann_game))["view"]
    assert board["tableau"] == own["tableau"] and board["stock"] == own["stock"]
    # Ann plays: the watcher gets the race's event and Ann's new board, as Ann sees it.
    mark = len(fan.received)
    moved = (await ann.ok("move", game=ann_game, text="d"))["view"]
    progress = await next_message(fan, "event", mark)
    assert progress["race"] == race
    shown = await next_message(fan, "watch_board", mark)
    assert shown["player"] == ann_id and shown["board"]["waste"] == moved["waste"]
    assert shown["board"]["counters"]["moves"] == 1
    # Nothing a watcher got names the deal; every card shown lies face up for Ann.
    frames = json.dumps(fan.received)
    assert '"seed"' not in frames and "deal_code" not in frames and "legal_moves" not in frames
    face_up = set(CARD.findall(json.dumps([moved["tableau"], moved["waste"]])))
    assert set(CARD.findall(json.dumps(shown["board"]))) <= face_up
    # Unwatched, nothing more comes.
    await fan.ok("unwatch_race", race=race)
    await ann.ok("move", game=ann_game, text="d")
    await ann.ok("resign", game=ann_game)
    marker = await fan.ok("list_live_races")
    assert marker["type"] == "live_races"
    assert [m for m in fan.received if m["type"] == "watch_board"] == [shown]


async def test_a_ranked_race_is_listed_and_shown_with_a_delay(connect: Connect) -> None:
    ann = await connect(name="Ann")
    bob = await connect(name="Bob")
    fan = await connect(name="Fan")
    race, ann_game, _ = await race_of(ann, bob)
    seeded, _, _ = await race_of(ann, bob, seed=7)
    live = (await fan.ok("list_live_races", variant="klondike"))["races"]
    assert [(r["race"], r["delay_ms"], r["players"]) for r in live] == [(race, DELAY_MS, 2)]
    assert seeded not in [r["race"] for r in live]
    assert (await fan.ok("list_live_races", variant="yukon"))["races"] == []
    moved = (await ann.ok("move", game=ann_game, text="d"))["view"]
    ann_id = ann.welcome["player"]["id"]
    watching = await fan.ok("watch_race", race=race, player=ann_id)
    # Asked at once after the move, the watcher sees the race as it was before it.
    assert watching["delay_ms"] == DELAY_MS
    assert watching["board"]["counters"]["moves"] == 0
    assert all(s["moves"] == 0 for s in watching["players"])
    live_state = (await ann.ok("get_race", race=race))["race"]
    assert any(s["moves"] == 1 for s in live_state["players"])
    # The move comes once its delay has passed: the progress event, then the board.
    await next_message(fan, "watch_board", 0)
    events = [m for m in fan.received if m["type"] == "event"]
    assert [e["seq"] for e in events] == list(range(watching["seq"] + 1, events[-1]["seq"] + 1))
    (event,) = [e for e in events if e["event"]["kind"] == "progress"]
    assert any(s["moves"] == 1 for s in event["event"]["standings"])
    board = await next_message(fan, "watch_board", 0)
    assert board["board"]["waste"] == moved["waste"]
    assert board["at"] >= event["time"]


async def test_a_racer_sees_no_board_of_their_own_race_until_done(connect: Connect) -> None:
    ann = await connect(name="Ann")
    bob = await connect(name="Bob")
    race, ann_game, _ = await race_of(ann, bob, seed=43)
    bob_id = bob.welcome["player"]["id"]
    refused = await ann.error("watch_race", "racing_here", race=race, player=bob_id)
    assert "once you are done" in refused["message"]
    standings_only = await ann.ok("watch_race", race=race)
    assert "board" not in standings_only and standings_only["players"]
    await ann.ok("resign", game=ann_game)
    done = await ann.ok("watch_race", race=race, player=bob_id)
    assert done["board"]["counters"]["moves"] == 0
    await ann.error("watch_race", "not_found", race=race, player=999)
    await ann.error("watch_race", "not_found", race=999)
