"""Fair use: a per-user cooldown (pure, clock passed in), its answer on a board, and
commands synced to Discord only when they changed."""

from __future__ import annotations

import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord
import pytest
from discord_fakes import Bot, FakeInteraction, FakeUser, press

import engine
from bot.client import ArenaClient
from bot.cog import GermanTranslator, SolitaireCog, global_commands, server_commands
from bot.command_sync import CommandOffer, command_payload, digest
from bot.desk import RaceDesk
from bot.fair_use import Cooldown
from bot.state import state_dir
from bot.table import Table


class TestCooldown:
    def test_a_burst_is_allowed_then_the_user_waits(self) -> None:
        cooldown = Cooldown(rate=2.0, burst=3)
        assert [cooldown.allow(1, 10.0) for _ in range(4)] == [True, True, True, False]
        assert not cooldown.allow(1, 10.4)  # 0.8 of a token back: not yet
        assert cooldown.allow(1, 10.5)  # one token back after half a second
        assert not cooldown.allow(1, 10.5)

    def test_one_user_hammering_leaves_the_others_their_share(self) -> None:
        cooldown = Cooldown(rate=1.0, burst=2)
        assert [cooldown.allow(1, 0.0) for _ in range(5)] == [True, True, False, False, False]
        assert cooldown.allow(2, 0.0) and cooldown.allow(2, 0.0)

    def test_refused_taps_do_not_earn_tokens(self) -> None:
        cooldown = Cooldown(rate=1.0, burst=1)
        assert cooldown.allow(1, 0.0)
        assert not cooldown.allow(1, 0.5)
        assert not cooldown.allow(1, 0.9)
        assert cooldown.allow(1, 1.0)

    def test_a_long_pause_refills_only_up_to_the_burst(self) -> None:
        cooldown = Cooldown(rate=1.0, burst=2)
        cooldown.allow(1, 0.0)
        assert [cooldown.allow(1, 1000.0) for _ in range(3)] == [True, True, False]

    def test_idle_users_are_forgotten_when_the_table_is_full(self, monkeypatch: Any) -> None:
        monkeypatch.setattr("bot.fair_use.MAX_USERS", 3)
        cooldown = Cooldown(rate=1.0, burst=2)
        for user in (1, 2, 3):
            cooldown.allow(user, 0.0)
        cooldown.allow(4, 100.0)  # 1, 2 and 3 have long refilled
        assert set(cooldown._buckets) == {4}


class TestSlowDown:
    async def test_a_user_over_the_cooldown_is_told_privately_and_nothing_is_sent(
        self, bot: Bot
    ) -> None:
        now = [0.0]
        table = bot.table
        table.boards.cooldown = Cooldown(rate=1.0, burst=2)
        table.boards.monotonic = lambda: now[0]
        user = FakeUser(951, "Lea")
        start = FakeInteraction(bot.fake, user)
        await SolitaireCog.play.callback(  # type: ignore[arg-type]
            bot.cog,
            start,
            variant=discord.app_commands.Choice(name="K", value="klondike"),
            deal=engine.deal_code(1),
        )
        [board] = start.sent
        before = board.content
        await press(bot.fake, user, board, "Draw")
        moves_after_one = board.content
        assert moves_after_one != before
        hammered = await press(bot.fake, user, board, "Draw")
        [reply] = hammered.sent
        assert reply.ephemeral
        assert reply.content == "Slow down a little: too many taps at once. Try again in a moment."
        assert board.content == moves_after_one  # no draw reached the server
        view = await table.boards.client.request(
            "get_view", table.boards.actor(start), game=table.boards.games[951]
        )
        fresh = engine.new_game("klondike", seed=1).view()
        assert view["view"]["stock"] == fresh["stock"] - 1  # one draw, not two
        other = FakeUser(952, "Mo")
        elsewhere = FakeInteraction(bot.fake, other)
        await SolitaireCog.board.callback(bot.cog, elsewhere)  # type: ignore[arg-type]
        assert "no game" in elsewhere.sent[0].content  # Mo is not slowed by Lea
        now[0] = 1.0
        await press(bot.fake, user, board, "Draw")  # a second later Lea plays again
        assert board.content != moves_after_one


def _bot_tree() -> discord.app_commands.CommandTree[Any]:
    """The command tree as the bot builds it (no Discord: nothing is sent)."""
    from bot.app import SolitaireBot

    client = ArenaClient("ws://127.0.0.1:9/", "unused")
    return SolitaireBot(client, RaceDesk(), state=Path("/nonexistent")).tree


class Syncs:
    """Discord's side of syncing: the scopes synced, in order (None: the global commands);
    ``refuse`` makes the next sync of that server fail as Discord's 403 would."""

    def __init__(self) -> None:
        self.scopes: list[int | None] = []
        self.refuse: set[int] = set()

    async def __call__(self, guild: discord.abc.Snowflake | None) -> None:
        if guild is not None and guild.id in self.refuse:
            response = SimpleNamespace(status=403, reason="Forbidden")
            raise discord.Forbidden(response, "Missing Access")  # type: ignore[arg-type]
        self.scopes.append(None if guild is None else guild.id)


async def _offer(folder: Path, syncs: Syncs, application: int = 42) -> CommandOffer:
    """The commands as a (re)started bot offers them, on the state folder ``folder``."""
    tree = _bot_tree()
    await tree.set_translator(GermanTranslator())
    table = Table(ArenaClient("ws://127.0.0.1:9/", "unused"), RaceDesk())
    return CommandOffer(
        tree,
        folder,
        application,
        everywhere=global_commands(table),
        servers=server_commands(table),
        sync=syncs,
    )


def _subcommands(payload: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    [group] = payload
    assert group["name"] == "solitaire"
    return {option["name"]: option for option in group["options"]}


SERVER_A, SERVER_B, SERVER_C = (discord.Object(id=n) for n in (5001, 5002, 5003))


class TestCommandSync:
    async def test_the_global_command_holds_all_but_race_in_servers_dms_and_group_dms(
        self, tmp_path: Path
    ) -> None:
        offer = await _offer(tmp_path, Syncs())
        await offer.start()
        [everywhere] = await command_payload(offer.tree)
        commands = _subcommands([everywhere])
        assert "race" not in commands and "arena" not in commands
        assert {"play", "daily", "board", "move", "options", "stats"} <= set(commands)
        assert {"quickmatch", "leaderboard", "help"} <= set(commands)
        # GUILD, BOT_DM and PRIVATE_CHANNEL: usable in any server the user is in, in DMs
        # with the bot and in group DMs; installable by a server (0) and by a user (1).
        assert everywhere["contexts"] == [0, 1, 2]
        assert everywhere["integration_types"] == [0, 1]
        assert commands["play"]["name_localizations"] == {"de": "spielen"}

    async def test_servers_add_race_and_no_command_is_listed_twice(self, tmp_path: Path) -> None:
        offer = await _offer(tmp_path, Syncs())
        await offer.start()
        await offer.join(SERVER_A)
        [server] = await command_payload(offer.tree, SERVER_A)
        commands = _subcommands([server])
        assert set(commands) == {"race", "arena"}
        assert commands["race"]["name_localizations"] == {"de": "rennen"}
        assert commands["race"]["description_localizations"]["de"]
        # Beside the global command's subcommands, a server lists every command once.
        everywhere = set(_subcommands(await command_payload(offer.tree)))
        cog = SolitaireCog(Table(ArenaClient("ws://127.0.0.1:9/", "unused"), RaceDesk()))
        every = {c.name for c in cog.__cog_app_commands_group__.commands}  # type: ignore[union-attr]
        assert everywhere | set(commands) == every and not everywhere & set(commands)
        assert await command_payload(offer.tree, SERVER_B) == []  # not joined: nothing there

    async def test_race_is_found_in_a_server_and_not_in_a_dm(self, tmp_path: Path) -> None:
        """How discord.py routes an interaction: a server's command carries its guild id,
        a DM's does not (the tree's own lookup, as it dispatches)."""
        offer = await _offer(tmp_path, Syncs())
        await offer.start()
        await offer.join(SERVER_A)
        race = {"type": 1, "name": "race", "options": []}
        in_server = {"name": "solitaire", "guild_id": str(SERVER_A.id), "options": [race]}
        command, _ = offer.tree._get_app_command_options(in_server)  # type: ignore[arg-type]
        assert command.qualified_name == "solitaire race"
        with pytest.raises(discord.app_commands.CommandNotFound):
            offer.tree._get_app_command_options({"name": "solitaire", "options": [race]})  # type: ignore[typeddict-item]
        play = {"name": "solitaire", "options": [{"type": 1, "name": "play", "options": []}]}
        command, _ = offer.tree._get_app_command_options(play)  # type: ignore[arg-type]
        assert command.qualified_name == "solitaire play"
        # The global command used in a server (one where the bot is, or one where only
        # the user installed it): its data names no guild, so the global group answers.
        daily = {"name": "solitaire", "options": [{"type": 1, "name": "daily", "options": []}]}
        command, _ = offer.tree._get_app_command_options(daily)  # type: ignore[arg-type]
        assert command.qualified_name == "solitaire daily"

    async def test_a_second_start_syncs_nothing_and_a_join_syncs_that_server_only(
        self, tmp_path: Path
    ) -> None:
        syncs = Syncs()
        first = await _offer(tmp_path, syncs)
        assert await first.start()
        assert [await first.join(g) for g in (SERVER_A, SERVER_B)] == [True, True]
        assert syncs.scopes == [None, SERVER_A.id, SERVER_B.id]
        assert not await first.join(SERVER_A)  # on_ready again after a reconnect

        again = await _offer(tmp_path, syncs)  # a restart
        assert not await again.start()
        assert [await again.join(g) for g in (SERVER_A, SERVER_B)] == [False, False]
        assert await again.join(SERVER_C)  # invited meanwhile
        assert syncs.scopes == [None, SERVER_A.id, SERVER_B.id, SERVER_C.id]

        again.leave(SERVER_B)  # removed from a server: added back, it is synced anew
        assert await command_payload(again.tree, SERVER_B) == []
        assert await again.join(SERVER_B) and syncs.scopes[-1] == SERVER_B.id

    async def test_a_server_that_refuses_is_logged_and_tried_again(
        self, tmp_path: Path, caplog: pytest.LogCaptureFixture
    ) -> None:
        syncs = Syncs()
        syncs.refuse.add(SERVER_A.id)
        offer = await _offer(tmp_path, syncs)
        await offer.start()
        with caplog.at_level(logging.WARNING):
            assert not await offer.join(SERVER_A)
            assert await offer.join(SERVER_B)  # the others go on
        assert f"cannot sync the commands of server {SERVER_A.id}" in caplog.text
        syncs.refuse.clear()
        assert await offer.join(SERVER_A)  # nothing was kept: the next start syncs it

    async def test_commands_are_synced_again_when_they_change(self, tmp_path: Path) -> None:
        syncs = Syncs()
        offer = await _offer(tmp_path, syncs)
        await offer.start()
        await offer.join(SERVER_A)
        other = await _offer(tmp_path, syncs, application=43)  # another application
        assert await other.start() and await other.join(SERVER_A)
        race = offer.servers.get_command("race")
        assert race is not None
        race.description = "Open a race here"
        assert await offer.join(SERVER_A)
        assert not await offer.start()  # the global group is another copy: unchanged
        assert syncs.scopes == [None, SERVER_A.id, None, SERVER_A.id, SERVER_A.id]

    async def test_the_hash_covers_the_translations(self, tmp_path: Path) -> None:
        offer = await _offer(tmp_path, Syncs())
        await offer.start()
        payload = await command_payload(offer.tree)
        assert any(
            "de" in (c.get("description_localizations") or {}) for c in payload[0]["options"]
        )
        plain = _bot_tree()
        table = Table(ArenaClient("ws://127.0.0.1:9/", "unused"), RaceDesk())
        plain.add_command(global_commands(table))
        assert digest(await command_payload(plain)) != digest(payload)

    async def test_a_state_folder_that_cannot_be_written_still_syncs(self, tmp_path: Path) -> None:
        blocked = tmp_path / "file"
        blocked.write_text("not a folder")
        syncs = Syncs()
        offer = await _offer(blocked, syncs)
        assert await offer.start() and await offer.start()
        assert await offer.join(SERVER_A) and await offer.join(SERVER_A)
        assert syncs.scopes == [None, None, SERVER_A.id, SERVER_A.id]

    def test_the_state_folder_is_a_setting(self, tmp_path: Path) -> None:
        assert state_dir({"SOLITAIRE_BOT_STATE": str(tmp_path)}) == tmp_path
        assert state_dir({"XDG_STATE_HOME": "/srv/state"}) == Path("/srv/state/solitaire-bot")
