"""Watching messages: the list of live races, watching one, and a racer's board as a
watcher sees it (docs/protocol.md, "Watching"; the rules in docs/arena.md).
"""

from __future__ import annotations

import msgspec

from server.protocol.view import Column, Foundation, Waste


class RacerBoard(msgspec.Struct, kw_only=True):
    """A racer's board as a watcher sees it: the piles and counts, nothing more.

    Built from the engine's player view (which holds no face-down card: a column gives
    only how many lie face down, the stock only its size), without the view's seed and
    deal code (they give the whole deal away while the race runs) nor its legal moves.
    """

    tableau: list[Column]
    stock: int | None
    waste: Waste | None
    foundations: list[Foundation]
    counters: dict[str, int]
    outcome: str | None
