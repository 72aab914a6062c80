"""Coming back: missed events after a reconnect, and a server killed mid-race."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import pytest
from server_process import free_port, open_client, server_process, wait_healthy

import engine
from server.ops.config import ServerConfig

ROOT = Path(__file__).resolve().parents[2]


async def start_race(connect: Any) -> tuple[Any, Any, int, dict[str, int]]:
    ann = await connect(name="Ann")
    bob = await connect(name="Bob")
    created = await ann.ok("create_race", variant="klondike", seed=8, countdown_s=0)
    race = created["race"]["race"]
    joined = await bob.ok("join_race", race=race)
    await ann.ok("start_race", race=race)
    await bob.event("start", race)
    games = {"ann": created["race"]["your_game"], "bob": joined["race"]["your_game"]}
    return ann, bob, race, games


async def test_reconnecting_client_gets_exactly_the_events_it_missed(connect: Any) -> None:
    ann, bob, race, games = await start_race(connect)
    last_seen = bob.events[-1]["seq"]
    token = bob.welcome["token"]
    await bob.close()

    for _ in range(3):
        await ann.ok("move", game=games["ann"], text="d")
    await ann.event("progress", race, lambda e: e["event"]["standings"][0]["moves"] == 3)
    missed = [e for e in ann.events if e["seq"] > last_seen]

    back = await connect(token=token)
    caught_up = await back.ok("resume", race=race, last_seq=last_seen)
    assert caught_up["type"] == "events"
    assert caught_up["events"] == missed
    assert [e["seq"] for e in missed] == list(range(last_seen + 1, last_seen + 4))
    # and from now on it is live again
    await ann.ok("move", game=games["ann"], text="d")
    live = await back.event("progress", race)
    assert live["seq"] == missed[-1]["seq"] + 1
    view = await back.ok("get_view", game=games["bob"])
    assert view["view"]["counters"]["moves"] == 0


@pytest.fixture
def server_config() -> ServerConfig:
    return ServerConfig(
        port=0,
        rate_per_second=1000,
        rate_burst=1000,
        resume_window=5,
        progress_interval_ms=0,
        daily_prepare_ahead=False,
    )


async def test_a_gap_too_old_gets_the_full_state(connect: Any) -> None:
    ann, bob, race, games = await start_race(connect)
    last_seen = bob.events[-1]["seq"]
    for _ in range(6):
        await ann.ok("move", game=games["ann"], text="d")
    reply = await bob.ok("resume", race=race, last_seq=last_seen)
    assert reply["type"] == "race"
    assert reply["race"]["seq"] == last_seen + 6
    standings = {s["name"]: s for s in reply["race"]["players"]}
    assert standings["Ann"]["moves"] == 6
    future = await bob.ok("resume", race=race, last_seq=reply["race"]["seq"] + 50)
    assert future["type"] == "race"


async def test_killed_server_keeps_every_acknowledged_move(
    migrated_database_url: str, tmp_path: Path
) -> None:
    port = free_port()
    seed = 45  # following the engine's hints wins this Klondike deal
    line: list[str] = []
    planner = engine.new_game("klondike", seed=seed)
    while not planner.can_finish:
        move = planner.hint()
        assert move is not None
        planner.play(move)
        line.append(move.notation())

    with server_process(migrated_database_url, port, tmp_path / "first.log") as first:
        await wait_healthy(port)
        ann = await open_client(port, name="Ann")
        bob = await open_client(port, name="Bob")
        created = await ann.ok("create_race", variant="klondike", seed=seed, countdown_s=0)
        race, game = created["race"]["race"], created["race"]["your_game"]
        bob_game = (await bob.ok("join_race", race=race))["race"]["your_game"]
        await ann.ok("start_race", race=race)
        await bob.ok("move", game=bob_game, text="d")
        for text in line[:5]:
            await ann.ok("move", game=game, text=text)
        # A burst of moves in flight, then the process dies without warning.
        for index, text in enumerate(line[5:25]):
            await ann.send_raw(f'{{"type":"move","id":"b{index}","game":{game},"text":"{text}"}}')
        acknowledged = 5
        while acknowledged < 8:
            reply = await ann.receive()
            if reply["type"] == "view":
                acknowledged += 1
        first.send_signal(signal.SIGKILL)
        first.wait()
        bob_seen = bob.events[-1]["seq"]

    with server_process(migrated_database_url, port, tmp_path / "second.log"):
        await wait_healthy(port)
        ann = await open_client(port, token=ann.welcome["token"])
        view = (await ann.ok("get_view", game=game))["view"]
        applied = view["counters"]["moves"]
        assert applied >= acknowledged
        expected = engine.replay("klondike", seed, {}, line[:applied]).view()
        assert view["tableau"] == expected["tableau"]
        assert view["foundations"] == expected["foundations"]

        bob = await open_client(port, token=bob.welcome["token"])
        caught_up = await bob.ok("resume", race=race, last_seq=bob_seen)
        assert caught_up["type"] in ("events", "race")
        for text in line[applied:]:
            await ann.ok("move", game=game, text=text)
        finished = await ann.ok("auto_finish", game=game)
        assert finished["view"]["outcome"] == "won"
        await bob.ok("resign", game=bob_game)
        end = await bob.event("end", race)
        assert [r["name"] for r in end["event"]["ranking"]] == ["Ann", "Bob"]
        assert end["event"]["ranking"][0]["finished"] is True
        await ann.close()
        await bob.close()
