"""Whole races over real sockets: lobby, start, moves, finish, ranking, fairness.

Every message a player receives during a played race is checked against the true
position (rebuilt here from the seed): it may name a card only if that card lies
face up, and the seed stays secret until the race ends.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest
from arena_client import Client
from websockets.asyncio.client import connect as ws_connect

import engine
from engine.cards import CODES
from server.ops.config import ServerConfig
from server.transport.app import ArenaServer

CARD = re.compile(r"^(10|[2-9AJQK])[cdhs]$")
WINNABLE_KLONDIKE_SEED = 45  # following the engine's hints wins this deal


def card_strings(value: Any) -> Counter[str]:
    """Every string in a message that names a card."""
    found: Counter[str] = Counter()
    if isinstance(value, str) and CARD.match(value):
        found[value] += 1
    elif isinstance(value, dict):
        for item in value.values():
            found += card_strings(item)
    elif isinstance(value, list):
        for item in value:
            found += card_strings(item)
    return found


def secret_keys(value: Any) -> set[str]:
    """Keys that would give away the deal, present with a value."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("seed", "deal_code", "salt") and item is not None:
                found.add(key)
            found |= secret_keys(item)
    elif isinstance(value, list):
        for item in value:
            found |= secret_keys(item)
    return found


def assert_no_hidden_card(message: dict[str, Any], game: engine.Game) -> None:
    """The message names no card beyond the face-up copies in ``game``."""
    pos = game.position
    hidden = Counter(
        CODES[c] for col, down in zip(pos.tableau, pos.down, strict=True) for c in col[:down]
    )
    hidden += Counter(CODES[c] for c in pos.stock)
    total = Counter(CODES[c] for c in pos.cards())
    for card, count in card_strings(message).items():
        assert count <= total[card] - hidden[card], (card, message)


class Racer:
    """A test player: a client plus the true game, rebuilt from the seed as it goes."""

    def __init__(self, client: Any, variant: str, seed: int) -> None:
        self.client = client
        self.game = engine.new_game(variant, seed=seed)
        self.checked = 0
        self.game_id = 0
        self.race_over = False

    def check(self) -> None:
        """Check every message received since the last check."""
        for message in self.client.received[self.checked :]:
            if message["type"] == "view":
                for notation in message.get("played", []):
                    if notation == "undo":
                        self.game.undo()
                    else:
                        self.game.play(notation)
            assert_no_hidden_card(message, self.game)
            if message["type"] == "event" and message["event"]["kind"] == "end":
                self.race_over = True
            if not self.race_over:
                assert not secret_keys(message), message
        self.checked = len(self.client.received)

    async def play(self, count: int) -> None:
        """Play ``count`` moves chosen from the legal moves the server lists."""
        view = (await self.client.ok("get_view", game=self.game_id))["view"]
        for _ in range(count):
            choices = [m for moves in view["legal_moves"].values() for m in moves]
            if not choices:
                return
            choices.sort(key=lambda m: (not m.endswith(">f"), m == "d"))
            reply = await self.client.ok("move", game=self.game_id, text=choices[0])
            assert reply["played"] == [choices[0]]
            view = reply["view"]
            self.check()


def expected_order(standings: list[dict[str, Any]]) -> list[int]:
    """The ranking rule of issue #4, written out independently of the server."""
    finished = sorted(
        (s for s in standings if s["finished"]), key=lambda s: (s["time_ms"], s["moves"])
    )
    unfinished = sorted(
        (s for s in standings if not s["finished"]), key=lambda s: (-s["foundation"], s["moves"])
    )
    return [s["player"] for s in finished + unfinished]


@pytest.mark.parametrize("variant", sorted(engine.VARIANTS))
async def test_three_player_race_from_lobby_to_ranking(connect: Any, variant: str) -> None:
    seed = WINNABLE_KLONDIKE_SEED if variant == "klondike" else 1234 + len(variant)
    ann = await connect(name="Ann")
    bob = await connect(name="Bob")
    cid = await connect(name="Cid")
    created = await ann.ok(
        "create_race", variant=variant, seed=seed, max_players=3, countdown_s=0, allow_hints=False
    )
    race = created["race"]["race"]
    assert created["race"]["state"] == "lobby"
    racers = [Racer(c, variant, seed) for c in (ann, bob, cid)]
    racers[0].game_id = created["race"]["your_game"]
    for racer in racers[1:]:
        joined = await racer.client.ok("join_race", race=race)
        racer.game_id = joined["race"]["your_game"]
    lobby = await ann.event("lobby", race, lambda e: len(e["event"]["players"]) == 3)
    assert [p["name"] for p in lobby["event"]["players"]] == ["Ann", "Bob", "Cid"]
    extra = await connect(name="Dan")
    await extra.error("join_race", "race_full", race=race)
    await bob.error("start_race", "not_creator", race=race)
    await bob.error("move", "not_started", game=racers[1].game_id, text="d")

    started = await ann.ok("start_race", race=race)
    assert started["race"]["state"] == "running"
    await cid.event("start", race)
    await ann.error("hint", "hints_disabled", game=racers[0].game_id)

    if variant == "klondike":
        await win(racers[0])
    else:
        await racers[0].play(6)
    await racers[1].play(3)
    await cid.ok("resign", game=racers[2].game_id)
    await cid.error("move", "game_over", game=racers[2].game_id, text="d")
    for racer in racers[:2]:  # in Klondike Ann has won: leaving then changes nothing
        await racer.client.ok("leave_race", race=race)

    end = await bob.event("end", race)
    ranking = end["event"]["ranking"]
    assert [line["rank"] for line in ranking] == [1, 2, 3]
    assert [line["player"] for line in ranking] == expected_order(ranking)
    if variant == "klondike":
        assert ranking[0]["name"] == "Ann" and ranking[0]["finished"]
        finish = await bob.event("finish", race)
        assert finish["event"]["player"] == ranking[0]["player"]
    for racer in racers:
        racer.check()
        await racer.client.event("end", race)
    final = await cid.ok("get_race", race=race)
    assert final["race"]["state"] == "finished"
    assert final["race"]["ranking"] == ranking
    assert int(final["race"]["seed"]) == seed


async def win(racer: Racer) -> None:
    """Play the engine's hints (computed here, on a copy) until the game can finish."""
    planner = racer.game.copy()
    while not planner.can_finish:
        move = planner.hint()
        assert move is not None
        planner.play(move)
        await racer.client.ok("move", game=racer.game_id, text=move.notation())
        racer.check()
    reply = await racer.client.ok("auto_finish", game=racer.game_id)
    assert reply["view"]["outcome"] == "won"
    racer.check()


async def test_commitment_verifies_against_the_revealed_seed(connect: Any) -> None:
    ann = await connect(name="Ann")
    created = await ann.ok("create_race", variant="yukon", start="now")
    race = created["race"]
    assert race["state"] == "running" and race["seed"] is None
    first_view = await ann.ok("get_view", game=race["your_game"])
    await ann.ok("resign", game=race["your_game"])
    end = (await ann.event("end", race["race"]))["event"]
    digest = hashlib.sha256(f"{end['seed']}:{end['salt']}".encode("ascii")).hexdigest()
    assert digest == race["commitment"] == end["commitment"]
    rebuilt = engine.new_game("yukon", seed=int(end["seed"])).view()
    assert rebuilt["tableau"] == first_view["view"]["tableau"]


async def test_race_ends_at_its_time_limit_and_ranks_the_unfinished(connect: Any) -> None:
    ann = await connect(name="Ann")
    bob = await connect(name="Bob")
    created = await ann.ok(
        "create_race", variant="klondike", seed=5, start="countdown", countdown_s=1, time_limit_s=1
    )
    race = created["race"]["race"]
    assert created["race"]["state"] == "countdown"
    joined = await bob.ok("join_race", race=race)
    countdown = await ann.event("countdown", race)
    start = await bob.event("start", race)
    assert start["event"]["at"] == countdown["event"]["starts_at"] == joined["race"]["starts_at"]
    game = joined["race"]["your_game"]
    await bob.ok("move", game=game, text="d")
    end = await ann.event("end", race)
    assert end["event"]["reason"] == "time_limit"
    assert [line["name"] for line in end["event"]["ranking"]] == ["Ann", "Bob"]
    await bob.error("move", "wrong_state", game=game, text="d")


async def test_race_state_changes_are_compare_and_set_across_processes(
    connect: Any, server: Any, migrated_database_url: str
) -> None:
    """A second process starts the race; the first, which saw a lobby, cannot too."""
    ann = await connect(name="Ann")
    race = (await ann.ok("create_race", variant="yukon", countdown_s=0))["race"]["race"]
    async with ArenaServer(server.config, migrated_database_url) as other:
        twin = Client(await ws_connect(other.url, max_queue=None))
        await twin.ok("hello", token=ann.welcome["token"])
        started = await twin.ok("start_race", race=race)
        assert started["race"]["state"] == "running"
        await twin.close()
    # Told of the start (fan-out) or not yet (then its compare-and-set fails): either
    # way the first process refuses, and rebuilds the race from the database.
    lost = await ann.request("start_race", race=race)
    assert lost["type"] == "error" and lost["code"] in ("conflict", "wrong_state"), lost
    state = await ann.ok("get_race", race=race)
    assert state["race"]["state"] == "running"


async def test_events_reach_watchers_connected_to_another_process(
    server_config: ServerConfig, migrated_database_url: str, nats_url: str
) -> None:
    """Two server processes on one database and one NATS: a race played on one is seen
    on the other."""
    config = replace(server_config, nats_url=nats_url)
    async with (
        ArenaServer(config, migrated_database_url) as first,
        ArenaServer(config, migrated_database_url) as other,
    ):
        ann = Client(await ws_connect(first.url, max_queue=None))
        await ann.ok("hello", name="Ann")
        created = await ann.ok("create_race", variant="klondike", seed=8, countdown_s=0)
        race, game = created["race"]["race"], created["race"]["your_game"]
        bob = Client(await ws_connect(other.url, max_queue=None))
        await bob.ok("hello", name="Bob")
        joined = await bob.ok("join_race", race=race)  # stored by the other process
        assert [p["name"] for p in joined["race"]["players"]] == ["Ann", "Bob"]
        lobby = await ann.event("lobby", race, lambda e: len(e["event"]["players"]) == 2)
        await ann.ok("start_race", race=race)
        start = await bob.event("start", race)
        assert start["seq"] == lobby["seq"] + 1
        await ann.ok("move", game=game, text="d")
        progress = await bob.event("progress", race)
        assert progress["event"]["standings"][0]["name"] == "Ann"
        await bob.ok("move", game=joined["race"]["your_game"], text="d")
        seen = await ann.event(
            "progress", race, lambda e: e["event"]["standings"][0]["name"] == "Bob"
        )
        assert seen["seq"] > progress["seq"]
        await bob.close()
        await ann.close()


async def test_nobody_sees_a_card_of_the_deal_before_the_start(connect: Any) -> None:
    """In the lobby and the countdown the board lies face down; at the start it turns up."""
    ann = await connect(name="Ann")
    race = (await ann.ok("create_race", variant="klondike", start="manual", countdown_s=0))["race"]
    lobby = (await ann.ok("get_view", game=race["your_game"]))["view"]
    assert all(column["up"] == [] for column in lobby["tableau"])
    assert [column["down"] for column in lobby["tableau"]] == [1, 2, 3, 4, 5, 6, 7]
    assert lobby["legal_moves"] == {} and lobby["waste"]["visible"] == []
    assert "seed" not in lobby and "deal_code" not in lobby
    await ann.error("check", "solver_help_disabled", game=race["your_game"])
    await ann.error("move", "not_started", game=race["your_game"], text="d")
    await ann.ok("start_race", race=race["race"])
    started = (await ann.ok("get_view", game=race["your_game"]))["view"]
    assert all(len(column["up"]) == 1 for column in started["tableau"])
    assert started["legal_moves"]


async def test_a_helped_race_tells_nothing_of_its_deal_before_the_start(connect: Any) -> None:
    ann = await connect(name="Ann")
    race = await ann.ok(
        "create_race", variant="yukon", start="manual", solver_help=True, allow_hints=True
    )
    race = race["race"]
    await ann.error("check", "not_started", game=race["your_game"])
    await ann.error("hint", "not_started", game=race["your_game"])


async def test_only_a_race_dealt_by_the_server_without_the_solver_ranks(connect: Any) -> None:
    ann = await connect(name="Ann")
    dealt = (await ann.ok("create_race", variant="klondike"))["race"]["settings"]
    chosen = (await ann.ok("create_race", variant="klondike", seed=1))["race"]["settings"]
    helped = (await ann.ok("create_race", variant="yukon", solver_help=True))["race"]["settings"]
    assert (dealt["ranked"], chosen["ranked"], helped["ranked"]) == (True, False, False)
