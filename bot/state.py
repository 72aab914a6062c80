"""What the bot keeps on disk: a few small files in its state folder.

The server is the record of every game and race; the bot keeps only what Discord or
its players would otherwise lose at a restart: the hashes of the commands it last
synced (bot/command_sync.py) and each player's board options (bot/boards.py). A file
is replaced whole (written next to it, then renamed over it), so a crash mid-write
leaves the old file, never half a new one. A file that is missing is a first start;
one that cannot be read or decoded costs one warning line and its defaults, never
the bot.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
from pathlib import Path
from typing import Any, TypeVar

import msgspec

log = logging.getLogger(__name__)

T = TypeVar("T")


def state_dir(environ: dict[str, str] | None = None) -> Path:
    """Where the bot keeps its state: ``SOLITAIRE_BOT_STATE``, else the user's state
    folder (``$XDG_STATE_HOME/solitaire-bot``, ``~/.local/state/solitaire-bot``)."""
    env = dict(os.environ) if environ is None else environ
    if env.get("SOLITAIRE_BOT_STATE", "").strip():
        return Path(env["SOLITAIRE_BOT_STATE"].strip())
    base = env.get("XDG_STATE_HOME", "").strip() or str(Path.home() / ".local" / "state")
    return Path(base) / "solitaire-bot"


def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` by ``data`` whole: a temporary file in the same folder, flushed,
    then renamed over it (the folder is made when missing).

    Raises:
        OSError: the folder cannot be made or written; ``path`` is then unchanged.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def read_json(path: Path, kind: Any, default: T) -> T:
    """``path`` decoded as JSON of type ``kind``; ``default`` when it does not exist
    yet, and (with one warning) when it cannot be read or is not such JSON."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return default
    except OSError as err:
        log.warning("cannot read %s (%s); using the defaults", path, err)
        return default
    try:
        decoded: T = msgspec.json.decode(raw, type=kind)
        return decoded
    except (msgspec.DecodeError, msgspec.ValidationError) as err:
        log.warning("%s is damaged (%s); using the defaults", path, err)
        return default
