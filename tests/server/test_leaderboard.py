"""Daily boards, "around me", guild scope and all-time figures, on a real PostgreSQL.

Attempts are written as the server stores them (an entry plus its daily_entries
row), with chosen results, so each test states the board it expects.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, timedelta

import asyncpg
import pytest

from server.core.calendar import day_start_ms
from server.services.leaderboard import Leaderboard, streaks
from server.store.boards import BoardStore
from server.store.daily_board import Board

DAY = date(2026, 3, 14)
NOON = day_start_ms(DAY) + 12 * 3_600_000


class Clock:
    """Server time a test sets by hand."""

    def __init__(self, ms: int) -> None:
        self.ms = ms

    def __call__(self) -> int:
        return self.ms


class Store:
    """Writes players, deals and finished attempts the way the server stores them."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool
        self._names = itertools.count(1)

    async def player(self, name: str | None = None) -> int:
        n = next(self._names)
        return int(
            await self.pool.fetchval(
                "insert into players (principal, display_name) values ($1, $2) returning id",
                f"guest:test{n}",
                name or f"Player {n}",
            )
        )

    async def deal(self, variant: str, day: date) -> None:
        await self.pool.execute(
            "insert into daily_deals (variant, day, seed, candidate, salt, commitment, verdict, "
            "solution_length, solver_nodes, solver_ms) "
            "values ($1, $2, 7, 0, 'salt', 'c', 'winnable', 90, 1, 1) on conflict do nothing",
            variant,
            day,
        )

    async def attempt(
        self,
        player: int,
        *,
        won: bool = True,
        time_ms: int | None = 60_000,
        moves: int = 100,
        variant: str = "klondike",
        day: date = DAY,
        ranked: bool = True,
        guild: str | None = None,
        status: str | None = None,
        undos: int = 0,
        hints: int = 0,
    ) -> int:
        await self.deal(variant, day)
        started = datetime(day.year, day.month, day.day, 9, tzinfo=UTC)
        game = int(
            await self.pool.fetchval(
                "insert into entries (player_id, variant, seed, guild_id, status) "
                "values ($1, $2, 7, $3, $4) returning id",
                player,
                variant,
                guild,
                "won" if won else "resigned",
            )
        )
        await self.pool.execute(
            "insert into daily_entries (entry_id, variant, day, player_id, guild_id, ranked, "
            "started_at, deadline, status, time_ms, moves, undos, hints, finished_at) "
            "values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $8)",
            game,
            variant,
            day,
            player,
            guild,
            ranked,
            started,
            started + timedelta(hours=1),
            status or ("won" if won else "resigned"),
            time_ms,
            moves,
            undos,
            hints,
        )
        return game


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
def store(pool: asyncpg.Pool) -> Store:
    return Store(pool)


def ranks(lines: list) -> list[tuple[int, int]]:  # type: ignore[type-arg]
    return [(line.rank, line.player) for line in lines]


class TestRankingOrder:
    async def test_wins_first_then_time_then_moves(self, store: Store, boards: Leaderboard):
        slow = await store.player()
        fast_many = await store.player()
        fast_few = await store.player()
        loser = await store.player()
        await store.attempt(loser, won=False, time_ms=1_000, moves=3)
        await store.attempt(slow, time_ms=90_000, moves=80)
        await store.attempt(fast_many, time_ms=50_000, moves=140)
        await store.attempt(fast_few, time_ms=50_000, moves=120)
        total, lines = await boards.page(Board("klondike", DAY), 1, 20)
        assert total == 4
        assert ranks(lines) == [(1, fast_few), (2, fast_many), (3, slow), (4, loser)]
        assert [line.status for line in lines] == ["won", "won", "won", "resigned"]

    async def test_equal_results_share_a_rank_and_keep_start_order(
        self, store: Store, boards: Leaderboard
    ):
        players = [await store.player() for _ in range(5)]
        await store.attempt(players[0], time_ms=40_000, moves=90)
        await store.attempt(players[1], time_ms=45_000, moves=90)
        await store.attempt(players[2], time_ms=45_000, moves=90)
        await store.attempt(players[3], won=False, time_ms=3_600_000)
        await store.attempt(players[4], won=False, status="out_of_time", time_ms=3_600_000)
        _, lines = await boards.page(Board("klondike", DAY), 1, 20)
        assert ranks(lines) == [
            (1, players[0]),
            (2, players[1]),
            (2, players[2]),
            (4, players[3]),
            (4, players[4]),
        ]

    async def test_pages_continue_the_ranks(self, store: Store, boards: Leaderboard):
        players = [await store.player() for _ in range(7)]
        for i, player in enumerate(players):
            await store.attempt(player, time_ms=10_000 * (i // 2 + 1))  # pairs tie
        total, second = await boards.page(Board("klondike", DAY), 2, 3)
        assert total == 7
        assert ranks(second) == [(3, players[3]), (5, players[4]), (5, players[5])]
        _, last = await boards.page(Board("klondike", DAY), 3, 3)
        assert ranks(last) == [(7, players[6])]
        _, beyond = await boards.page(Board("klondike", DAY), 4, 3)
        assert beyond == []

    async def test_undos_and_hints_are_shown(self, store: Store, boards: Leaderboard):
        player = await store.player("Ada")
        await store.attempt(player, undos=4, hints=2)
        _, (line,) = await boards.page(Board("klondike", DAY), 1, 20)
        assert (line.name, line.undos, line.hints) == ("Ada", 4, 2)

    async def test_a_board_holds_one_variant_and_one_day(self, store: Store, boards: Leaderboard):
        player = await store.player()
        await store.attempt(player, variant="yukon")
        await store.attempt(player, day=DAY - timedelta(days=1))
        total, lines = await boards.page(Board("klondike", DAY), 1, 20)
        assert (total, lines) == (0, [])
        total, lines = await boards.page(Board("yukon", DAY), 1, 20)
        assert total == 1

    async def test_practice_attempts_are_a_board_apart(self, store: Store, boards: Leaderboard):
        first = await store.player()
        other = await store.player()
        await store.attempt(first, time_ms=90_000)
        await store.attempt(first, time_ms=20_000, ranked=False)
        await store.attempt(other, time_ms=50_000)
        _, ranked = await boards.page(Board("klondike", DAY), 1, 20)
        assert ranks(ranked) == [(1, other), (2, first)]
        _, practice = await boards.page(Board("klondike", DAY, ranked=False), 1, 20)
        assert ranks(practice) == [(1, first)]
        assert practice[0].time_ms == 20_000


class TestGuildScope:
    async def test_a_guild_board_ranks_only_its_own_attempts(
        self, store: Store, boards: Leaderboard
    ):
        a1, a2, b1, nowhere = [await store.player() for _ in range(4)]
        await store.attempt(b1, time_ms=10_000, guild="B")
        await store.attempt(nowhere, time_ms=20_000)
        await store.attempt(a2, time_ms=40_000, guild="A")
        await store.attempt(a1, time_ms=30_000, guild="A")
        total, lines = await boards.page(Board("klondike", DAY, "A"), 1, 20)
        assert total == 2
        assert ranks(lines) == [(1, a1), (2, a2)]
        assert {line.guild_id for line in lines} == {"A"}
        total, everyone = await boards.page(Board("klondike", DAY), 1, 20)
        assert total == 4
        assert ranks(everyone) == [(1, b1), (2, nowhere), (3, a1), (4, a2)]

    async def test_around_me_in_a_guild(self, store: Store, boards: Leaderboard):
        outsider, member, other_member = [await store.player() for _ in range(3)]
        await store.attempt(outsider, time_ms=5_000)
        await store.attempt(member, time_ms=50_000, guild="A")
        await store.attempt(other_member, time_ms=60_000, guild="A")
        total, me, lines = await boards.around(Board("klondike", DAY, "A"), member, 3)
        assert total == 2
        assert me is not None and me.rank == 1
        assert ranks(lines) == [(1, member), (2, other_member)]
        _, nobody, lines = await boards.around(Board("klondike", DAY, "A"), outsider, 3)
        assert nobody is None and lines == []


class TestAroundMe:
    @pytest.fixture
    async def ten(self, store: Store) -> list[int]:
        players = [await store.player() for _ in range(10)]
        for i, player in enumerate(players):
            await store.attempt(player, time_ms=10_000 * (i + 1))
        return players

    async def test_at_the_top(self, ten: list[int], boards: Leaderboard):
        total, me, lines = await boards.around(Board("klondike", DAY), ten[0], 2)
        assert total == 10
        assert me is not None and (me.rank, me.player) == (1, ten[0])
        assert ranks(lines) == [(1, ten[0]), (2, ten[1]), (3, ten[2])]

    async def test_in_the_middle(self, ten: list[int], boards: Leaderboard):
        _, me, lines = await boards.around(Board("klondike", DAY), ten[5], 2)
        assert me is not None and me.rank == 6
        assert ranks(lines) == [(r + 1, ten[r]) for r in range(3, 8)]

    async def test_at_the_bottom(self, ten: list[int], boards: Leaderboard):
        _, me, lines = await boards.around(Board("klondike", DAY), ten[9], 2)
        assert me is not None and me.rank == 10
        assert ranks(lines) == [(8, ten[7]), (9, ten[8]), (10, ten[9])]

    async def test_ties_around_me_keep_their_shared_rank(self, store: Store, boards: Leaderboard):
        players = [await store.player() for _ in range(6)]
        for player in players[:4]:
            await store.attempt(player, time_ms=30_000)
        await store.attempt(players[4], time_ms=40_000)
        await store.attempt(players[5], won=False)
        _, me, lines = await boards.around(Board("klondike", DAY), players[4], 1)
        assert me is not None and me.rank == 5
        assert ranks(lines) == [(1, players[3]), (5, players[4]), (6, players[5])]

    async def test_a_player_without_an_attempt(self, ten: list[int], store: Store, boards):
        stranger = await store.player()
        total, me, lines = await boards.around(Board("klondike", DAY), stranger, 2)
        assert (total, me, lines) == (10, None, [])


class TestStreaks:
    def test_runs_of_consecutive_days(self):
        d = date(2026, 1, 10)
        days = [d, d + timedelta(1), d + timedelta(2), d + timedelta(5), d + timedelta(6)]
        assert streaks(days, d + timedelta(6)) == (2, 3)
        assert streaks(days, d + timedelta(7)) == (2, 3)  # yesterday still counts
        assert streaks(days, d + timedelta(8)) == (0, 3)  # a missed day breaks it
        assert streaks([], d) == (0, 0)

    def test_across_a_month_and_a_year_boundary(self):
        days = [date(2025, 12, 30), date(2025, 12, 31), date(2026, 1, 1), date(2026, 1, 2)]
        assert streaks(days, date(2026, 1, 2)) == (4, 4)

    async def test_streaks_per_variant_from_won_ranked_dailies(
        self, store: Store, boards: Leaderboard, clock: Clock
    ):
        player = await store.player()
        for back in (0, 1, 2, 4, 5, 6, 7):
            await store.attempt(player, day=DAY - timedelta(days=back))
        await store.attempt(player, day=DAY - timedelta(days=3), won=False)
        # a won practice attempt and another variant do not fill the gap
        await store.attempt(player, day=DAY - timedelta(days=3), ranked=False)
        await store.attempt(player, day=DAY - timedelta(days=3), variant="yukon")
        (klondike, yukon) = await boards.stats(player)
        assert (klondike.variant, klondike.current_streak, klondike.longest_streak) == (
            "klondike",
            3,
            4,
        )
        assert (yukon.current_streak, yukon.longest_streak) == (0, 1)
        # the next UTC day has begun: the streak holds until that day is over
        clock.ms = day_start_ms(DAY + timedelta(days=1)) + 1
        (klondike, _) = await boards.stats(player)
        assert klondike.current_streak == 3
        clock.ms = day_start_ms(DAY + timedelta(days=2))
        (klondike, _) = await boards.stats(player)
        assert (klondike.current_streak, klondike.longest_streak) == (0, 4)

    async def test_the_day_is_utc_whatever_the_session_time_zone(
        self, migrated_database_url: str, store: Store, clock: Clock
    ):
        player = await store.player()
        await store.attempt(player, day=DAY)
        await store.attempt(player, day=DAY - timedelta(days=1))
        # one minute before midnight UTC: in Kiritimati (UTC+14) it is already tomorrow
        clock.ms = day_start_ms(DAY + timedelta(days=2)) - 60_000
        for zone in ("Pacific/Kiritimati", "Etc/GMT+12"):
            settings = {"timezone": zone}
            async with asyncpg.create_pool(migrated_database_url, server_settings=settings) as pool:
                (figures,) = await Leaderboard(BoardStore(pool), clock, 3_600_000).stats(player)
                assert figures.current_streak == 2, zone


class TestAllTime:
    async def test_figures_from_ranked_dailies(self, store: Store, boards: Leaderboard):
        player = await store.player()
        await store.attempt(player, day=DAY, time_ms=100_000, moves=120)
        await store.attempt(player, day=DAY - timedelta(days=1), time_ms=80_000, moves=150)
        await store.attempt(player, day=DAY - timedelta(days=2), won=False, time_ms=5_000)
        await store.attempt(player, day=DAY - timedelta(days=3), time_ms=1_000, ranked=False)
        await store.attempt(
            player, day=DAY - timedelta(days=4), won=False, status="playing", time_ms=None
        )
        (figures,) = await boards.stats(player)
        assert (figures.games, figures.wins, figures.win_rate) == (3, 2, 0.6667)
        assert (figures.best_time_ms, figures.fewest_moves) == (80_000, 120)
        assert figures.average_win_time_ms == 90_000

    async def test_a_player_with_no_games(self, store: Store, boards: Leaderboard):
        assert await boards.stats(await store.player()) == []
