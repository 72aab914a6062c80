"""Commands are synced to Discord only when they changed.

Discord allows an application few command updates a day, and every start of the bot
used to send all of them. Now the bot computes the payload Discord would receive
(each command as discord.py sends it, translations included), hashes it, and syncs
only when the hash differs from the one kept in the bot's state folder (one file per
application, so a new token of another application syncs at once). No state folder,
or one that cannot be written, means a sync at every start, as before, with one
log line.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from discord import app_commands

from bot.state import write_atomically

log = logging.getLogger(__name__)


async def command_payload(tree: app_commands.CommandTree[Any]) -> list[dict[str, Any]]:
    """The global commands exactly as ``tree.sync()`` would send them."""
    commands = tree.get_commands()
    translator = tree.translator
    if translator is None:
        return [command.to_dict(tree) for command in commands]
    return [await command.get_translated_payload(tree, translator) for command in commands]


def digest(payload: list[dict[str, Any]]) -> str:
    """A stable hash of a command payload (key order does not matter)."""
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


async def sync_when_changed(
    tree: app_commands.CommandTree[Any],
    folder: Path,
    application_id: int,
    sync: Callable[[], Awaitable[Any]] | None = None,
) -> bool:
    """Sync ``tree``'s global commands (``sync``, ``tree.sync`` by default) unless
    their hash equals the one last synced for ``application_id``; True when synced."""
    wanted = digest(await command_payload(tree))
    stamp = folder / f"commands-{application_id}.sha256"
    try:
        if stamp.read_text(encoding="utf-8").strip() == wanted:
            log.info("commands unchanged since the last sync; not synced")
            return False
    except OSError:
        pass  # never synced from here (or unreadable): sync
    await (sync or tree.sync)()
    try:
        write_atomically(stamp, (wanted + "\n").encode())
    except OSError as err:
        log.warning("commands synced, but their hash cannot be kept in %s: %s", folder, err)
    return True
