"""Messages of a player's preferences: what a client keeps for them across its restarts.

Part of the wire protocol (``server.protocol`` re-exports every name here and builds the
closed unions and the JSON Schema); docs/protocol.md documents each message. The Discord
bot keeps nothing of its players on its own disk: their board options and language live
here, so a restarted bot (or another of its hosts) has them.
"""

from __future__ import annotations

import msgspec

from server.protocol.envelope import Locale, Message, Request


class GetPreferences(Request, tag="get_preferences", kw_only=True):
    """The asking player's preferences (the defaults until they set one)."""


class SetPreferences(Request, tag="set_preferences", kw_only=True):
    """Change the asking player's preferences; a field left out stays as it is."""

    one_tap: bool | None = None
    auto_home: bool | None = None
    locale: Locale | None = None


class Preferences(msgspec.Struct, kw_only=True):
    """A player's preferences: board options, and the language replies use where no
    request names one (a Discord DM)."""

    one_tap: bool = False  # a tap plays wherever the card fits
    auto_home: bool = False  # safe cards go to the foundations by themselves
    locale: Locale | None = None


class PreferencesReply(Message, tag="preferences", kw_only=True):
    """Reply to get_preferences and set_preferences: the preferences as stored now."""

    preferences: Preferences
