"""The one error hook: every kind of failure becomes one short message for its user."""

from __future__ import annotations

import logging

import pytest
from discord import app_commands
from discord_fakes import FakeBot, FakeInteraction, FakeUser

from bot.answers import ErrorHook
from bot.client import ServerError


def interaction(locale: str = "en-US") -> FakeInteraction:
    return FakeInteraction(FakeBot(None), FakeUser(971, "Rita"), locale=locale)


async def test_a_server_refusal_is_told_in_the_users_language() -> None:
    asked = interaction("de")
    await ErrorHook().report(asked, ServerError("timeout"))
    assert (
        asked.sent[0].content
        == "⚠️ Der Spielserver hat nicht rechtzeitig geantwortet. Nochmal versuchen."
    )
    assert asked.sent[0].ephemeral


async def test_an_error_discord_py_wraps_around_a_command_is_unwrapped() -> None:
    asked = interaction()

    async def board(interaction: object) -> None:
        raise AssertionError("not called")

    command = app_commands.Command(name="board", description="Show my board", callback=board)
    wrapped = app_commands.CommandInvokeError(command, ServerError("timeout"))
    await ErrorHook().report(asked, wrapped)
    assert asked.sent[0].content == "⚠️ The game server did not answer in time. Try again."


async def test_a_command_used_in_a_dm_says_where_it_works() -> None:
    asked = interaction()
    await ErrorHook().report(asked, app_commands.NoPrivateMessage())
    assert asked.sent[0].content == "Races need a server channel."


async def test_race_from_an_old_command_list_in_a_dm_says_where_it_works() -> None:
    """DMs are not offered race; a client whose list is older can still send it, and
    discord.py finds no such command there."""
    asked = interaction("de")
    await ErrorHook().report(asked, app_commands.CommandNotFound("race", ["solitaire"]))
    assert asked.sent[0].content == "Rennen gibt es nur in einem Server-Kanal."


async def test_a_bug_is_logged_and_apologised_for_after_a_defer(
    caplog: pytest.LogCaptureFixture,
) -> None:
    asked = interaction()
    await asked.response.defer(ephemeral=True, thinking=True)
    with caplog.at_level(logging.ERROR, logger="bot.answers"):
        await ErrorHook().report(asked, KeyError("oops"))
    assert [m.content for m in asked.sent] == ["⚠️ Something went wrong in the bot; try again."]
    assert any(r.exc_info and isinstance(r.exc_info[1], KeyError) for r in caplog.records)
