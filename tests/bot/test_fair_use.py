"""Fair use: a per-user cooldown (pure, clock passed in), its answer on a board, and
commands synced to Discord only when they changed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import discord
from discord_fakes import Bot, FakeInteraction, FakeUser, press

import engine
from bot.client import ArenaClient
from bot.cog import GermanTranslator, SolitaireCog
from bot.command_sync import command_payload, digest, sync_when_changed
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
        table.cooldown = Cooldown(rate=1.0, burst=2)
        table.monotonic = lambda: now[0]
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
        view = await table.client.request("get_view", table.actor(start), game=table.games[951])
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


class TestCommandSync:
    async def _tree(self) -> discord.app_commands.CommandTree[Any]:
        tree = _bot_tree()
        await tree.set_translator(GermanTranslator())
        table = Table(ArenaClient("ws://127.0.0.1:9/", "unused"), RaceDesk())
        tree.add_command(SolitaireCog(table).__cog_app_commands_group__)  # type: ignore[arg-type]
        return tree

    async def test_commands_are_synced_once_then_only_when_they_change(
        self, tmp_path: Path
    ) -> None:
        syncs: list[int] = []

        async def sync() -> None:
            syncs.append(1)

        tree = await self._tree()
        assert await sync_when_changed(tree, tmp_path, 42, sync)
        assert not await sync_when_changed(tree, tmp_path, 42, sync)
        assert not await sync_when_changed(await self._tree(), tmp_path, 42, sync)  # a restart
        assert len(syncs) == 1
        assert await sync_when_changed(tree, tmp_path, 43, sync)  # another application
        group = tree.get_commands()[0]
        assert isinstance(group, discord.app_commands.Group)
        group.get_command("stats").description = "Show my figures"  # type: ignore[union-attr]
        assert await sync_when_changed(tree, tmp_path, 42, sync)
        assert len(syncs) == 3

    async def test_the_hash_covers_the_translations(self) -> None:
        tree = await self._tree()
        payload = await command_payload(tree)
        assert any(
            "de" in (c.get("description_localizations") or {}) for c in payload[0]["options"]
        )
        plain = _bot_tree()
        table = Table(ArenaClient("ws://127.0.0.1:9/", "unused"), RaceDesk())
        plain.add_command(SolitaireCog(table).__cog_app_commands_group__)  # type: ignore[arg-type]
        assert digest(await command_payload(plain)) != digest(payload)

    async def test_a_state_folder_that_cannot_be_written_still_syncs(self, tmp_path: Path) -> None:
        blocked = tmp_path / "file"
        blocked.write_text("not a folder")
        syncs: list[int] = []

        async def sync() -> None:
            syncs.append(1)

        tree = await self._tree()
        assert await sync_when_changed(tree, blocked, 42, sync)
        assert await sync_when_changed(tree, blocked, 42, sync)
        assert len(syncs) == 2

    def test_the_state_folder_is_a_setting(self, tmp_path: Path) -> None:
        assert state_dir({"SOLITAIRE_BOT_STATE": str(tmp_path)}) == tmp_path
        assert state_dir({"XDG_STATE_HOME": "/srv/state"}) == Path("/srv/state/solitaire-bot")
