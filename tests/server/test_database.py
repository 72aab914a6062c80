"""Where PostgreSQL comes from: the test fixtures' three paths and the server's embedded one.

The embedded path runs here on every machine, whether or not a PostgreSQL answers on
127.0.0.1:5432: the tests point the probe at a port where nothing listens.
"""

from __future__ import annotations

import asyncio
import os
import socket
from pathlib import Path
from urllib.parse import urlsplit

import asyncpg
import pytest

from server.store.database import (
    DatabaseUnavailableError,
    locate_postgres,
    provide_database,
    redact,
    server_answers,
    temporary_database,
    unique_database_name,
    with_database,
)
from server.store.pool import open_pool


def _unanswered_url() -> str:
    """A PostgreSQL URL on a loopback port where nothing listens."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"postgresql://postgres@127.0.0.1:{port}/postgres"


def _name_of(url: str) -> str:
    return urlsplit(url).path.lstrip("/")


async def _database_names(admin_url: str) -> set[str]:
    connection = await asyncpg.connect(admin_url)
    try:
        rows = await connection.fetch("select datname from pg_database")
    finally:
        await connection.close()
    return {row["datname"] for row in rows}


async def _user_tables(url: str) -> list[str]:
    connection = await asyncpg.connect(url)
    try:
        rows = await connection.fetch(
            "select tablename from pg_tables"
            " where schemaname not in ('pg_catalog', 'information_schema')"
        )
    finally:
        await connection.close()
    return [row["tablename"] for row in rows]


class TestDatabaseUrlFixture:
    @pytest.mark.parametrize("run", [1, 2])
    async def test_each_test_gets_an_empty_database_of_its_own(
        self, database_url: str, run: int
    ) -> None:
        # Both runs leave a table behind; each finds none, so no database is shared.
        assert await _user_tables(database_url) == []
        connection = await asyncpg.connect(database_url)
        try:
            await connection.execute("create table left_behind (run integer)")
            name = await connection.fetchval("select current_database()")
        finally:
            await connection.close()
        assert name.startswith(f"solitaire_test_{os.getpid()}_")

    def test_a_synchronous_test_can_use_it(self, database_url: str) -> None:
        assert _name_of(database_url).startswith("solitaire_test_")


class TestTemporaryDatabase:
    async def test_is_created_empty_and_dropped_afterwards(self, postgres_admin_url: str) -> None:
        async with temporary_database(postgres_admin_url, prefix="solitaire_tmp") as url:
            name = _name_of(url)
            assert name in await _database_names(postgres_admin_url)
            assert await _user_tables(url) == []
        assert name not in await _database_names(postgres_admin_url)

    async def test_is_dropped_when_the_test_fails_with_a_connection_still_open(
        self, postgres_admin_url: str
    ) -> None:
        with pytest.raises(RuntimeError, match="the body failed"):
            async with temporary_database(postgres_admin_url) as url:
                name = _name_of(url)
                connection = await asyncpg.connect(url)
                raise RuntimeError("the body failed")
        # The drop went through although a connection was still open to the database.
        assert name not in await _database_names(postgres_admin_url)
        connection.terminate()

    async def test_concurrent_databases_get_different_names(self, postgres_admin_url: str) -> None:
        async with (
            temporary_database(postgres_admin_url) as first,
            temporary_database(postgres_admin_url) as second,
        ):
            assert first != second
            assert await _user_tables(first) == await _user_tables(second) == []

    def test_names_carry_the_process_id_and_never_repeat(self) -> None:
        names = {unique_database_name("solitaire_test") for _ in range(1000)}
        assert len(names) == 1000
        assert all(name.startswith(f"solitaire_test_{os.getpid()}_") for name in names)
        assert all(len(name) <= 63 for name in names)


class TestLocatePostgres:
    """The three paths of the test server, each taken for real."""

    async def test_a_configured_url_is_used_as_it_is(
        self, postgres_admin_url: str, tmp_path: Path
    ) -> None:
        location = await locate_postgres(postgres_admin_url, _unanswered_url(), tmp_path / "pg")
        assert (location.source, location.admin_url) == ("configured", postgres_admin_url)
        assert location.embedded is None
        assert not (tmp_path / "pg").exists()

    async def test_a_configured_url_that_does_not_answer_is_an_error(self, tmp_path: Path) -> None:
        url = _unanswered_url()
        with pytest.raises(DatabaseUnavailableError, match=r"no PostgreSQL answers at .*127\.0"):
            await locate_postgres(url, url, tmp_path / "pg")
        assert not (tmp_path / "pg").exists()

    async def test_a_server_that_answers_the_probe_is_used(
        self, postgres_admin_url: str, tmp_path: Path
    ) -> None:
        location = await locate_postgres(None, postgres_admin_url, tmp_path / "pg")
        assert (location.source, location.admin_url) == ("local", postgres_admin_url)
        assert not (tmp_path / "pg").exists()

    async def test_embedded_postgres_starts_when_nothing_answers(
        self, embedded_data_dir: Path
    ) -> None:
        data_dir = embedded_data_dir
        location = await locate_postgres(None, _unanswered_url(), data_dir)
        assert location.source == "embedded"
        assert location.embedded is not None
        try:
            assert (data_dir / "PG_VERSION").exists()
            async with temporary_database(location.admin_url) as url:
                connection = await asyncpg.connect(url)
                try:
                    await connection.execute("create table deal (seed bigint primary key)")
                    await connection.execute("insert into deal values (42)")
                    assert await connection.fetchval("select seed from deal") == 42
                finally:
                    await connection.close()
        finally:
            await asyncio.to_thread(location.embedded.stop)
        assert not await server_answers(location.admin_url)
        assert not data_dir.exists()


class TestProvideDatabase:
    async def test_a_given_url_is_passed_through(self, database_url: str, tmp_path: Path) -> None:
        async with provide_database(database_url, tmp_path / "pg") as url:
            assert url == database_url
        assert not (tmp_path / "pg").exists()

    async def test_without_a_url_the_embedded_server_keeps_its_data(
        self, embedded_data_dir: Path
    ) -> None:
        data_dir = embedded_data_dir
        async with provide_database(None, data_dir) as url:
            assert _name_of(url) == "solitaire"
            connection = await asyncpg.connect(url)
            try:
                await connection.execute("create table race (id integer)")
                await connection.execute("insert into race values (7)")
            finally:
                await connection.close()
        assert not await server_answers(url)
        # A second start finds the same data folder, database and rows.
        async with provide_database(None, data_dir) as again:
            assert again == url
            connection = await asyncpg.connect(again)
            try:
                assert await connection.fetchval("select id from race") == 7
            finally:
                await connection.close()


class TestUrls:
    def test_with_database_keeps_the_socket_option(self) -> None:
        url = "postgresql://postgres:@/postgres?host=/tmp/pg"
        assert with_database(url, "solitaire") == "postgresql://postgres:@/solitaire?host=/tmp/pg"

    def test_with_database_replaces_the_path(self) -> None:
        url = "postgresql://u:p@db:5432/postgres"
        assert with_database(url, "race_log") == "postgresql://u:p@db:5432/race_log"

    def test_redact_hides_the_password_only(self) -> None:
        assert redact("postgresql://u:s3cret@db:5432/x") == "postgresql://u:***@db:5432/x"
        assert redact("postgresql://postgres@127.0.0.1:5432/x") == (
            "postgresql://postgres@127.0.0.1:5432/x"
        )

    async def test_bad_database_names_are_refused(self, postgres_admin_url: str) -> None:
        with pytest.raises(ValueError, match="not lower-case letters"):
            async with temporary_database(postgres_admin_url, prefix='x"; drop database postgres'):
                pass


async def test_a_pooled_connection_keeps_its_session_but_never_an_open_transaction(
    database_url: str,
) -> None:
    """The pool skips asyncpg's session reset (a round trip per release) but still rolls
    back what a connection left open: nothing uncommitted survives a release."""
    async with open_pool(database_url, 2) as pool:
        await pool.execute("create table kept (n int)")
        async with pool.acquire() as conn:
            pid = await conn.fetchval("select pg_backend_pid()")
            await conn.execute("set application_name = 'solitaire-test'")
            await conn.execute("begin")
            await conn.execute("insert into kept values (1)")
        async with pool.acquire() as first, pool.acquire() as second:
            for conn in (first, second):  # the pool's two connections
                assert not conn.is_in_transaction()
            (same,) = [
                c for c in (first, second) if await c.fetchval("select pg_backend_pid()") == pid
            ]
            assert await same.fetchval("show application_name") == "solitaire-test"  # no RESET ALL
        assert await pool.fetchval("select count(*) from kept") == 0
