"""The bot's items reach the table through the attribute the bot declares for it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from discord_fakes import Bot, FakeInteraction, FakeUser

from bot.app import SolitaireBot
from bot.holder import table_of


def test_an_item_finds_the_table_the_client_holds(bot: Bot) -> None:
    interaction = FakeInteraction(bot.fake, FakeUser(1, "Ann"))
    assert table_of(interaction) is bot.table
    assert SolitaireBot.__annotations__["table"] == "Table"  # declared, not set by chance


def test_a_client_without_a_table_is_told_apart() -> None:
    stranger = SimpleNamespace(client=SimpleNamespace(user=None))
    with pytest.raises(TypeError, match="holds no table"):
        table_of(stranger)
