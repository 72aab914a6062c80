"""Who is human: a barred player's results leave every board at once and stay off while
barred; lifting the bar brings them back as they were; derived data is rebuilt."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import asyncpg
import pytest
from arena_client import SERVICE_TOKEN, Client
from rated_races import play_rated_race, rating_changes
from test_leaderboard_protocol import store_todays_deal

import engine
from engine.solver import solve
from server.ops.cli import main
from server.services.bars import Bars
from server.services.review import FairPlay
from server.store.bars import BarStore
from server.store.reviews import Reviews
from server.store.storage import Storage
from server.transport.app import ArenaServer

ANN = {"user": "discord:111", "name": "Ann"}
BOB = {"user": "discord:222", "name": "Bob"}
CY = {"user": "discord:333", "name": "Cy"}


async def solo_race(bot: Client, act_as: dict[str, str]) -> int:
    """A race of one the player gives up at once: a result that counts (nothing to review)."""
    created = await bot.ok(
        "create_race",
        variant="klondike",
        max_players=1,
        start="now",
        require_winnable=False,
        act_as=act_as,
    )
    await bot.ok("resign", game=created["race"]["your_game"], act_as=act_as)
    return int(created["race"]["race"])


async def players(bot: Client, request: str, **fields: Any) -> list[str]:
    """The names on a board, as Bob (the bot acts for someone in every request) sees it."""
    reply = await bot.ok(request, act_as=BOB, **fields)
    return [line["name"] for line in reply["lines"]]


async def solitaire(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """``solitaire …`` run as the command runs (off the server's event loop)."""
    status = await asyncio.to_thread(main, list(argv))
    return status, capsys.readouterr().out


# Rated races of two (Ann and Bob, then Bob and Cy) until nobody is provisional any more
# (docs/ratings.md): the all-time board ranks by rating.
RACES_TO_RANK = 6


async def test_a_barred_player_leaves_every_board_at_once_and_comes_back_unbarred(
    server: ArenaServer,
    connect: Any,
    migrated_database_url: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    await store_todays_deal(migrated_database_url)
    bot = await connect(service_token=SERVICE_TOKEN)
    for pair in ([ANN, BOB], [BOB, CY]):
        for _ in range(RACES_TO_RANK):
            race = await play_rated_race(server, bot, pair, winners=[])
            await rating_changes(bot, race)
    for who in (ANN, BOB):
        await solo_race(bot, who)
        attempt = await bot.ok("daily_start", variant="klondike", act_as=who)
        await bot.ok("resign", game=attempt["game"], act_as=who)
    # Bob, with twice the rated games, is the surest: first.
    board = await players(bot, "leaderboard", variant="klondike")
    assert board[0] == "Bob" and sorted(board) == ["Ann", "Bob", "Cy"]
    rating = (await bot.ok("player_ratings", act_as=BOB))["ratings"][0]
    assert await players(bot, "daily_board", variant="klondike") == ["Ann", "Bob"]
    db = ("--database-url", migrated_database_url)

    status, out = await solitaire(capsys, "players", "bar", "discord:111", "--reason", "bot", *db)
    assert status == 0
    barred = f"barred: {RACES_TO_RANK + 1} race results and 1 daily attempts"
    assert "Ann (discord:111, id" in out and barred in out
    # At once, on every board (the all-time board was kept in memory from just before).
    assert await players(bot, "leaderboard", variant="klondike") == ["Bob", "Cy"]
    assert await players(bot, "daily_board", variant="klondike") == ["Bob"]
    # Ratings are rebuilt without Ann's games: Bob's races against Cy are all that count.
    rebuilt = (await bot.ok("player_ratings", act_as=BOB))["ratings"][0]
    assert rating["games"] == 2 * RACES_TO_RANK and rebuilt["games"] == RACES_TO_RANK
    assert rebuilt["deviation"] > rating["deviation"]
    assert (await bot.ok("player_stats", act_as=ANN))["variants"] == []
    around = await bot.ok("leaderboard", variant="klondike", around_me=True, act_as=ANN)
    assert "me" not in around
    # What a barred player finishes later stays off too.
    await solo_race(bot, ANN)
    assert (await bot.ok("player_stats", act_as=ANN))["variants"] == []
    status, out = await solitaire(capsys, "players", "barred", *db)
    assert "discord:111\tAnn\tbarred" in out and out.rstrip().endswith(": bot")

    status, out = await solitaire(capsys, "players", "unbar", "discord:111", *db)
    unbarred = f"unbarred: {RACES_TO_RANK + 2} race results and 1 daily attempts back"
    assert unbarred in out
    assert await players(bot, "leaderboard", variant="klondike") == board
    assert (await bot.ok("player_ratings", act_as=BOB))["ratings"][0] == rating
    assert (await bot.ok("player_stats", act_as=ANN))["variants"][0]["games"] == RACES_TO_RANK + 3
    status, out = await solitaire(capsys, "players", "barred", *db)
    assert out == ""
    status, _ = await solitaire(capsys, "players", "bar", "discord:999", *db)
    assert status == 1


@pytest.fixture
async def pool(migrated_database_url: str) -> AsyncIterator[asyncpg.Pool]:
    async with asyncpg.create_pool(migrated_database_url, min_size=1, max_size=3) as opened:
        yield opened


async def won_race_result(pool: asyncpg.Pool, player: int, time_ms: int) -> int:
    """A finished race's won result, stored unreviewed, with its move log (Yukon seed 2)."""
    game = engine.new_game("yukon", seed=2)
    line = [move.notation() for move in solve(game.rules, game.position, 2_000_000, 60).moves]
    race = await pool.fetchval(
        "insert into races (creator_id, variant, seed, salt, commitment, state, max_players, "
        "start_mode, countdown_s, allow_undo, allow_hints) "
        "values ($1, 'yukon', 2, 's', 'c', 'finished', 1, 'now', 0, true, false) returning id",
        player,
    )
    entry = await pool.fetchval(
        "insert into entries (race_id, player_id, variant, seed, status, finished_at) "
        "values ($1, $2, 'yukon', 2, 'won', $3) returning id",
        race,
        player,
        datetime.now(UTC),
    )
    await pool.executemany(
        "insert into moves (game_id, seq, action) values ($1, $2, $3)",
        [(entry, seq, action) for seq, action in enumerate(line)],
    )
    await pool.execute(
        "insert into results (entry_id, race_id, player_id, rank, finished, time_ms, moves, "
        "foundation, score) values ($1, $2, $3, 1, true, $4, $5, 52, 0)",
        entry,
        race,
        player,
        time_ms,
        len(line),
    )
    return int(entry)


async def test_a_win_waiting_for_review_is_reviewed_when_the_bar_is_lifted(
    pool: asyncpg.Pool,
) -> None:
    ann = await pool.fetchval(
        "insert into players (principal, display_name) values ('discord:1', 'Ann') returning id"
    )
    rebuilt: list[list[int]] = []

    async def rebuild(_pool: asyncpg.Pool, players: list[int]) -> None:
        rebuilt.append(players)

    bars = Bars(BarStore(pool), FairPlay(Storage(pool), Reviews(pool)), pool, (rebuild,))
    entry = await won_race_result(pool, ann, time_ms=3_600_000)
    change = await bars.bar(ann, "looks like a program")
    assert (change.changed, change.results, rebuilt) == (True, 1, [[ann]])
    held = await pool.fetchrow("select held, held_unbarred from results where entry_id=$1", entry)
    assert (held["held"], held["held_unbarred"]) == ("barred", "unreviewed")
    # The review that would have released it finds nothing to decide while barred.
    assert await FairPlay(Storage(pool), Reviews(pool)).review([entry]) == 0
    assert (await bars.bar(ann, None)).changed is False  # barred already

    change = await bars.unbar(ann)
    assert (change.changed, change.to_review) == (True, [entry])
    assert await pool.fetchval("select held from results where entry_id=$1", entry) is None
    assert rebuilt == [[ann], [ann], [ann]]
    assert (await bars.unbar(ann)).changed is False


async def test_a_result_written_while_a_bar_is_under_way_is_held(pool: asyncpg.Pool) -> None:
    ann = await pool.fetchval(
        "insert into players (principal, display_name) values ('discord:1', 'Ann') returning id"
    )
    async with pool.acquire() as barring, barring.transaction():
        await barring.execute("update players set barred_at = now() where id = $1", ann)
        # A race ends now, in another transaction: it waits for the bar, then sees it.
        ending = asyncio.create_task(won_race_result(pool, ann, time_ms=3_600_000))
        await asyncio.sleep(0.3)
        assert not ending.done()
    entry = await ending
    assert await pool.fetchval("select held from results where entry_id=$1", entry) == "barred"
