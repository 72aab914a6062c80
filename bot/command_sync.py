"""Commands are offered where they work, and synced to Discord only when they changed.

Where: ``/solitaire`` is two command groups (bot/cog.py). The one global command holds
every command that needs no server (contexts: servers, DMs with the bot, group DMs;
installable by servers and users); the server group (``race``) is a guild command of
each server the bot is in, which Discord shows only in that server, beside the global
command's subcommands, and which ignores contexts. The server group is
added for every server at start (once Discord has named them) and when the bot joins
one; a server that removes the bot loses it.

When: Discord allows an application few command updates a day, and every start of
the bot used to send all of them. For each scope (global, or one server) the bot
computes the payload Discord would receive (each command as discord.py sends it,
translations included), hashes it, and syncs that scope only when the hash differs
from the one kept in the bot's state folder (one file per application and scope, so
a new token of another application syncs at once). No state folder, or one that
cannot be written, means a sync at every start, as before, with one log line.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import discord
from discord import app_commands

from bot.state import write_atomically

log = logging.getLogger(__name__)

# Syncs one scope with Discord: None for the global commands, else a server.
Sync = Callable[[discord.abc.Snowflake | None], Awaitable[Any]]


async def command_payload(
    tree: app_commands.CommandTree[Any], guild: discord.abc.Snowflake | None = None
) -> list[dict[str, Any]]:
    """The commands of one scope (global, or ``guild``'s) exactly as ``tree.sync`` would
    send them."""
    commands = tree.get_commands(guild=guild)
    translator = tree.translator
    if translator is None:
        return [command.to_dict(tree) for command in commands]
    return [await command.get_translated_payload(tree, translator) for command in commands]


def digest(payload: list[dict[str, Any]]) -> str:
    """A stable hash of a command payload (key order does not matter)."""
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def stamp_file(folder: Path, application_id: int, guild: discord.abc.Snowflake | None) -> Path:
    """Where the hash last synced for a scope is kept."""
    scope = "" if guild is None else f"-guild-{guild.id}"
    return folder / f"commands-{application_id}{scope}.sha256"


async def sync_when_changed(
    tree: app_commands.CommandTree[Any],
    folder: Path,
    application_id: int,
    guild: discord.abc.Snowflake | None = None,
    sync: Sync | None = None,
) -> bool:
    """Sync ``tree``'s commands of one scope (global, or ``guild``'s) with ``sync``
    (``tree.sync`` by default) unless their hash equals the one last synced there for
    ``application_id``; True when synced."""
    wanted = digest(await command_payload(tree, guild))
    stamp = stamp_file(folder, application_id, guild)
    try:
        if stamp.read_text(encoding="utf-8").strip() == wanted:
            return False
    except OSError:
        pass  # never synced from here (or unreadable): sync
    if sync is None:
        await tree.sync(guild=guild)
    else:
        await sync(guild)
    try:
        write_atomically(stamp, (wanted + "\n").encode())
    except OSError as err:
        log.warning("commands synced, but their hash cannot be kept in %s: %s", folder, err)
    return True


class CommandOffer:
    """The ``/solitaire`` groups in ``tree``: ``everywhere`` global, ``servers`` in each
    server the bot is in; each scope synced only when it changed."""

    def __init__(
        self,
        tree: app_commands.CommandTree[Any],
        folder: Path,
        application_id: int,
        *,
        everywhere: app_commands.Group,
        servers: app_commands.Group,
        sync: Sync | None = None,
    ) -> None:
        self.tree = tree
        self.folder = folder
        self.application_id = application_id
        self.everywhere = everywhere
        self.servers = servers
        self.sync = sync

    async def start(self) -> bool:
        """Offer the global group; True when it had to be synced."""
        self.tree.add_command(self.everywhere, override=True)
        synced = await self._sync(None)
        log.info("global commands %s", "synced" if synced else "unchanged; not synced")
        return synced

    async def join(self, guild: discord.abc.Snowflake) -> bool:
        """Offer the server group in ``guild`` (at start, or when the bot joins it); True
        when it had to be synced. A server that refuses (the bot was added without the
        ``applications.commands`` scope) is logged and tried again at the next start."""
        self.tree.add_command(self.servers, guild=guild, override=True)
        try:
            return await self._sync(guild)
        except discord.HTTPException as err:
            log.warning("cannot sync the commands of server %s: %s", guild.id, err)
            return False

    def leave(self, guild: discord.abc.Snowflake) -> None:
        """The bot left ``guild``: its commands are dropped here, and its hash forgotten,
        so joining again syncs them anew."""
        self.tree.remove_command(self.servers.name, guild=guild)
        with contextlib.suppress(OSError):
            stamp_file(self.folder, self.application_id, guild).unlink(missing_ok=True)

    async def _sync(self, guild: discord.abc.Snowflake | None) -> bool:
        return await sync_when_changed(
            self.tree, self.folder, self.application_id, guild, self.sync
        )
