"""The migration runner against a real PostgreSQL, on migration folders made per test."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncpg
import pytest

from server.store.migrations import (
    ADVISORY_LOCK_KEY,
    MigrationError,
    apply_migrations,
    load_migrations,
    migrate,
)

RACE = "create table race (id integer primary key, variant text not null);"
ENTRY = "create table entry (race_id integer references race, player text not null);"
SEED = "insert into race values (1, 'klondike-draw-1');"


def write(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(exist_ok=True)
    for name, sql in files.items():
        (folder / name).write_text(sql)
    return folder


async def fetch(url: str, query: str) -> list[asyncpg.Record]:
    connection = await asyncpg.connect(url)
    try:
        return await connection.fetch(query)
    finally:
        await connection.close()


async def tables(url: str) -> set[str]:
    rows = await fetch(url, "select tablename from pg_tables where schemaname = 'public'")
    return {row["tablename"] for row in rows}


async def recorded(url: str) -> list[tuple[int, str]]:
    rows = await fetch(url, "select version, description from schema_migrations order by 1")
    return [(row["version"], row["description"]) for row in rows]


class TestLoadMigrations:
    def test_files_come_in_number_order_whatever_their_names(self, tmp_path: Path) -> None:
        folder = write(tmp_path, {"0010_b.sql": "", "0002_z.sql": "", "0003_a_b.sql": ""})
        assert [m.file_name for m in load_migrations(folder)] == [
            "0002_z.sql",
            "0003_a_b.sql",
            "0010_b.sql",
        ]

    def test_other_files_than_sql_are_ignored(self, tmp_path: Path) -> None:
        folder = write(tmp_path, {"0001_race.sql": RACE, "README.md": "notes"})
        assert [m.description for m in load_migrations(folder)] == ["race"]

    @pytest.mark.parametrize(
        "name", ["1_race.sql", "0001-race.sql", "0001_Race.sql", "0001_.sql", "race.sql"]
    )
    def test_a_misnamed_sql_file_is_an_error(self, tmp_path: Path, name: str) -> None:
        folder = write(tmp_path, {"0001_race.sql": RACE, name: ENTRY})
        with pytest.raises(MigrationError, match=rf"{name}: migration files are named"):
            load_migrations(folder)

    def test_two_files_with_one_number_are_an_error(self, tmp_path: Path) -> None:
        folder = write(tmp_path, {"0001_race.sql": RACE, "0001_entry.sql": ENTRY})
        with pytest.raises(MigrationError, match="share the number 0001"):
            load_migrations(folder)

    def test_a_missing_folder_is_an_error(self, tmp_path: Path) -> None:
        with pytest.raises(MigrationError, match="does not exist"):
            load_migrations(tmp_path / "sql")


class TestMigrate:
    async def test_an_empty_database_gets_every_migration_in_order(
        self, database_url: str, tmp_path: Path
    ) -> None:
        # 0002 needs 0001's table, 0003 needs 0002's: only the right order succeeds.
        folder = write(
            tmp_path, {"0003_seed.sql": SEED, "0001_race.sql": RACE, "0002_entry.sql": ENTRY}
        )
        applied = await migrate(database_url, folder)
        assert [m.file_name for m in applied] == [
            "0001_race.sql",
            "0002_entry.sql",
            "0003_seed.sql",
        ]
        assert await tables(database_url) == {"race", "entry", "schema_migrations"}
        assert await recorded(database_url) == [(1, "race"), (2, "entry"), (3, "seed")]

    async def test_applied_migrations_are_not_run_again(
        self, database_url: str, tmp_path: Path
    ) -> None:
        folder = write(tmp_path, {"0001_race.sql": RACE, "0002_seed.sql": SEED})
        await migrate(database_url, folder)
        assert await migrate(database_url, folder) == []
        assert len(await fetch(database_url, "select * from race")) == 1
        # A new file later applies alone.
        write(folder, {"0003_entry.sql": ENTRY})
        assert [m.file_name for m in await migrate(database_url, folder)] == ["0003_entry.sql"]
        assert await recorded(database_url) == [(1, "race"), (2, "seed"), (3, "entry")]

    async def test_a_failing_migration_leaves_nothing_half_applied(
        self, database_url: str, tmp_path: Path
    ) -> None:
        broken = "create table entry (player text); insert into entry values ('ada'); select 1/0;"
        folder = write(
            tmp_path, {"0001_race.sql": RACE, "0002_entry.sql": broken, "0003_seed.sql": SEED}
        )
        with pytest.raises(
            MigrationError, match=r"0002_entry\.sql failed and was rolled back.*zero"
        ):
            await migrate(database_url, folder)
        # 0001 stays (its own transaction), 0002 left no table and no row, 0003 never ran.
        assert await tables(database_url) == {"race", "schema_migrations"}
        assert await recorded(database_url) == [(1, "race")]
        assert await fetch(database_url, "select * from race") == []
        # Once the file is mended, the run picks up where it stopped.
        write(folder, {"0002_entry.sql": ENTRY})
        applied = await migrate(database_url, folder)
        assert [m.version for m in applied] == [2, 3]
        assert await recorded(database_url) == [(1, "race"), (2, "entry"), (3, "seed")]

    async def test_two_runners_at_once_apply_each_file_exactly_once(
        self, database_url: str, tmp_path: Path
    ) -> None:
        # 0001 waits on a gate the test holds, so both runners are surely inside migrate()
        # at the same time; 0002 would fail on a second run (duplicate key).
        gate = 8_675_309
        folder = write(
            tmp_path,
            {
                "0001_race.sql": f"select pg_advisory_xact_lock({gate}); {RACE}",
                "0002_seed.sql": SEED,
            },
        )
        holder = await asyncpg.connect(database_url)
        try:
            await holder.execute("select pg_advisory_lock($1)", gate)
            runners = [asyncio.create_task(migrate(database_url, folder)) for _ in range(2)]
            # One runner holds the migration lock and waits at the gate; the other waits for
            # the migration lock. Both are waiting when two advisory locks are ungranted.
            await _until_waiting(holder, {gate, ADVISORY_LOCK_KEY})
            await holder.execute("select pg_advisory_unlock($1)", gate)
            results = await asyncio.gather(*runners)
        finally:
            await holder.close()
        assert sorted(len(applied) for applied in results) == [0, 2]
        assert await recorded(database_url) == [(1, "race"), (2, "seed")]
        assert len(await fetch(database_url, "select * from race")) == 1

    async def test_an_applied_file_that_changed_stops_the_run(
        self, database_url: str, tmp_path: Path
    ) -> None:
        folder = write(tmp_path, {"0001_race.sql": RACE})
        await migrate(database_url, folder)
        write(folder, {"0001_race.sql": RACE + "\n-- edited", "0002_seed.sql": SEED})
        with pytest.raises(MigrationError, match=r"0001_race\.sql changed after it was applied"):
            await migrate(database_url, folder)
        assert await recorded(database_url) == [(1, "race")]

    async def test_a_database_newer_than_the_code_stops_the_run(
        self, database_url: str, tmp_path: Path
    ) -> None:
        await migrate(database_url, write(tmp_path / "new", {"0001_race.sql": RACE}))
        with pytest.raises(MigrationError, match="has migration 0001, which this code does not"):
            await migrate(database_url, write(tmp_path / "old", {"0002_seed.sql": SEED}))
        assert await recorded(database_url) == [(1, "race")]

    async def test_the_lock_is_released_after_a_failure(
        self, database_url: str, tmp_path: Path
    ) -> None:
        connection = await asyncpg.connect(database_url)
        try:
            broken = load_migrations(write(tmp_path, {"0001_broken.sql": "select 1/0;"}))
            with pytest.raises(MigrationError):
                await apply_migrations(connection, broken)
            held = await connection.fetchval(
                "select count(*) from pg_locks"
                " where locktype = 'advisory' and pid = pg_backend_pid()"
            )
        finally:
            await connection.close()
        assert held == 0


async def _until_waiting(connection: asyncpg.Connection, keys: set[int]) -> None:
    """Return once advisory locks on every key in ``keys`` have a waiting (ungranted) request."""
    query = """
        select distinct (classid::bigint << 32) | objid::bigint as key
        from pg_locks
        where locktype = 'advisory' and not granted
          and database = (select oid from pg_database where datname = current_database())
    """
    async with asyncio.timeout(60):
        while not keys <= {row["key"] for row in await connection.fetch(query)}:
            await asyncio.sleep(0.01)
