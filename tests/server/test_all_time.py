"""The all-time board of a variant, on a real PostgreSQL: order, ties, guilds, pages, "me".

Ranked daily attempts and race games are written as the server stores them, with
chosen results (``Store`` of test_leaderboard), so each test states the board it expects.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import date, timedelta

import asyncpg
import pytest
from test_leaderboard import NOON, Clock, Store

from server import protocol as p
from server.core.identity import Principal
from server.protocol.errors import GameError
from server.services.leaderboard import Leaderboard
from server.store.boards import BoardStore
from server.store.migrations import migrate

DAY = date(2026, 3, 14)


class Games(Store):
    """Store, plus games of finished races."""

    async def race_game(
        self,
        player: int,
        *,
        won: bool = True,
        time_ms: int | None = 60_000,
        variant: str = "klondike",
        guild: str | None = None,
    ) -> int:
        race = await self.pool.fetchval(
            "insert into races (creator_id, variant, seed, salt, commitment, state, max_players, "
            "start_mode, countdown_s, allow_undo, allow_hints, guild_id) "
            "values ($1, $2, 7, 's', 'c', 'finished', 8, 'now', 0, true, false, $3) returning id",
            player,
            variant,
            guild,
        )
        game = await self.pool.fetchval(
            "insert into entries (race_id, player_id, variant, seed, guild_id, status) "
            "values ($1, $2, $3, 7, $4, $5) returning id",
            race,
            player,
            variant,
            guild,
            "won" if won else "resigned",
        )
        await self.pool.execute(
            # a reviewed result of a ranked race: it counts (held is null)
            "insert into results (entry_id, race_id, player_id, rank, finished, time_ms, moves, "
            "foundation, score, held) values ($1, $2, $3, 1, $4, $5, 90, 52, 0, null)",
            game,
            race,
            player,
            won,
            time_ms if won else None,
        )
        return int(game)


@pytest.fixture
async def pool(database_url: str) -> AsyncIterator[asyncpg.Pool]:
    await migrate(database_url)
    async with asyncpg.create_pool(database_url, min_size=1, max_size=4) as pool:
        yield pool


@pytest.fixture
def clock() -> Clock:
    return Clock(NOON)


@pytest.fixture
def boards(pool: asyncpg.Pool, clock: Clock) -> Leaderboard:
    return Leaderboard(BoardStore(pool), clock, 3_600_000)


@pytest.fixture
def games(pool: asyncpg.Pool) -> Games:
    return Games(pool)


def asker(player_id: int = 0) -> Principal:
    return Principal(player_id, f"guest:asker{player_id}", "Asker", "en")


async def board(boards: Leaderboard, player: int = 0, **fields: object) -> p.AllTimeReply:
    fields.setdefault("variant", "klondike")
    message = p.AllTimeBoard(**fields)  # type: ignore[arg-type]
    return await boards.all_time(asker(player), message)


def names(reply: p.AllTimeReply) -> list[tuple[int, str]]:
    return [(line.rank, line.name) for line in reply.lines]


async def test_wins_then_win_rate_then_best_time(games: Games, boards: Leaderboard) -> None:
    ada, bob, cy, dee = [await games.player(n) for n in ("Ada", "Bob", "Cy", "Dee")]
    for days_ago in range(3):
        await games.attempt(ada, time_ms=90_000, day=DAY - timedelta(days=days_ago))
    await games.race_game(ada, won=False)  # 3 of 4
    await games.attempt(bob, time_ms=50_000)
    await games.race_game(bob, time_ms=70_000)
    await games.race_game(bob, time_ms=40_000)  # 3 of 3: a better rate than Ada
    await games.attempt(cy, time_ms=30_000)
    await games.attempt(cy, time_ms=10_000, day=DAY - timedelta(days=1))  # 2 of 2, faster
    await games.race_game(dee, time_ms=20_000)
    await games.race_game(dee, time_ms=25_000)  # 2 of 2, slower than Cy

    reply = await board(boards)
    assert names(reply) == [(1, "Bob"), (2, "Ada"), (3, "Cy"), (4, "Dee")]
    assert reply.total == 4 and reply.scope == "global" and reply.page == 1
    bob_line = reply.lines[0]
    assert (bob_line.games, bob_line.wins, bob_line.win_rate, bob_line.best_time_ms) == (
        3,
        3,
        1.0,
        40_000,
    )
    assert (reply.lines[1].games, reply.lines[1].wins, reply.lines[1].win_rate) == (4, 3, 0.75)
    assert reply.lines[2].best_time_ms == 10_000


async def test_equal_results_share_a_rank_and_games_lost_count(
    games: Games, boards: Leaderboard
) -> None:
    ann, ben, cat = [await games.player(n) for n in ("Ann", "Ben", "Cat")]
    await games.attempt(ann, time_ms=60_000)
    await games.attempt(ben, time_ms=60_000)
    await games.attempt(cat, won=False)
    await games.attempt(ann, won=False, day=DAY - timedelta(days=2))
    await games.attempt(ben, won=False, day=DAY - timedelta(days=2))
    reply = await board(boards)
    assert names(reply) == [(1, "Ann"), (1, "Ben"), (3, "Cat")]
    assert reply.lines[2].wins == 0 and reply.lines[2].best_time_ms is None


async def test_only_ranked_dailies_that_are_over_and_the_variant_count(
    games: Games, boards: Leaderboard
) -> None:
    ann, ben = await games.player("Ann"), await games.player("Ben")
    await games.attempt(ann, ranked=False, time_ms=1_000)  # practice counts for nothing
    await games.attempt(ben, status="playing", won=False, time_ms=None)  # not over yet
    await games.attempt(ann, variant="yukon")
    await games.race_game(ben, variant="spider-1")
    assert (await board(boards)).total == 0
    assert names(await board(boards, variant="yukon")) == [(1, "Ann")]
    assert names(await board(boards, variant="spider-1")) == [(1, "Ben")]


async def test_a_guild_board_counts_only_games_played_there(
    games: Games, boards: Leaderboard
) -> None:
    ann, ben = await games.player("Ann"), await games.player("Ben")
    await games.attempt(ann, guild="g1")
    await games.race_game(ann, guild="g2")
    await games.race_game(ann, guild="g2")
    await games.race_game(ben, guild="g1")
    await games.race_game(ben, guild="g1", won=False)
    g1 = await board(boards, guild_id="g1")
    assert g1.scope == "guild" and names(g1) == [(1, "Ann"), (2, "Ben")]
    assert [(line.games, line.wins) for line in g1.lines] == [(1, 1), (2, 1)]
    assert names(await board(boards, guild_id="g2")) == [(1, "Ann")]
    assert names(await board(boards)) == [(1, "Ann"), (2, "Ben")]


async def test_pages_continue_the_ranks_and_past_the_end_is_empty(
    games: Games, boards: Leaderboard
) -> None:
    players = [await games.player(f"P{i}") for i in range(7)]
    for wins, player in enumerate(players):  # P6 has the most wins
        for day in range(wins):
            await games.attempt(player, day=DAY - timedelta(days=day))
    await games.attempt(players[0], won=False)  # on the board with no win
    first = await board(boards, page_size=3)
    second = await board(boards, page=2, page_size=3)
    last = await board(boards, page=3, page_size=3)
    assert [line.name for line in first.lines] == ["P6", "P5", "P4"]
    assert [line.rank for line in second.lines] == [4, 5, 6]
    assert [line.name for line in last.lines] == ["P0"] and last.lines[0].wins == 0
    beyond = await board(boards, page=9, page_size=3)
    assert beyond.lines == [] and beyond.total == 7


async def test_around_me(games: Games, boards: Leaderboard) -> None:
    players = [await games.player(f"P{i}") for i in range(6)]
    for wins, player in enumerate(players):
        for day in range(wins + 1):
            await games.attempt(player, day=DAY - timedelta(days=day))
    middle = await board(boards, players[2], around_me=True, span=1)
    assert [line.name for line in middle.lines] == ["P3", "P2", "P1"]
    assert middle.me is not None and middle.me.name == "P2" and middle.me.rank == 4
    assert middle.page is None and middle.total == 6
    top = await board(boards, players[5], around_me=True, span=2)
    assert [line.rank for line in top.lines] == [1, 2, 3]
    outsider = await games.player("Nobody")
    missing = await board(boards, outsider, around_me=True)
    assert missing.me is None and missing.lines == [] and missing.total == 6


async def test_an_unknown_variant_is_refused(boards: Leaderboard) -> None:
    with pytest.raises(GameError) as refused:
        await board(boards, variant="chess")
    assert refused.value.code == "invalid_options"


async def test_a_board_is_kept_for_its_ttl_then_computed_again(
    games: Games, boards: Leaderboard, clock: Clock
) -> None:
    ann, ben = await games.player("Ann"), await games.player("Ben")
    await games.attempt(ann, won=False)
    assert names(await board(boards)) == [(1, "Ann")]
    await games.race_game(ben)
    assert names(await board(boards)) == [(1, "Ann")]  # kept: Ben's win is not counted yet
    assert names(await board(boards, guild_id="g9")) == []  # another board, computed now
    clock.ms += boards.all_time_boards.ttl_ms
    assert names(await board(boards)) == [(1, "Ben"), (2, "Ann")]


async def test_requests_at_once_share_one_computation(games: Games, boards: Leaderboard) -> None:
    ann = await games.player("Ann")
    await games.attempt(ann)
    kept = boards.all_time_boards
    first, second = await asyncio.gather(
        kept.ranking("klondike", None), kept.ranking("klondike", None)
    )
    assert first is second and [s.player for s in first.page(1, 10)] == [ann]
