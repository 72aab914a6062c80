"""``solitaire bot``: start the Discord bot from its three settings.

Resources are opened in ``run`` and handed to the bot (discord.py's
advanced_startup example): the server client connects first, so a wrong service
token or an unreachable server is reported before logging in to Discord. Every
wrong or missing setting ends with one clear line and exit status 2 (settings) or
1 (a service refused or unreachable), never a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import discord
from discord.ext import commands

from bot import card_emoji
from bot.arena_buttons import ArenaButton
from bot.client import ArenaClient, FatalClientError
from bot.cog import GermanTranslator, global_commands, server_commands
from bot.command_sync import CommandOffer
from bot.desk import RACERS_FILE, RaceDesk
from bot.move_menu import MoveMenu
from bot.race_buttons import RaceButton
from bot.spread import SpreadClient
from bot.state import state_dir
from bot.table import Table
from bot.views import BoardButton, BoardSelect
from bot.watch_buttons import WatchButton, WatchSelect

log = logging.getLogger("bot")


class SettingsError(ValueError):
    """A setting is missing or malformed; the message says which and how to fix it."""


@dataclass(frozen=True)
class BotSettings:
    """What the bot needs to run."""

    discord_token: str
    server_url: str
    service_token: str
    # Connections to the server (SOLITAIRE_BOT_CONNECTIONS): with several hosts behind
    # the proxy, one per host spreads the bot's races over them (bot/spread.py).
    connections: int = 1

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> BotSettings:
        """Read DISCORD_TOKEN, SOLITAIRE_SERVER_URL and SOLITAIRE_SERVICE_TOKEN.

        Raises:
            SettingsError: one is missing or the URL is not a ws:// or wss:// URL.
        """
        env = os.environ if environ is None else environ
        missing = [
            name
            for name in ("DISCORD_TOKEN", "SOLITAIRE_SERVER_URL", "SOLITAIRE_SERVICE_TOKEN")
            if not env.get(name, "").strip()
        ]
        if missing:
            raise SettingsError(
                f"missing setting{'s' if len(missing) > 1 else ''} {', '.join(missing)}: "
                "set them in the environment (see docs/discord.md)"
            )
        url = env["SOLITAIRE_SERVER_URL"].strip()
        if not url.startswith(("ws://", "wss://")):
            raise SettingsError(
                f"SOLITAIRE_SERVER_URL must be a ws:// or wss:// URL, got {url!r} "
                "(for example ws://server:8765/)"
            )
        count = env.get("SOLITAIRE_BOT_CONNECTIONS", "1").strip() or "1"
        if not count.isdigit() or not 1 <= int(count) <= 64:
            raise SettingsError(
                f"SOLITAIRE_BOT_CONNECTIONS must be a number from 1 to 64, got {count!r}"
            )
        token = env["SOLITAIRE_SERVICE_TOKEN"].strip()
        return cls(env["DISCORD_TOKEN"].strip(), url, token, int(count))


class SolitaireBot(commands.Bot):
    """The bot: one server client, one race desk, the /solitaire commands; its items reach
    the table through ``table`` (bot/holder.py)."""

    table: Table

    def __init__(self, client: ArenaClient, desk: RaceDesk, state: Path | None = None) -> None:
        intents = discord.Intents.default()  # guilds and DMs; no privileged intent
        super().__init__(command_prefix=commands.when_mentioned, intents=intents)
        self.arena = client
        self.desk = desk
        self.state = state or state_dir()  # where the bot keeps what it must remember
        self.table = Table(client, desk)
        self._desk_task: asyncio.Task[None] | None = None
        self._reattached = False
        self.offer: CommandOffer | None = None  # made once logged in (the application id)

    async def setup_hook(self) -> None:
        marks = await card_emoji.install(self)  # logged in: the application id is known
        if marks is not None:
            self.table.boards.suits = marks
        await self.tree.set_translator(GermanTranslator())
        # What discord.py raises around a command (one used where it is not offered)
        # is answered by the same hook as the commands' own failures.
        self.tree.error(self.table.boards.errors.report)
        self.add_dynamic_items(
            BoardButton, BoardSelect, MoveMenu, RaceButton, ArenaButton, WatchButton, WatchSelect
        )
        self._desk_task = asyncio.create_task(self.desk.run(), name="race-desk")
        self._desk_task.add_done_callback(_report_crash)
        assert self.application_id is not None  # known once logged in
        self.offer = CommandOffer(
            self.tree,
            self.state,
            self.application_id,
            everywhere=global_commands(self.table),
            servers=server_commands(self.table),
        )
        await self.offer.start()

    async def on_ready(self) -> None:
        """Once the guilds are known: offer the server commands in each (synced only
        where they changed), and edit again the messages of races opened before a
        restart (on_ready comes again after each Discord reconnect; once is enough)."""
        assert self.offer is not None  # setup_hook ran before
        synced = [await self.offer.join(guild) for guild in self.guilds]
        log.info("commands offered in %d server(s), %d synced", len(synced), sum(synced))
        if self._reattached:
            return
        self._reattached = True
        try:
            count = await self.table.races.reattach_races(
                [g.id for g in self.guilds], self.get_channel
            )
        except Exception:
            log.exception("could not re-attach open races")
        else:
            log.info("re-attached %d open race message(s)", count)

    async def on_guild_join(self, guild: discord.Guild) -> None:
        """A new server: offer the commands there (the only server synced)."""
        if self.offer is not None:
            await self.offer.join(guild)

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """The bot left a server: forget its commands (joining again syncs them)."""
        if self.offer is not None:
            self.offer.leave(guild)

    async def on_message(self, message: discord.Message) -> None:
        """Plain text in a DM with the bot is a move."""
        if message.guild is not None or message.author.bot or not message.content.strip():
            return
        try:
            await self.table.play.dm_move(message)
        except Exception:
            log.exception("DM move failed")

    async def close(self) -> None:
        if self._desk_task is not None:
            self._desk_task.cancel()
        await super().close()


def _report_crash(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("%s crashed", task.get_name(), exc_info=task.exception())


async def _until_stopped(bot: SolitaireBot, token: str) -> None:
    """Run the bot until it stops by itself or SIGTERM/SIGINT asks it to (docker stop)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, stop.set)
    running = asyncio.create_task(bot.start(token), name="discord")
    stopping = asyncio.create_task(stop.wait(), name="stop-signal")
    try:
        await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if stopping.done():
            log.info("stopping on signal")
            await bot.close()
        await running  # re-raises a login or connection failure
    finally:
        stopping.cancel()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)


async def run(settings: BotSettings, connect_timeout: float = 30.0) -> int:
    """Connect to the server, then to Discord; run until stopped. Returns the exit status."""
    desk = RaceDesk(racers_file=state_dir() / RACERS_FILE)
    client = (
        ArenaClient(
            settings.server_url,
            settings.service_token,
            on_event=desk.on_event,
            on_race=desk.on_race,
        )
        if settings.connections == 1
        else SpreadClient(
            settings.server_url,
            settings.service_token,
            settings.connections,
            on_event=desk.on_event,
            on_race=desk.on_race,
        )
    )
    try:
        await client.start(timeout=connect_timeout)
    except FatalClientError as err:
        print(f"solitaire bot: the server refused the bot: {err}", file=sys.stderr)
        await client.close()
        return 1
    except TimeoutError:
        print(
            f"solitaire bot: cannot reach the server at {settings.server_url} "
            f"within {connect_timeout:.0f}s; is it running?",
            file=sys.stderr,
        )
        await client.close()
        return 1
    bot = SolitaireBot(client, desk)
    try:
        async with bot:
            await _until_stopped(bot, settings.discord_token)
    except discord.LoginFailure:
        print(
            "solitaire bot: Discord refused DISCORD_TOKEN; copy the bot token from the "
            "Developer Portal again (docs/discord.md)",
            file=sys.stderr,
        )
        return 1
    except discord.PrivilegedIntentsRequired as err:
        print(f"solitaire bot: {err}", file=sys.stderr)
        return 1
    except (OSError, aiohttp.ClientError, discord.HTTPException, discord.GatewayNotFound) as err:
        print(f"solitaire bot: cannot reach Discord: {err}", file=sys.stderr)
        return 1
    finally:
        await client.close()
    return 0


def run_bot(args: argparse.Namespace) -> int:
    """The ``solitaire bot`` subcommand."""
    try:
        settings = BotSettings.from_environment()
    except SettingsError as err:
        print(f"solitaire bot: {err}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    with contextlib.suppress(KeyboardInterrupt):
        return asyncio.run(run(settings))
    return 0
