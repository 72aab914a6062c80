"""A race played through several server processes at once has one owner.

Issue #21: with ``--processes 2`` and players landing on either process, each process
numbered the race's events and ran its clock, so a start or a move lost the event
number to the other process (a false ``conflict``), and each process sent progress at
its own pace (events every ~85 ms instead of at most one per 250 ms). Now one process
holds the race's lease; the other commits its players' moves and reports them.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from arena_client import Client
from server_process import free_port, open_client, server_process, wait_healthy

from server.core.place import Place
from server.ops.config import ServerConfig
from server.transport.processes import worker_place
from server.transport.routing import chosen_process

MOVES_EACH = 40
PROGRESS_INTERVAL_MS = 250


async def play_draws(client: Client, game: int, count: int) -> list[str]:
    """Draw from the stock ``count`` times, one move at a time; the error codes met."""
    errors = []
    for _ in range(count):
        reply = await client.request("move", game=game, text="d")
        if reply["type"] == "error":
            errors.append(reply["code"])
    return errors


async def test_players_on_two_processes_meet_no_false_conflict(
    migrated_database_url: str, tmp_path: Path
) -> None:
    port = free_port()
    log = tmp_path / "server.log"
    with server_process(migrated_database_url, port, log, "--processes", "2"):
        await wait_healthy(port)
        # The creator on process 0, the others on process 1 (and a watcher on each).
        ann = await open_client(port, "/?process=0", name="Ann")
        bob = await open_client(port, "/?process=1", name="Bob")
        cy = await open_client(port, "/?process=1", name="Cy")
        far = await open_client(port, "/?process=1", name="Watcher")
        clients = (ann, bob, cy, far)
        for race_number in range(3):
            created = await ann.ok("create_race", variant="klondike", seed=8, countdown_s=0)
            race = created["race"]["race"]
            games = {"Ann": created["race"]["your_game"]}
            for player, name in ((bob, "Bob"), (cy, "Cy")):
                joined = await player.ok("join_race", race=race)
                games[name] = joined["race"]["your_game"]
            await far.ok("get_race", race=race)
            # The start comes at once from the process that did not number the joins.
            started = await ann.request("start_race", race=race)
            assert started["type"] == "race", (race_number, started)
            assert started["race"]["state"] == "running"
            # The owner started the race with the players who joined through the other.
            assert sorted(s["name"] for s in started["race"]["players"]) == ["Ann", "Bob", "Cy"]
            errors = await asyncio.gather(
                play_draws(ann, games["Ann"], MOVES_EACH),
                play_draws(bob, games["Bob"], MOVES_EACH),
                play_draws(cy, games["Cy"], MOVES_EACH),
            )
            assert errors == [[], [], []], race_number
            # The watcher on the other process sees every player's last count ...
            await far.event(
                "progress",
                race,
                lambda e: any(
                    s["name"] == "Cy" and s["moves"] == MOVES_EACH for s in e["event"]["standings"]
                ),
            )
            # ... numbered without a gap, one owner's progress at most every 250 ms
            # (a resignation is sent at once, so only the moves' progress is counted).
            played = [e for e in far.events if e["race"] == race]
            times = [e["time"] for e in played if e["event"]["kind"] == "progress"]
            gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
            assert gaps and all(gap >= PROGRESS_INTERVAL_MS for gap in gaps), [
                (e["seq"], e["time"], e["event"]) for e in played
            ]
            for player, name in ((cy, "Cy"), (bob, "Bob"), (ann, "Ann")):
                await player.ok("resign", game=games[name])
            end = await far.event("end", race)
            ranking = [line["name"] for line in end["event"]["ranking"]]
            assert sorted(ranking) == ["Ann", "Bob", "Cy"]
            numbers = [e["seq"] for e in far.events if e["race"] == race]
            assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))  # each once
            kinds = [e["event"]["kind"] for e in far.events if e["race"] == race]
            assert "lobby" not in kinds[kinds.index("start") :]
        for client in clients:
            await client.close()


def test_a_race_address_names_its_host_then_its_worker() -> None:
    config = ServerConfig(hosts=3, host_index=1, processes=2)
    places = [worker_place(config, worker) for worker in range(2)]
    assert places == [Place(1, 6), Place(4, 6)]
    # A race created by worker 1 of host 1 has an id that the proxy sends to host 1
    # (id % 3) and that host's front to worker 1.
    race = 10
    assert places[1].owns(race) and race % 3 == 1
    assert chosen_process(f"GET /races/{race} HTTP/1.1".encode(), 2, turn=0, hosts=3) == 1
    assert chosen_process(b"GET /races/7 HTTP/1.1", 2, turn=0, hosts=3) == 0


@pytest.mark.parametrize(
    "processes",
    [
        # On the owner, a mirror, the owner: the owner's copy fell behind meanwhile.
        (0, 1, 0),
        # On a mirror, the owner, the mirror: the mirror's copy fell behind meanwhile.
        (1, 0, 1),
    ],
)
async def test_a_player_who_comes_back_to_a_process_meets_no_false_conflict(
    migrated_database_url: str, tmp_path: Path, processes: tuple[int, int, int]
) -> None:
    # Bob plays through one process, then the other, then the first again (process 0
    # owns the race): the copy of his game cached on the first is dropped in between.
    port = free_port()
    with server_process(migrated_database_url, port, tmp_path / "server.log", "--processes", "2"):
        await wait_healthy(port)
        ann = await open_client(port, "/?process=0", name="Ann")
        created = await ann.ok("create_race", variant="klondike", seed=8, countdown_s=0)
        race = created["race"]["race"]
        bob = await open_client(port, "/?process=0", name="Bob")
        game = (await bob.ok("join_race", race=race))["race"]["your_game"]
        await ann.ok("start_race", race=race)
        token = bob.welcome["token"]
        total = 0
        for process, moves in zip(processes, (2, 3, 2), strict=True):
            await bob.close()
            bob = await open_client(port, f"/?process={process}", token=token)
            await bob.ok("get_race", race=race)
            for _ in range(moves):
                await bob.ok("move", game=game, text="d")  # never a conflict
            total += moves
            # Everyone has heard of the moves before Bob moves on elsewhere.
            await ann.event(
                "progress",
                race,
                lambda e, n=total: any(
                    s["name"] == "Bob" and s["moves"] == n for s in e["event"]["standings"]
                ),
            )
        view = await bob.ok("get_view", game=game)
        assert view["view"]["counters"]["moves"] == 7
        await bob.close()
        await ann.close()


@dataclass
class MirroredRace:
    """A race created through process 0 (its owner) that Bob joined through process 1."""

    database_url: str
    port: int
    race: int
    ann: Client
    anns_game: int
    bob: Client
    bobs_game: int

    async def commit_unreported(self, *statements: tuple[str, *tuple[Any, ...]]) -> None:
        """What a mirror that died right after its commit stored: in one transaction, and
        no report of it reaches the owner."""
        connection = await asyncpg.connect(self.database_url)
        try:
            async with connection.transaction():
                for sql, *args in statements:
                    await connection.execute(sql, *args)
        finally:
            await connection.close()


@contextlib.asynccontextmanager
async def mirrored_race(database_url: str, tmp_path: Path) -> AsyncIterator[MirroredRace]:
    """Two server processes and a race in its lobby with a player on each."""
    port = free_port()
    log = tmp_path / "server.log"
    with server_process(database_url, port, log, "--processes", "2", lease_seconds="1.5"):
        await wait_healthy(port)
        ann = await open_client(port, "/?process=0", name="Ann")
        created = (await ann.ok("create_race", variant="klondike", seed=8, countdown_s=0))["race"]
        bob = await open_client(port, "/?process=1", name="Bob")
        joined = (await bob.ok("join_race", race=created["race"]))["race"]
        yield MirroredRace(
            database_url,
            port,
            created["race"],
            ann,
            created["your_game"],
            bob,
            joined["your_game"],
        )
        await ann.close()
        await bob.close()


async def test_lobby_changes_whose_reports_were_lost_still_reach_its_players(
    migrated_database_url: str, tmp_path: Path
) -> None:
    # A mirror's report of a join or a leave is lost when the mirror dies right after
    # its commit, or when it reaches NATS before the owner listens to the race (a race
    # just created or taken over). The owner finds the change at its next lease renewal.
    async with mirrored_race(migrated_database_url, tmp_path) as mirrored:
        ann, race = mirrored.ann, mirrored.race
        await ann.event("lobby", race, predicate=lambda e: len(e["event"]["players"]) == 2)
        cy = await open_client(mirrored.port, "/?process=1", name="Cy")
        # What the dead mirror committed: Bob left, Cy joined.
        await mirrored.commit_unreported(
            ("update entries set status = 'left' where id = $1", mirrored.bobs_game),
            (
                """
                insert into entries (race_id, player_id, variant, options, seed,
                    seed_public, created_at, racer_name)
                select race_id, $2, variant, options, seed, seed_public, created_at, 'Cy'
                from entries where id = $1
                """,
                mirrored.bobs_game,
                cy.welcome["player"]["id"],
            ),
        )
        lobby = await ann.event(
            "lobby", race, predicate=lambda e: "Cy" in str(e["event"]["players"])
        )
        assert sorted(p["name"] for p in lobby["event"]["players"]) == ["Ann", "Cy"]
        started = await ann.ok("start_race", race=race)
        assert sorted(p["name"] for p in started["race"]["players"]) == ["Ann", "Cy"]
        await cy.close()


async def test_a_finish_whose_report_was_lost_still_ends_the_race(
    migrated_database_url: str, tmp_path: Path
) -> None:
    # A mirror that dies right after committing a player's resignation never reports
    # it. The owner finds it in the database at its next lease renewal.
    async with mirrored_race(migrated_database_url, tmp_path) as mirrored:
        ann, bob, race = mirrored.ann, mirrored.bob, mirrored.race
        await ann.ok("start_race", race=race)
        await bob.ok("move", game=mirrored.bobs_game, text="d")
        await bob.close()
        # What the dead mirror committed: Bob's resignation.
        await mirrored.commit_unreported(
            ("update entries set status = 'resigned' where id = $1", mirrored.bobs_game)
        )
        await ann.ok("resign", game=mirrored.anns_game)
        end = await ann.event("end", race)
        ranking = [(line["name"], line["resigned"]) for line in end["event"]["ranking"]]
        assert sorted(ranking) == [("Ann", True), ("Bob", True)]
