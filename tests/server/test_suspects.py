"""Who is human: the signals of machine-made play (regularity, speed, the solver's moves),
each computed, and the players they flag listed by `solitaire players suspects`."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest

import engine
from engine.solver import Verdict, solve
from server.core import suspicion
from server.ops.cli import main
from server.services.suspects import solver_match
from server.store.suspects import WonGame

NODES = 200_000  # the review's default budget per decision


def solvers_line(variant: str, seed: int, limit: int = 1000) -> list[str]:
    """A game a program plays by asking the solver before every move, to the win."""
    game = engine.new_game(variant, seed=seed)
    while not game.rules.is_won(game.position) and len(game.actions) < limit:
        result = solve(game.rules, game.position, NODES, 600)
        assert result.verdict is Verdict.WON
        game.play(result.moves[0])
    return list(game.actions)


class TestSignals:
    def test_a_metronome_is_regular_and_fast(self) -> None:
        found = suspicion.signals(3, [250.0, 252.0, 249.0] * 20, matched=0, judged=0)
        assert found.median_gap_ms == 250.0
        assert found.regularity is not None and found.regularity < 0.01
        assert found.flags == ["regular", "fast"]
        assert found.solver_match is None  # too few positions judged to say

    def test_a_person_varies_and_pauses_do_not_count(self) -> None:
        rng = random.Random(4)
        gaps = [rng.uniform(600, 6000) for _ in range(60)] + [60_000.0, 120_000.0]
        found = suspicion.signals(3, gaps, matched=9, judged=40)
        assert found.gaps == 60
        assert found.regularity is not None and found.regularity > 0.35
        assert found.median_gap_ms is not None and found.median_gap_ms > 1000
        assert found.solver_match == 9 / 40
        assert found.flags == []

    def test_too_little_play_says_nothing(self) -> None:
        found = suspicion.signals(1, [250.0] * 5, matched=10, judged=10)
        assert (found.median_gap_ms, found.regularity, found.solver_match) == (None, None, None)
        assert found.flags == []


def test_the_solver_match_of_a_solver_program_and_of_a_contrarian() -> None:
    line = solvers_line("yukon", 2)
    matched, judged = solver_match(WonGame(1, "yukon", {}, 2, line), 40, NODES)
    assert judged >= suspicion.SOLVER_POSITIONS and matched == judged

    # Someone who never plays the solver's move where there is a choice.
    game = engine.new_game("yukon", seed=2)
    for _ in range(25):
        legal = [move.notation() for move in game.legal_list()]
        result = solve(game.rules, game.position, NODES, 600)
        best = result.moves[0].notation() if result.verdict is Verdict.WON else None
        game.play_action(next((m for m in legal if m != best), legal[0]))
    matched, judged = solver_match(WonGame(2, "yukon", {}, 2, list(game.actions)), 40, NODES)
    assert judged > 0 and matched == 0


@pytest.fixture
async def pool(migrated_database_url: str) -> AsyncIterator[asyncpg.Pool]:
    async with asyncpg.create_pool(migrated_database_url, min_size=1, max_size=2) as opened:
        yield opened


async def won_games(pool: asyncpg.Pool, principal: str, gaps_ms: list[float], games: int) -> int:
    """A player with ``games`` won races of the solver's Yukon line, moves ``gaps_ms`` apart."""
    player = await pool.fetchval(
        "insert into players (principal, display_name) values ($1, $1) returning id", principal
    )
    line = solvers_line("yukon", 2)
    for _ in range(games):
        race = await pool.fetchval(
            "insert into races (creator_id, variant, seed, salt, commitment, state, max_players, "
            "start_mode, countdown_s, allow_undo, allow_hints) "
            "values ($1, 'yukon', 2, 's', 'c', 'finished', 1, 'now', 0, true, false) returning id",
            player,
        )
        started = datetime.now(UTC) - timedelta(hours=1)
        times = [started]
        for seq in range(1, len(line)):
            times.append(times[-1] + timedelta(milliseconds=gaps_ms[seq % len(gaps_ms)]))
        entry = await pool.fetchval(
            "insert into entries (race_id, player_id, variant, seed, status, finished_at) "
            "values ($1, $2, 'yukon', 2, 'won', $3) returning id",
            race,
            player,
            times[-1],
        )
        await pool.executemany(
            "insert into moves (game_id, seq, action, played_at) values ($1, $2, $3, $4)",
            [(entry, seq, action, times[seq]) for seq, action in enumerate(line)],
        )
    return int(player)


async def test_the_review_lists_who_plays_like_a_machine_with_each_signal(
    pool: asyncpg.Pool, migrated_database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = random.Random(7)
    machine = await won_games(pool, "discord:1", [250.0, 251.0, 249.0], games=3)
    person = await won_games(pool, "discord:2", [rng.uniform(700, 7000) for _ in range(97)], 3)
    await won_games(pool, "discord:3", [250.0], games=1)  # too few wins to judge
    db = ("--database-url", migrated_database_url)

    status = await asyncio.to_thread(main, ["players", "suspects", "--solver-games", "0", *db])
    out = capsys.readouterr().out.splitlines()
    assert status == 0
    assert out[0].split("\t") == [
        "player", "principal", "name", "wins", "gaps", "median ms", "regularity",
        "solver match", "flags",
    ]  # fmt: skip
    assert len(out) == 2  # the machine alone
    row = out[1].split("\t")
    assert row[:4] == [str(machine), "discord:1", "discord:1", "3"]
    assert row[5] == "250" and float(row[6]) < 0.01 and row[7] == "- of 0"
    assert row[8] == "regular fast"

    everyone = ["players", "suspects", "--solver-games", "1", "--all", *db]
    status = await asyncio.to_thread(main, everyone)
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()[1:]]
    by_player = {int(row[0]): row for row in rows}
    assert set(by_player) == {machine, person}
    assert by_player[machine][8] == "regular fast solver"
    assert by_player[machine][7].startswith("1.00 of ")
    # The person's moves are the solver's too (the same line), only their time is human.
    assert by_player[person][8] == "solver"
    assert float(by_player[person][6]) > 0.35 and float(by_player[person][5]) > 1000
    assert [int(row[0]) for row in rows] == [machine, person]  # most flags first
