"""Forward-only schema migrations: ``sql/NNNN_description.sql``, applied in order.

The contract (also in docs/architecture.md):

- A migration is a file ``NNNN_description.sql``: four digits, then lower-case words joined
  by ``_``. Other ``.sql`` names in the folder are an error rather than silently skipped.
- Migrations apply in ascending ``NNNN``. Each runs in its own transaction together with
  its row in ``schema_migrations``, so a migration is either applied and recorded or not
  there at all. A migration must therefore not contain ``BEGIN``/``COMMIT`` or statements
  that refuse to run in a transaction (``CREATE INDEX CONCURRENTLY``).
- The whole run holds a PostgreSQL advisory lock, so runners started at the same time
  (several server processes on one database) apply each file exactly once: the second
  waits, then finds everything applied.
- The database, not a file, knows what is applied. An applied file is never edited: its
  SHA-256 is recorded and a changed file stops the run. A database that has a migration
  the folder lacks is newer than the code, and the run stops too.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import asyncpg

MIGRATIONS_DIR = Path(__file__).resolve().parents[2] / "sql"
"""The repository's ``sql/`` folder, next to the ``server`` package."""

ADVISORY_LOCK_KEY = 0x534F4C4954414952
"""Key of the advisory lock held while migrating ("SOLITAIR" in ASCII)."""

_FILE_NAME = re.compile(r"(?P<version>\d{4})_(?P<description>[a-z0-9]+(?:_[a-z0-9]+)*)\.sql")

_CREATE_TABLE = """
create table if not exists schema_migrations (
    version integer primary key,
    description text not null,
    checksum text not null,
    applied_at timestamptz not null default now()
)
"""


class MigrationError(Exception):
    """The migrations cannot be applied; the message names the file and the reason."""


@dataclass(frozen=True)
class Migration:
    """One ``NNNN_description.sql`` file."""

    version: int
    description: str
    sql: str

    @property
    def file_name(self) -> str:
        return f"{self.version:04d}_{self.description}.sql"

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


def load_migrations(directory: Path) -> list[Migration]:
    """Read the migrations in ``directory`` in the order they apply.

    Raises:
        MigrationError: the folder is missing, a ``.sql`` file is misnamed, or two files
            share a number.
    """
    if not directory.is_dir():
        raise MigrationError(f"migrations folder {directory} does not exist")
    migrations: dict[int, Migration] = {}
    for path in sorted(directory.glob("*.sql")):
        match = _FILE_NAME.fullmatch(path.name)
        if match is None:
            raise MigrationError(
                f"{path.name}: migration files are named NNNN_description.sql "
                "(four digits, lower-case words joined by _)"
            )
        version = int(match["version"])
        if version in migrations:
            raise MigrationError(
                f"{path.name} and {migrations[version].file_name} share the number {version:04d}"
            )
        migrations[version] = Migration(version, match["description"], path.read_text("utf-8"))
    return [migrations[version] for version in sorted(migrations)]


async def apply_migrations(
    connection: asyncpg.Connection, migrations: Sequence[Migration]
) -> list[Migration]:
    """Apply the migrations not yet recorded in ``schema_migrations``; return those applied.

    Raises:
        MigrationError: a migration failed (it was rolled back, later ones were not run), an
            applied file changed, or the database has a migration ``migrations`` lacks.
    """
    await connection.execute("select pg_advisory_lock($1)", ADVISORY_LOCK_KEY)
    try:
        # Created under the lock: concurrent "create table if not exists" can still collide.
        await connection.execute(_CREATE_TABLE)
        recorded = {
            row["version"]: row["checksum"]
            for row in await connection.fetch("select version, checksum from schema_migrations")
        }
        _check_history(recorded, migrations)
        applied = []
        for migration in migrations:
            if migration.version not in recorded:
                await _apply(connection, migration)
                applied.append(migration)
        return applied
    finally:
        if not connection.is_closed():
            await connection.execute("select pg_advisory_unlock($1)", ADVISORY_LOCK_KEY)


def _check_history(recorded: dict[int, str], migrations: Sequence[Migration]) -> None:
    known = {migration.version: migration for migration in migrations}
    for version, checksum in sorted(recorded.items()):
        migration = known.get(version)
        if migration is None:
            raise MigrationError(
                f"the database has migration {version:04d}, which this code does not know: "
                "it was migrated by a newer version"
            )
        if migration.checksum != checksum:
            raise MigrationError(
                f"{migration.file_name} changed after it was applied; "
                "write a new migration instead of editing an applied one"
            )


async def _apply(connection: asyncpg.Connection, migration: Migration) -> None:
    try:
        async with connection.transaction():
            await connection.execute(migration.sql)
            await connection.execute(
                "insert into schema_migrations (version, description, checksum)"
                " values ($1, $2, $3)",
                migration.version,
                migration.description,
                migration.checksum,
            )
    except asyncpg.PostgresError as error:
        raise MigrationError(
            f"{migration.file_name} failed and was rolled back: {type(error).__name__}: {error}"
        ) from error


async def migrate(database_url: str, directory: Path = MIGRATIONS_DIR) -> list[Migration]:
    """Bring the database at ``database_url`` up to date; return the migrations applied.

    Raises:
        MigrationError: see :func:`load_migrations` and :func:`apply_migrations`.
    """
    migrations = load_migrations(directory)
    connection = await asyncpg.connect(database_url)
    try:
        return await apply_migrations(connection, migrations)
    finally:
        await connection.close()
