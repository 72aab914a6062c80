"""Arena messages: create, join, pause, leave and follow an arena tournament, and what
it pushes (docs/protocol.md, "Arenas"; the rules in docs/arena.md).

The arena core (server/core/arena.py) decides; the arena service stores and sends.
"""

from __future__ import annotations

from typing import Literal

import msgspec

ArenaPlayerStatus = Literal["waiting", "paired", "racing", "paused"]


class ArenaLine(msgspec.Struct, kw_only=True):
    """A player's line of an arena's standings."""

    rank: int
    player: int
    name: str
    score: int
    # Won races in a row now; two or more is "on fire": the next race scores double.
    streak: int
    fire: bool
    races: int
    wins: int
    status: ArenaPlayerStatus
