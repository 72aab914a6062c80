"""Migrated databases for tests: copies of one template, emptied and handed on between tests.

Migrating a database for every test cost most of the suite's time; copying a migrated
template (``CREATE DATABASE ... TEMPLATE``) saves that, but creating and dropping a database
still costs PostgreSQL a copy of its catalogs, a WAL flush and a checkpoint, about a second
on a busy machine. So a test's database is copied once and, when the test is done, emptied
(every table truncated, the id sequences restarted) and given to the next test: it starts
as a fresh copy would. A database a test changed the schema of (or that cannot be emptied
cleanly) is dropped instead, and the next test gets a new copy.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import asyncpg

from server.store.database import (
    create_database,
    drop_database,
    unique_database_name,
    with_database,
)

# Everything of the schema a test could change, as text: tables, indexes, sequences,
# columns and their types, constraints, triggers, functions, the migrations recorded and
# the database's own settings. Equal text: the schema is the template's.
_SCHEMA = """
select string_agg(entry, E'\\n' order by entry) from (
    select format('relation %s %s', relname, relkind) as entry
    from pg_class where relnamespace = 'public'::regnamespace
    union all
    select format('column %s.%s %s %s', c.relname, a.attname, a.atttypid::regtype, a.attnotnull)
    from pg_attribute a join pg_class c on c.oid = a.attrelid
    where c.relnamespace = 'public'::regnamespace and a.attnum > 0 and not a.attisdropped
    union all
    select format('constraint %s %s', conname, pg_get_constraintdef(oid))
    from pg_constraint where connamespace = 'public'::regnamespace
    union all
    select format('trigger %s %s', tgname, tgrelid::regclass) from pg_trigger where not tgisinternal
    union all
    select format('function %s', oid::regprocedure)
    from pg_proc where pronamespace = 'public'::regnamespace
    union all
    select format('migration %s %s', version, checksum) from schema_migrations
    union all
    select format('setting %s', setconfig) from pg_db_role_setting
    where setdatabase = (select oid from pg_database where datname = current_database())
) as schema
"""

_OTHER_CONNECTIONS = """
select pg_terminate_backend(pid) from pg_stat_activity
where datname = current_database() and pid <> pg_backend_pid()
"""

_TABLES = """
select format('%I', tablename) as name from pg_tables
where schemaname = 'public' and tablename <> 'schema_migrations'
order by tablename
"""


class MigratedDatabases:
    """The migrated databases of one test run, copied from ``template`` on ``admin_url``."""

    def __init__(self, admin_url: str, template: str) -> None:
        self.admin_url = admin_url
        self.template = template
        self._free: list[str] = []
        self._schema: str | None = None  # the template's, read from its first copy
        self.created = 0  # copies made, for the tests of this class

    async def take(self) -> str:
        """The URL of a migrated database with no rows, for one test only."""
        if self._free:
            return with_database(self.admin_url, self._free.pop())
        name = unique_database_name("solitaire_test")
        await create_database(self.admin_url, name, template=self.template)
        self.created += 1
        url = with_database(self.admin_url, name)
        if self._schema is None:
            self._schema = await _schema_of(url)
        return url

    async def give_back(self, url: str) -> None:
        """The test is done with ``url``: empty it for the next test, or drop it."""
        name = urlsplit(url).path.lstrip("/")
        try:
            reusable = await self._empty(url)
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
            reusable = False
        if reusable:
            self._free.append(name)
        else:
            await drop_database(self.admin_url, name)

    async def close(self) -> None:
        """Drop every database kept for reuse."""
        while self._free:
            await drop_database(self.admin_url, self._free.pop())

    async def _empty(self, url: str) -> bool:
        """Truncate every table of ``url``; False (and nothing done) if its schema changed."""
        connection = await asyncpg.connect(url)
        try:
            # A server process the test killed may still hold a connection (and locks).
            await connection.execute(_OTHER_CONNECTIONS)
            await connection.execute("set lock_timeout = '10s'")
            if await connection.fetchval(_SCHEMA) != self._schema:
                return False
            if await connection.fetchval("select exists (select from pg_matviews)"):
                return False  # truncating would not empty a materialized view
            tables = [row["name"] for row in await connection.fetch(_TABLES)]
            await connection.execute(f"truncate {', '.join(tables)} restart identity")
            return True
        finally:
            await connection.close()


async def _schema_of(url: str) -> str:
    connection = await asyncpg.connect(url)
    try:
        schema: str = await connection.fetchval(_SCHEMA)
    finally:
        await connection.close()
    return schema
