"""A player's preferences: board options and language that clients keep here, so a
restarted client (the Discord bot keeps nothing on its own disk) has them again.
The rows are the store's (server/store/preferences.py)."""

from __future__ import annotations

from server import protocol as p
from server.core.identity import Principal
from server.store.preferences import PreferenceStore


class PreferenceService:
    """Answers get_preferences and set_preferences for the player asking."""

    def __init__(self, store: PreferenceStore) -> None:
        self.store = store

    async def get(self, who: Principal, message: p.GetPreferences) -> p.PreferencesReply:
        """Reply to get_preferences: the asker's preferences."""
        stored = await self.store.get(who.player_id)
        return p.PreferencesReply(id=message.id, preferences=stored)

    async def set(self, who: Principal, message: p.SetPreferences) -> p.PreferencesReply:
        """Reply to set_preferences: the asker's preferences after the change."""
        stored = await self.store.set(who.player_id, message)
        return p.PreferencesReply(id=message.id, preferences=stored)
