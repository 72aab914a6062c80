"""Daily attempts through the services on a real PostgreSQL, with the server clock set by hand.

The services, their group commit and storage are the server's own; only the clock is the
test's, so a day can open, run out and close within a test.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import date, timedelta

import asyncpg
import pytest
import structlog.testing
from hand_clock import Clock, services_on

import engine
from engine.solver import solve
from server import protocol as p
from server.core.calendar import closes_at_ms, day_of, day_start_ms
from server.core.identity import Principal
from server.core.race import commitment
from server.protocol.errors import DailyError, GameError, NotFoundError
from server.services.daily import Dailies, SolverBudget, choose_deal, daily_seed, prove_winnable
from server.services.wiring import Services
from server.store.daily import DailyStore

DAY = date(2026, 3, 14)
LIMIT_MS = 3_600_000
QUICK = SolverBudget(max_nodes=50_000, max_seconds=30.0, max_candidates=10)


@pytest.fixture
def clock() -> Clock:
    return Clock(day_start_ms(DAY) + 10 * 3_600_000)


@asynccontextmanager
async def running_services(database_url: str, clock: Clock) -> AsyncIterator[Services]:
    """The server's services over ``database_url`` (migrated): one server process, started
    and stopped."""
    async with services_on(database_url, clock) as services:
        # the quick variants, with a budget that proves their deals in well under a second
        services.dailies = Dailies(
            DailyStore(services.storage),
            services.solver,
            services.games,
            clock,
            budget=QUICK,
            variants=("klondike-3", "yukon"),
            guests_rank=True,  # these players are guests; tests/server/test_who_ranks.py
        )
        yield services


@pytest.fixture
async def services(migrated_database_url: str, clock: Clock) -> AsyncIterator[Services]:
    async with running_services(migrated_database_url, clock) as services:
        yield services


async def deal(
    services: Services, day: date = DAY, variant: str = "klondike", seed: int = 42
) -> str:
    """Store a day's deal as the preparer would (the seed is any deal; the tests here are
    about attempts, not about the solver); returns its salt."""
    salt = f"salt-{day}"
    await services.storage.pool.execute(
        "insert into daily_deals (variant, day, seed, candidate, salt, commitment, verdict, "
        "solution_length, solver_nodes, solver_ms) "
        "values ($1, $2, $3, 0, $4, $5, 'winnable', 100, 1, 1)",
        variant,
        day,
        seed,
        salt,
        commitment(seed, salt),
    )
    return salt


async def guest(services: Services, name: str = "Ada") -> Principal:
    return await services.storage.create_guest(name, "en")


async def daily_row(services: Services, game: int) -> asyncpg.Record:
    row = await services.storage.pool.fetchrow(
        "select * from daily_entries where entry_id=$1", game
    )
    assert row is not None
    return row


def first_legal(view: dict) -> str:  # type: ignore[type-arg]
    return next(move for moves in view["legal_moves"].values() for move in moves)


def test_daily_seed_test_vector():
    # HMAC-SHA-256(key=32 zero bytes, "solitaire-services daily klondike 2026-01-01 0"),
    # first 8 bytes big-endian: 6a07e3d31b76dee6
    assert daily_seed(bytes(32), "klondike", date(2026, 1, 1), 0) == 0x6A07E3D31B76DEE6
    assert daily_seed(bytes(32), "klondike", date(2026, 1, 1), 1) != daily_seed(
        bytes(32), "klondike", date(2026, 1, 1), 0
    )
    assert daily_seed(bytes(32), "yukon", date(2026, 1, 1), 0) != daily_seed(
        bytes(32), "klondike", date(2026, 1, 1), 0
    )
    assert daily_seed(b"another key", "klondike", date(2026, 1, 1), 0) != daily_seed(
        bytes(32), "klondike", date(2026, 1, 1), 0
    )


class TestFirstAttempt:
    async def test_the_first_attempt_is_ranked_later_ones_are_practice(self, services: Services):
        await deal(services)
        ada = await guest(services)
        first = await services.dailies.start(ada, p.DailyStart(variant="klondike"))
        second = await services.dailies.start(ada, p.DailyStart(variant="klondike"))
        assert (first.ranked, second.ranked) == (True, False)
        assert first.date == second.date == DAY.isoformat()
        info = await services.dailies.info(ada, p.DailyInfo(variant="klondike"))
        assert [(a.game, a.ranked) for a in info.attempts] == [
            (first.game, True),
            (second.game, False),
        ]

    async def test_other_players_and_variants_have_their_own_first_attempt(
        self, services: Services
    ):
        await deal(services)
        await deal(services, variant="yukon")
        ada, bob = await guest(services), await guest(services, "Bob")
        await services.dailies.start(ada, p.DailyStart(variant="klondike"))
        assert (await services.dailies.start(bob, p.DailyStart(variant="klondike"))).ranked
        assert (await services.dailies.start(ada, p.DailyStart(variant="yukon"))).ranked

    async def test_simultaneous_first_attempts_rank_exactly_one(self, services: Services):
        await deal(services)
        ada = await guest(services)
        replies = await asyncio.gather(
            *(services.dailies.start(ada, p.DailyStart(variant="klondike")) for _ in range(6))
        )
        assert sorted(r.ranked for r in replies) == [False] * 5 + [True]

    async def test_a_new_day_brings_a_new_ranked_attempt(self, services: Services, clock: Clock):
        await deal(services)
        await deal(services, DAY + timedelta(days=1), seed=43)
        ada = await guest(services)
        await services.dailies.start(ada, p.DailyStart(variant="klondike"))
        clock.ms = day_start_ms(DAY + timedelta(days=1))
        reply = await services.dailies.start(ada, p.DailyStart(variant="klondike"))
        assert (reply.ranked, reply.date) == (True, (DAY + timedelta(days=1)).isoformat())

    async def test_an_unknown_variant_is_refused(self, services: Services):
        ada = await guest(services)
        with pytest.raises(GameError) as caught:
            await services.dailies.start(ada, p.DailyStart(variant="russian"))
        assert caught.value.code == "invalid_options"


class TestAttempt:
    async def test_moves_undos_and_hints_are_counted_as_the_engine_counts_them(
        self, services: Services, clock: Clock
    ):
        await deal(services)
        ada = await guest(services)
        start = await services.dailies.start(ada, p.DailyStart(variant="klondike", guild_id="g1"))
        view = start.view
        for _ in range(3):
            view = (
                await services.play.move(ada, p.Move(game=start.game, text=first_legal(view)))
            ).view
        await services.play.undo(ada, p.Undo(game=start.game))
        await services.play.hint(ada, p.Hint(game=start.game))
        await services.play.hint(ada, p.Hint(game=start.game))
        clock.ms += 95_000
        await services.play.resign(ada, p.Resign(game=start.game))
        counters = (await services.games.get(start.game)).game.counters
        row = await daily_row(services, start.game)
        assert row["status"] == "resigned"
        assert (row["moves"], row["undos"], row["hints"]) == (
            counters["moves"],
            counters["undos"],
            counters["hints"],
        )
        assert (row["moves"], row["undos"], row["hints"]) == (2, 1, 2)
        assert row["guild_id"] == "g1"

    async def test_a_win_is_ranked_by_its_time_and_moves(self, services: Services, clock: Clock):
        deal = await services.dailies.deal("yukon", DAY)  # chosen and proven by the solver
        ada, bob = await guest(services), await guest(services, "Bob")
        start = await services.dailies.start(ada, p.DailyStart(variant="yukon"))
        await services.dailies.start(bob, p.DailyStart(variant="yukon"))
        rules = engine.rules_for("yukon")
        solution = solve(rules, rules.deal(deal.seed), max_nodes=50_000, max_seconds=30.0)
        for move in solution.moves:
            clock.ms += 1_000
            reply = await services.play.move(ada, p.Move(game=start.game, text=move.notation()))
        assert reply.view["status"] == "won"
        row = await daily_row(services, start.game)
        assert (row["status"], row["time_ms"], row["moves"]) == (
            "won",
            1_000 * len(solution.moves),
            len(solution.moves),
        )
        await services.fair_play.review([start.game])  # recomputed from the log: it counts
        assert (await daily_row(services, start.game))["held"] is None
        board = await services.boards.daily_board(ada, p.DailyBoard(variant="yukon"))
        assert [(line.rank, line.name, line.status) for line in board.lines] == [
            (1, "Ada", "won"),
            (2, "Bob", "playing"),
        ]
        assert "seed" not in reply.view  # won, but the day is still open

    async def test_an_attempt_counts_for_the_day_it_started(self, services: Services, clock: Clock):
        await deal(services)
        await deal(services, DAY + timedelta(days=1), seed=43)
        ada = await guest(services)
        clock.ms = day_start_ms(DAY + timedelta(days=1)) - 1  # 23:59:59.999 UTC
        start = await services.dailies.start(ada, p.DailyStart(variant="klondike"))
        assert start.date == DAY.isoformat()
        clock.ms += 20 * 60_000  # well into the next day
        await services.play.move(ada, p.Move(game=start.game, text=first_legal(start.view)))
        await services.play.resign(ada, p.Resign(game=start.game))
        row = await daily_row(services, start.game)
        assert (row["day"], row["status"]) == (DAY, "resigned")

    async def test_play_time_is_bounded(self, services: Services, clock: Clock):
        await deal(services)
        ada = await guest(services)
        start = await services.dailies.start(ada, p.DailyStart(variant="klondike"))
        assert start.deadline == clock.ms + LIMIT_MS
        clock.ms += LIMIT_MS + 1
        with pytest.raises(GameError) as caught:
            await services.play.move(ada, p.Move(game=start.game, text=first_legal(start.view)))
        assert caught.value.code == "time_up"
        assert await services.dailies.sweep(clock.ms) == 1
        row = await daily_row(services, start.game)
        assert (row["status"], row["time_ms"], row["moves"]) == ("out_of_time", LIMIT_MS, 0)
        assert await services.dailies.sweep(clock.ms) == 0

    async def test_the_seed_stays_secret_until_the_day_closes(
        self, services: Services, clock: Clock
    ):
        salt = await deal(services)
        ada = await guest(services)
        start = await services.dailies.start(ada, p.DailyStart(variant="klondike"))
        assert "seed" not in start.view and "deal_code" not in start.view
        await services.play.resign(ada, p.Resign(game=start.game))
        over = await services.play.get_view(ada, p.GetView(game=start.game))
        assert "seed" not in over.view  # the game is over, but the day is not
        info = (await services.dailies.info(ada, p.DailyInfo(variant="klondike"))).deal
        assert (info.seed, info.salt, info.closed) == (None, None, False)
        assert info.commitment == commitment(42, salt)
        assert info.closes_at == closes_at_ms(DAY, LIMIT_MS)

        clock.ms = closes_at_ms(DAY, LIMIT_MS)
        info = (
            await services.dailies.info(ada, p.DailyInfo(variant="klondike", date=DAY.isoformat()))
        ).deal
        assert info.closed and info.seed == "42" and info.salt == salt
        expected = hashlib.sha256(f"{info.seed}:{info.salt}".encode()).hexdigest()
        assert info.commitment == expected
        revealed = await services.play.get_view(ada, p.GetView(game=start.game))
        assert revealed.view["seed"] == 42

    async def test_tomorrow_is_not_open_and_past_days_are_never_chosen_afresh(
        self, services: Services
    ):
        ada = await guest(services)
        tomorrow = (DAY + timedelta(days=1)).isoformat()
        with pytest.raises(DailyError) as caught:
            await services.dailies.info(ada, p.DailyInfo(variant="klondike", date=tomorrow))
        assert caught.value.code == "day_not_open"
        with pytest.raises(NotFoundError):
            await services.dailies.info(ada, p.DailyInfo(variant="yukon", date="2020-01-01"))
        with pytest.raises(GameError) as caught:
            await services.dailies.info(ada, p.DailyInfo(variant="yukon", date="2026-02-30"))
        assert caught.value.code == "invalid_options"
        assert await services.storage.pool.fetchval("select count(*) from daily_deals") == 0


class TestReplay:
    async def test_refused_while_the_deal_is_live_then_stepped_through(
        self, services: Services, clock: Clock
    ):
        await deal(services)
        ada, bob = await guest(services), await guest(services, "Bob")
        start = await services.dailies.start(ada, p.DailyStart(variant="klondike"))
        played = []
        view = start.view
        for _ in range(2):
            reply = await services.play.move(ada, p.Move(game=start.game, text=first_legal(view)))
            played += reply.played
            view = reply.view
        # While her own ranked attempt is being played, not even her own game.
        with pytest.raises(DailyError) as caught:
            await services.boards.replay(ada, p.GetReplay(game=start.game))
        assert caught.value.code == "attempt_not_over"
        await services.play.resign(ada, p.Resign(game=start.game))
        for moment in (clock.ms, day_start_ms(DAY + timedelta(days=1)) + LIMIT_MS - 1):
            clock.ms = moment
            with pytest.raises(DailyError) as caught:  # Bob has not played the deal
                await services.boards.replay(bob, p.GetReplay(game=start.game))
            assert caught.value.code == "attempt_not_over"
            assert caught.value.details["opens_at"] == "2026-03-15T01:00:00+00:00"
            # Hers is over: her game, stepped through by the server, its seed sealed.
            replay = await services.boards.replay(ada, p.GetReplay(game=start.game, step=2))
            assert (replay.seed, replay.actions, replay.status) == (None, played, "resigned")
            assert replay.view is not None and replay.view["counters"]["moves"] == 2
            assert "seed" not in replay.view and replay.solution is None

        clock.ms = closes_at_ms(DAY, LIMIT_MS)
        replay = await services.boards.replay(bob, p.GetReplay(game=start.game, step=1))
        assert replay.actions == played
        assert (replay.seed, replay.date, replay.status) == ("42", DAY.isoformat(), "resigned")
        assert replay.view is not None and replay.view["counters"]["moves"] == 1
        with pytest.raises(GameError):
            await services.boards.replay(bob, p.GetReplay(game=start.game, step=3))

    async def test_another_players_attempt_only_after_ones_own(
        self, services: Services, clock: Clock
    ):
        """Before the day closes, another's moves would give the deal away: they go only
        to a player whose own ranked attempt is over, and only once theirs is over too."""
        await deal(services)
        ada, bob, cy = [await guest(services, name) for name in ("Ada", "Bob", "Cy")]
        ada_game = (await services.dailies.start(ada, p.DailyStart(variant="klondike"))).game
        clock.ms += 60_000
        bob_game = (await services.dailies.start(bob, p.DailyStart(variant="klondike"))).game
        await services.play.move(bob, p.Move(game=bob_game, text="d"))

        async def refused(who: Principal, game: int) -> str:
            with pytest.raises(DailyError) as caught:
                await services.boards.replay(who, p.GetReplay(game=game))
            return caught.value.code

        assert await refused(bob, ada_game) == "attempt_not_over"  # Bob still plays
        await services.play.resign(ada, p.Resign(game=ada_game))
        assert await refused(bob, ada_game) == "attempt_not_over"
        assert await refused(cy, ada_game) == "attempt_not_over"  # Cy has not started
        assert await refused(ada, bob_game) == "deal_live"  # hers is over, his is not
        # A later attempt is practice: it does not open the others' games.
        later = (await services.dailies.start(ada, p.DailyStart(variant="klondike"))).game
        assert await refused(ada, bob_game) == "deal_live"
        assert await refused(ada, later) == "deal_live"

        # Bob's play time runs out (before the sweep marks it): both are over now.
        clock.ms = int((await daily_row(services, bob_game))["deadline"].timestamp() * 1000)
        theirs = await services.boards.replay(bob, p.GetReplay(game=ada_game))
        assert theirs.name == "Ada" and theirs.seed is None
        mine = await services.boards.replay(ada, p.GetReplay(game=bob_game, step=1))
        assert mine.actions == ["d"] and mine.seed is None
        assert await refused(cy, bob_game) == "attempt_not_over"

    async def test_day_of_is_utc(self):
        assert day_of(day_start_ms(DAY)) == DAY
        assert day_of(day_start_ms(DAY) - 1) == DAY - timedelta(days=1)


class TestDealChoice:
    def test_the_deal_is_the_first_candidate_the_solver_proves(self):
        secret = b"k" * 32
        chosen = choose_deal(secret, "yukon", DAY, QUICK)
        assert chosen is not None
        assert chosen.seed == daily_seed(secret, "yukon", DAY, chosen.candidate)
        for earlier in range(chosen.candidate):
            seed = daily_seed(secret, "yukon", DAY, earlier)
            assert not prove_winnable("yukon", seed, QUICK).winnable
        # the proof holds: the solver's moves win the deal in the engine
        rules = engine.rules_for("yukon")
        result = solve(rules, rules.deal(chosen.seed), max_nodes=50_000, max_seconds=30.0)
        game = engine.new_game("yukon", chosen.seed)
        for move in result.moves:
            game.play(move)
        assert game.outcome is not None and game.outcome.won
        assert chosen.proof.solution_length == len(result.moves)

    @pytest.mark.parametrize("variant", ["spider-2", "spider-4"])
    def test_two_and_four_suit_spider_get_a_proven_deal(self, variant: str):
        # Budgets in positions only, so every run of the solver answers the same.
        budget = SolverBudget(max_nodes=5_000_000, max_seconds=1e9, max_candidates=4)
        chosen = choose_deal(b"k" * 32, variant, DAY, budget)
        assert chosen is not None and chosen.proof.winnable
        rules = engine.rules_for(variant)
        result = solve(rules, rules.deal(chosen.seed), max_nodes=5_000_000, max_seconds=1e9)
        game = engine.new_game(variant, chosen.seed)
        for move in result.moves:
            game.play(move)
        assert game.outcome is not None and game.outcome.won
        assert chosen.proof.solution_length == len(result.moves)

    async def test_a_past_days_deal_is_stable_across_restarts(
        self, migrated_database_url: str, clock: Clock
    ):
        past = DAY - timedelta(days=30)
        async with running_services(migrated_database_url, clock) as first:
            ada = await guest(first)
            await first.dailies.deal("yukon", past)
            before = await first.dailies.info(ada, p.DailyInfo(variant="yukon", date=str(past)))
        async with running_services(migrated_database_url, clock) as second:
            again = await second.dailies.info(ada, p.DailyInfo(variant="yukon", date=str(past)))
            assert again.deal == before.deal
            assert before.deal.closed and before.deal.seed is not None
            # even chosen afresh, the derivation gives the same seed (the key is stored)
            await second.storage.pool.execute("delete from daily_deals")
            fresh = await second.dailies.deal("yukon", past)
            assert str(fresh.seed) == before.deal.seed
            assert fresh.commitment != before.deal.commitment  # a new salt, same deal
            other = await second.dailies.deal("yukon", past - timedelta(days=1))
            assert str(other.seed) != before.deal.seed

    async def test_a_deal_left_unprepared_by_a_stop_is_no_error_and_is_prepared_later(
        self, migrated_database_url: str, clock: Clock
    ):
        async with running_services(migrated_database_url, clock) as stopping:
            with structlog.testing.capture_logs() as logs:
                with pytest.raises(DailyError):
                    await stopping.dailies.deal("yukon", DAY, wait=0.0)  # preparing on
                stopping.solver.close()  # as the server's stop does
                for _ in range(200):
                    if any(line["event"] == "daily_deal_left_at_stop" for line in logs):
                        break
                    await asyncio.sleep(0.05)
            assert [line["event"] for line in logs if line["log_level"] == "error"] == []
            assert any(line["event"] == "daily_deal_left_at_stop" for line in logs)
        async with running_services(migrated_database_url, clock) as started:
            deal = await started.dailies.deal("yukon", DAY)
            assert deal.variant == "yukon" and deal.day == DAY

    async def test_tomorrows_deals_are_ready_before_tomorrow(
        self, services: Services, clock: Clock
    ):
        await services.dailies.prepare_ahead(clock.ms)
        rows = await services.storage.pool.fetch(
            "select variant, day, verdict, solution_length from daily_deals order by day, variant"
        )
        tomorrow = DAY + timedelta(days=1)
        assert [(r["variant"], r["day"]) for r in rows] == [
            ("klondike-3", DAY),
            ("yukon", DAY),
            ("klondike-3", tomorrow),
            ("yukon", tomorrow),
        ]
        assert all(r["verdict"] == "winnable" and r["solution_length"] > 0 for r in rows)
        clock.ms = day_start_ms(tomorrow)
        ada = await guest(services)
        start = await services.dailies.start(ada, p.DailyStart(variant="yukon"))
        seed = await services.storage.pool.fetchval(
            "select seed from entries where id=$1", start.game
        )
        stored = await services.storage.pool.fetchval(
            "select seed from daily_deals where variant='yukon' and day=$1", tomorrow
        )
        assert seed == stored
