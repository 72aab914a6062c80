"""A player's preferences as the database keeps them (server/services/preferences.py
answers with them): one row per player who set any, none for the defaults."""

from __future__ import annotations

import asyncpg

from server import protocol as p
from server.store.pool import guarded

GET_SQL = "select one_tap, auto_home, locale from player_preferences where player_id = $1"

# Only the fields given change ($2–$4 null: left as they are, or the defaults).
SET_SQL = """
insert into player_preferences as pp (player_id, one_tap, auto_home, locale)
values ($1, coalesce($2, false), coalesce($3, false), $4)
on conflict (player_id) do update set
    one_tap = coalesce($2, pp.one_tap),
    auto_home = coalesce($3, pp.auto_home),
    locale = coalesce($4, pp.locale),
    updated_at = now()
returning one_tap, auto_home, locale
"""


class PreferenceStore:
    """Reads and writes of ``player_preferences``."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    @guarded
    async def get(self, player_id: int) -> p.Preferences:
        """The player's preferences (the defaults when they set none)."""
        row = await self.pool.fetchrow(GET_SQL, player_id)
        return p.Preferences() if row is None else _preferences(row)

    @guarded
    async def set(self, player_id: int, change: p.SetPreferences) -> p.Preferences:
        """Store the fields ``change`` gives; returns the preferences now."""
        row = await self.pool.fetchrow(
            SET_SQL, player_id, change.one_tap, change.auto_home, change.locale
        )
        assert row is not None  # an upsert returns its row
        return _preferences(row)


def _preferences(row: asyncpg.Record) -> p.Preferences:
    return p.Preferences(one_tap=row["one_tap"], auto_home=row["auto_home"], locale=row["locale"])
