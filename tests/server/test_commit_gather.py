"""The group commit's gathering (server/store/commit.py, ``commit_gather_ms``): writes that
arrive one by one at an idle committer share one transaction, a lone write is committed at
once, and the gathering never holds a full queue or a closing committer. Against a real
PostgreSQL."""

from __future__ import annotations

import asyncio

import asyncpg

from server.core.session import MoveRow
from server.ops.metrics import Metrics
from server.store.commit import PIPELINE_WRITES, GroupCommitter

# Longer than any test may take: a test that waits for the gathering to run out fails
# (on its ``wait_for``) instead of passing slowly.
FOREVER = 3600.0


def move(game: int, seq: int = 0) -> MoveRow:
    return MoveRow(game, seq, "7>3", None)


async def lone_write(committer: GroupCommitter, metrics: Metrics) -> None:
    """A write after a quiet spell: committed at once, in a transaction of its own (it
    would wait the whole gathering for nothing); the writes right after it gather."""
    commits = metrics.commit_count
    await asyncio.wait_for(committer.submit([move(1000)]), 10)
    assert metrics.commit_count == commits + 1


async def test_writes_arriving_one_by_one_share_a_commit(migrated_database_url: str) -> None:
    async with asyncpg.create_pool(migrated_database_url, min_size=1, max_size=2) as pool:
        metrics = Metrics()
        committer = GroupCommitter(pool, metrics, gather_seconds=0.5)
        running = asyncio.create_task(committer.run())
        await lone_write(committer, metrics)
        done = []
        for game in range(3):
            done.append(committer.submit([move(game)]))
            await asyncio.sleep(0)  # the committer runs between them
        await asyncio.wait_for(asyncio.gather(*done), 10)
        committer.close()
        await running
        assert (metrics.commit_count, metrics.commit_writes) == (2, 4)
        assert await pool.fetchval("select count(*) from moves") == 4


async def test_a_full_queue_is_committed_without_waiting(migrated_database_url: str) -> None:
    async with asyncpg.create_pool(migrated_database_url, min_size=1, max_size=2) as pool:
        metrics = Metrics()
        committer = GroupCommitter(pool, metrics, gather_seconds=FOREVER)
        running = asyncio.create_task(committer.run())
        await lone_write(committer, metrics)
        first = committer.submit([move(0)])
        await asyncio.sleep(0)  # the committer starts gathering
        rest = [committer.submit([move(game)]) for game in range(1, PIPELINE_WRITES)]
        await asyncio.wait_for(asyncio.gather(first, *rest), 10)
        assert (metrics.commit_count, metrics.commit_writes) == (2, 1 + PIPELINE_WRITES)
        committer.close()
        await running


async def test_closing_commits_what_is_gathered(migrated_database_url: str) -> None:
    async with asyncpg.create_pool(migrated_database_url, min_size=1, max_size=2) as pool:
        metrics = Metrics()
        committer = GroupCommitter(pool, metrics, gather_seconds=FOREVER)
        running = asyncio.create_task(committer.run())
        await lone_write(committer, metrics)
        written = committer.submit([move(0)])
        await asyncio.sleep(0)
        committer.close()
        await asyncio.wait_for(running, 10)
        assert written.done() and written.exception() is None
        assert await pool.fetchval("select count(*) from moves") == 2
