"""The all-time board of a variant, on a real PostgreSQL: ranked by rating (the conservative
estimate, µ − 3σ), provisional players apart, with each player's record beside it.

Ratings, ranked daily attempts and race games are written as the server stores them, with
chosen values (``Store`` of test_leaderboard), so each test states the board it expects.
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
from server.core.ratings import Skill
from server.protocol.errors import GameError
from server.services.leaderboard import Leaderboard
from server.store.boards import BoardStore

DAY = date(2026, 3, 14)
KLONDIKE = '{"passes":0}'  # the pool of klondike's default options


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

    async def rate(
        self,
        player: int,
        mu: float,
        sigma: float = 3.0,
        *,
        variant: str = "klondike",
        options: str = KLONDIKE,
        games: int = 20,
    ) -> None:
        """The player's rating in a pool, as the ratings service stores it."""
        await self.pool.execute(
            "insert into ratings (variant, options, player_id, mu, sigma, games, rated_at) "
            "values ($1, $2, $3, $4, $5, $6, now())",
            variant,
            options,
            player,
            mu,
            sigma,
            games,
        )


@pytest.fixture
async def pool(migrated_database_url: str) -> AsyncIterator[asyncpg.Pool]:
    async with asyncpg.create_pool(migrated_database_url, min_size=1, max_size=4) as pool:
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


async def test_ranked_by_the_conservative_estimate_not_by_wins(
    games: Games, boards: Leaderboard
) -> None:
    ada, bob, cy, dee = [await games.player(n) for n in ("Ada", "Bob", "Cy", "Dee")]
    await games.rate(ada, mu=35.0, sigma=3.0)  # 26
    await games.rate(bob, mu=31.0, sigma=1.5)  # 26.5: surer, so ahead of Ada
    await games.rate(cy, mu=40.0, sigma=7.5)  # provisional: apart, however high
    await games.rate(dee, mu=28.0, sigma=2.0)  # 22
    for days_ago in range(5):  # Dee wins the most games: it does not rank Dee higher
        await games.attempt(dee, time_ms=90_000, day=DAY - timedelta(days=days_ago))

    reply = await board(boards)
    assert names(reply) == [(1, "Bob"), (2, "Ada"), (3, "Dee")]
    assert reply.total == 3 and reply.provisional == 1 and reply.scope == "global"
    assert reply.options == {"passes": 0} and reply.page == 1
    bob_line = reply.lines[0]
    assert bob_line.rating == Skill(31.0, 1.5).rating == 1677 and bob_line.deviation == 44
    assert bob_line.rated_games == 20


async def test_equal_estimates_share_a_rank(games: Games, boards: Leaderboard) -> None:
    ann, ben, cat = [await games.player(n) for n in ("Ann", "Ben", "Cat")]
    await games.rate(ann, mu=30.0, sigma=2.0)
    await games.rate(ben, mu=27.0, sigma=1.0)  # the same µ − 3σ as Ann
    await games.rate(cat, mu=20.0, sigma=2.0)
    assert names(await board(boards)) == [(1, "Ann"), (1, "Ben"), (3, "Cat")]


async def test_each_pool_has_its_own_board(games: Games, boards: Leaderboard) -> None:
    ann, ben = await games.player("Ann"), await games.player("Ben")
    await games.rate(ann, mu=30.0)
    await games.rate(ben, mu=30.0, variant="yukon", options="{}")
    await games.rate(ben, mu=30.0, options='{"passes":3}')
    assert names(await board(boards)) == [(1, "Ann")]
    assert names(await board(boards, options={"passes": 0})) == [(1, "Ann")]
    assert names(await board(boards, options={"passes": 3})) == [(1, "Ben")]
    assert names(await board(boards, variant="yukon")) == [(1, "Ben")]
    assert (await board(boards, variant="spider-1")).total == 0


async def test_a_guild_board_holds_the_players_who_played_there(
    games: Games, boards: Leaderboard
) -> None:
    ann, ben, cy = [await games.player(n) for n in ("Ann", "Ben", "Cy")]
    for player, mu in ((ann, 30.0), (ben, 35.0), (cy, 25.0)):
        await games.rate(player, mu=mu)
    await games.attempt(ann, guild="g1")
    await games.race_game(ben, guild="g2")
    await games.race_game(cy, guild="g1", won=False)
    await games.attempt(cy, guild="g1", variant="yukon")  # another variant: not this board
    await games.attempt(ben, guild="g1", ranked=False)  # practice there: not a guild player
    g1 = await board(boards, guild_id="g1")
    assert g1.scope == "guild" and names(g1) == [(1, "Ann"), (2, "Cy")]
    assert names(await board(boards, guild_id="g2")) == [(1, "Ben")]
    assert names(await board(boards)) == [(1, "Ben"), (2, "Ann"), (3, "Cy")]


async def test_pages_continue_the_ranks_and_past_the_end_is_empty(
    games: Games, boards: Leaderboard
) -> None:
    players = [await games.player(f"P{i}") for i in range(7)]
    for skill, player in enumerate(players):  # P6 rated highest
        await games.rate(player, mu=20.0 + skill)
    first = await board(boards, page_size=3)
    second = await board(boards, page=2, page_size=3)
    last = await board(boards, page=3, page_size=3)
    assert [line.name for line in first.lines] == ["P6", "P5", "P4"]
    assert [line.rank for line in second.lines] == [4, 5, 6]
    assert [line.name for line in last.lines] == ["P0"]
    beyond = await board(boards, page=9, page_size=3)
    assert beyond.lines == [] and beyond.total == 7


async def test_around_me(games: Games, boards: Leaderboard) -> None:
    players = [await games.player(f"P{i}") for i in range(6)]
    for skill, player in enumerate(players):
        await games.rate(player, mu=20.0 + skill)
    newcomer = await games.player("New")
    await games.rate(newcomer, mu=40.0, sigma=8.0)
    middle = await board(boards, players[2], around_me=True, span=1)
    assert [line.name for line in middle.lines] == ["P3", "P2", "P1"]
    assert middle.me is not None and middle.me.name == "P2" and middle.me.rank == 4
    assert middle.page is None and middle.total == 6
    top = await board(boards, players[5], around_me=True, span=2)
    assert [line.rank for line in top.lines] == [1, 2, 3]
    missing = await board(boards, newcomer, around_me=True)
    assert missing.me is None and missing.lines == [] and missing.total == 6
    assert missing.provisional == 1


async def test_an_unknown_variant_or_bad_options_are_refused(boards: Leaderboard) -> None:
    for fields in ({"variant": "chess"}, {"options": {"passes": "x"}}):
        with pytest.raises(GameError) as refused:
            await board(boards, **fields)
        assert refused.value.code == "invalid_options"


async def test_a_board_is_kept_for_its_ttl_then_computed_again(
    games: Games, boards: Leaderboard, clock: Clock
) -> None:
    ann, ben = await games.player("Ann"), await games.player("Ben")
    await games.rate(ann, mu=25.0)
    assert names(await board(boards)) == [(1, "Ann")]
    await games.rate(ben, mu=30.0)
    assert names(await board(boards)) == [(1, "Ann")]  # kept: Ben's rating is not seen yet
    assert names(await board(boards, guild_id="g9")) == []  # another board, computed now
    clock.ms += boards.all_time_boards.ttl_ms
    assert names(await board(boards)) == [(1, "Ben"), (2, "Ann")]


async def test_requests_at_once_share_one_computation(games: Games, boards: Leaderboard) -> None:
    ann = await games.player("Ann")
    await games.rate(ann, mu=25.0)
    kept = boards.all_time_boards
    first, second = await asyncio.gather(
        kept.ranking("klondike", None), kept.ranking("klondike", None)
    )
    assert first is second and [s.player for s in first.page(1, 10)] == [ann]
