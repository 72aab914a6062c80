"""The bot's setting for how many connections it opens (bot/spread.py)."""

from __future__ import annotations

import pytest

from bot.app import BotSettings, SettingsError


def test_the_bot_opens_as_many_connections_as_it_is_told() -> None:
    good = {
        "DISCORD_TOKEN": "discord-token",
        "SOLITAIRE_SERVER_URL": "ws://127.0.0.1:8765/",
        "SOLITAIRE_SERVICE_TOKEN": "service-token",
    }
    assert BotSettings.from_environment(good).connections == 1
    spread = {**good, "SOLITAIRE_BOT_CONNECTIONS": "3"}
    assert BotSettings.from_environment(spread).connections == 3
    for wrong in ("0", "many", "65"):
        with pytest.raises(SettingsError, match="SOLITAIRE_BOT_CONNECTIONS"):
            BotSettings.from_environment({**good, "SOLITAIRE_BOT_CONNECTIONS": wrong})
