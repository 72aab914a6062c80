"""What a guest's sign-in moves to the Discord player (server/store/accounts.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import date

import asyncpg
import pytest

from server.store.accounts import AccountStore

DAY = "2026-03-14"


@pytest.fixture
async def pool(migrated_database_url: str) -> AsyncIterator[asyncpg.Pool]:
    async with asyncpg.create_pool(migrated_database_url, min_size=1, max_size=2) as opened:
        yield opened


async def player(pool: asyncpg.Pool, principal: str) -> int:
    return int(
        await pool.fetchval(
            "insert into players (principal, display_name) values ($1, $1) returning id", principal
        )
    )


async def race(pool: asyncpg.Pool, creator: int, state: str) -> int:
    return int(
        await pool.fetchval(
            "insert into races (creator_id, variant, seed, salt, commitment, state, max_players, "
            "start_mode, countdown_s, allow_undo, allow_hints) "
            "values ($1, 'klondike', 1, 's', 'c', $2, 8, 'now', 0, true, false) returning id",
            creator,
            state,
        )
    )


async def entry(pool: asyncpg.Pool, owner: int, status: str, race_id: int | None = None) -> int:
    return int(
        await pool.fetchval(
            "insert into entries (race_id, player_id, variant, seed, status) "
            "values ($1, $2, 'klondike', 1, $3) returning id",
            race_id,
            owner,
            status,
        )
    )


async def result(pool: asyncpg.Pool, game: int, race_id: int, owner: int) -> None:
    await pool.execute(
        "insert into results (entry_id, race_id, player_id, rank, finished, moves, foundation, "
        "score, held) values ($1, $2, $3, 1, false, 3, 0, 0, 'guest')",
        game,
        race_id,
        owner,
    )


async def attempt(pool: asyncpg.Pool, game: int, owner: int, ranked: bool) -> None:
    await pool.execute(
        "insert into daily_entries (entry_id, variant, day, player_id, ranked, started_at, "
        "deadline, status) values ($1, 'klondike', $2::date, $3, $4, now(), now(), 'resigned')",
        game,
        date.fromisoformat(DAY),
        owner,
        ranked,
    )


async def test_what_is_over_moves_what_is_in_play_or_shared_stays(pool: asyncpg.Pool) -> None:
    guest, ann = await player(pool, "guest:0a"), await player(pool, "discord:42")
    await pool.execute(
        "insert into daily_deals (variant, day, seed, candidate, salt, commitment, verdict, "
        "solution_length, solver_nodes, solver_ms) "
        "values ('klondike', $1::date, 1, 0, 's', 'c', 'winnable', 1, 1, 1)",
        date.fromisoformat(DAY),
    )
    finished, shared, running = (
        await race(pool, guest, "finished"),
        await race(pool, ann, "finished"),
        await race(pool, guest, "running"),
    )
    raced = await entry(pool, guest, "resigned", finished)
    await result(pool, raced, finished, guest)
    shared_guest, shared_ann = (
        await entry(pool, guest, "resigned", shared),
        await entry(pool, ann, "won", shared),
    )
    still_racing = await entry(pool, guest, "playing", running)
    in_play = await entry(pool, guest, "playing")
    practiced = await entry(pool, guest, "won")
    guest_daily, ann_daily = await entry(pool, guest, "resigned"), await entry(pool, ann, "won")
    await attempt(pool, guest_daily, guest, ranked=True)
    await attempt(pool, ann_daily, ann, ranked=True)

    merged = await AccountStore(pool).merge_guest(guest, ann)

    assert merged is not None
    assert sorted(merged.games) == sorted([raced, practiced, guest_daily])
    assert (merged.results, merged.attempts) == (1, 1)
    owners = dict(await pool.fetch("select id, player_id from entries"))
    assert {g for g, owner in owners.items() if owner == guest} == {
        shared_guest,
        still_racing,
        in_play,
    }
    assert owners[shared_ann] == ann
    assert await pool.fetchval("select player_id from results where entry_id=$1", raced) == ann
    moved = await pool.fetchrow("select * from daily_entries where entry_id=$1", guest_daily)
    assert (moved["player_id"], moved["ranked"]) == (ann, False)  # Ann's first attempt stands
    assert await pool.fetchval("select held from results where entry_id=$1", raced) == "guest"
    assert await pool.fetchval("select merged_into from players where id=$1", guest) == ann
    assert await AccountStore(pool).merge_guest(guest, ann) is None  # once only


async def test_only_a_guest_merges_and_only_into_a_discord_player(pool: asyncpg.Pool) -> None:
    guest, other_guest, ann, bob = (
        await player(pool, "guest:0a"),
        await player(pool, "guest:0b"),
        await player(pool, "discord:42"),
        await player(pool, "discord:43"),
    )
    store = AccountStore(pool)
    assert await store.merge_guest(ann, bob) is None
    assert await store.merge_guest(guest, other_guest) is None
    assert await store.merge_guest(guest, 999) is None
    assert await pool.fetchval("select count(*) from players where merged_into is not null") == 0
