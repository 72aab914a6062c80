"""The ``solitaire`` console script, run as a real process."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import asyncpg

from server.ops.cli import build_parser

SOLITAIRE = Path(sys.executable).with_name("solitaire")
RACE = "create table race (id integer primary key);"


async def solitaire(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Run the installed ``solitaire`` script; return its exit status, stdout and stderr."""
    environment = {k: v for k, v in os.environ.items() if k != "SOLITAIRE_DATABASE_URL"}
    process = await asyncio.create_subprocess_exec(
        str(SOLITAIRE),
        *args,
        env=environment | (env or {}),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await process.communicate()
    assert process.returncode is not None
    return process.returncode, stdout.decode(), stderr.decode()


async def applied_versions(url: str) -> list[int]:
    connection = await asyncpg.connect(url)
    try:
        rows = await connection.fetch("select version from schema_migrations order by version")
    finally:
        await connection.close()
    return [row["version"] for row in rows]


def migrations(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir()
    for name, sql in files.items():
        (folder / name).write_text(sql)
    return folder


class TestMigrateCommand:
    async def test_applies_migrations_to_the_url_given(
        self, database_url: str, tmp_path: Path
    ) -> None:
        folder = migrations(tmp_path / "sql", {"0001_race.sql": RACE})
        args = ("migrate", "--database-url", database_url, "--migrations-dir", str(folder))
        status, out, err = await solitaire(*args)
        assert (status, err) == (0, "")
        assert out == "solitaire migrate: applied 0001_race.sql\n"
        assert await applied_versions(database_url) == [1]
        status, out, _ = await solitaire(*args)
        assert (status, out) == (0, "solitaire migrate: the database is up to date\n")

    async def test_reads_the_url_from_the_environment(
        self, database_url: str, tmp_path: Path
    ) -> None:
        folder = migrations(tmp_path / "sql", {"0001_race.sql": RACE})
        status, _, err = await solitaire(
            "migrate",
            "--migrations-dir",
            str(folder),
            "--data-dir",
            str(tmp_path / "unused"),
            env={"SOLITAIRE_DATABASE_URL": database_url},
        )
        assert (status, err) == (0, "")
        assert await applied_versions(database_url) == [1]
        assert not (tmp_path / "unused").exists()

    async def test_a_failing_migration_exits_non_zero_and_says_which(
        self, database_url: str, tmp_path: Path
    ) -> None:
        folder = migrations(
            tmp_path / "sql", {"0001_race.sql": RACE, "0002_broken.sql": "select 1/0;"}
        )
        status, _, err = await solitaire(
            "migrate", "--database-url", database_url, "--migrations-dir", str(folder)
        )
        assert status == 1
        assert "0002_broken.sql failed and was rolled back" in err
        assert await applied_versions(database_url) == [1]

    async def test_an_unreachable_database_is_a_clear_error(self, tmp_path: Path) -> None:
        folder = migrations(tmp_path / "sql", {"0001_race.sql": RACE})
        url = "postgresql://solitaire:s3cret@127.0.0.1:1/solitaire"
        status, _, err = await solitaire(
            "migrate", "--database-url", url, "--migrations-dir", str(folder)
        )
        assert status == 1
        assert "cannot use postgresql://solitaire:***@127.0.0.1:1/solitaire" in err
        assert "s3cret" not in err

    async def test_without_a_url_it_migrates_the_embedded_postgres(
        self, tmp_path: Path, embedded_data_dir: Path
    ) -> None:
        folder = migrations(tmp_path / "sql", {"0001_race.sql": RACE})
        data_dir = embedded_data_dir
        args = ("migrate", "--data-dir", str(data_dir), "--migrations-dir", str(folder))
        status, out, err = await solitaire(*args)
        assert (status, err) == (0, "")
        assert out == "solitaire migrate: applied 0001_race.sql\n"
        assert (data_dir / "PG_VERSION").exists()
        # The server stopped with the command; the next run finds the migration applied.
        status, out, _ = await solitaire(*args)
        assert (status, out) == (0, "solitaire migrate: the database is up to date\n")


class TestParser:
    def test_the_default_migrations_folder_is_the_repository_sql_folder(self) -> None:
        args = build_parser().parse_args(["migrate"])
        assert args.migrations_dir == Path(__file__).resolve().parents[2] / "sql"

    async def test_no_subcommand_is_a_usage_error(self) -> None:
        status, _, err = await solitaire()
        assert status == 2
        assert "the following arguments are required" in err


class TestServeNeedsNats:
    async def test_several_hosts_without_nats_is_a_clear_error(
        self, migrated_database_url: str
    ) -> None:
        status, _, stderr = await solitaire(
            "serve",
            "--database-url",
            migrated_database_url,
            env={"SOLITAIRE_HOSTS": "3", "SOLITAIRE_HOST_INDEX": "0"},
        )
        assert status == 1
        assert stderr == (
            "solitaire serve: 3 hosts need one NATS for their race events: "
            "set SOLITAIRE_NATS_URL on every host\n"
        )

    async def test_a_nats_that_does_not_answer_is_a_clear_error(
        self, migrated_database_url: str
    ) -> None:
        nowhere = "nats://127.0.0.1:9"  # the discard port: nothing listens there
        status, _, stderr = await solitaire(
            "serve",
            "--port",
            "0",
            "--database-url",
            migrated_database_url,
            env={"SOLITAIRE_NATS_URL": nowhere, "SOLITAIRE_LOG_JSON": "1"},
        )
        assert status == 1
        assert stderr.endswith(f"solitaire serve: NATS does not answer at {nowhere}\n")
