"""The player's view of a game, as the wire carries it: what a player may see, typed.

The engine builds the view (engine/view.py, compiled in engine/native/view.c) as plain
data, and the server adds the game's status and clock; these types describe that data
for every client (the schema's ``PlayerView``) and decode it on the client side. The
server sends the engine's data as it is, without converting it, since every
acknowledged move builds a view; tests/server/test_protocol.py holds the engine's
views of every variant to these types.

Nothing here can hold a face-down card: a column gives only the number of its
face-down cards, the stock only its size.
"""

from __future__ import annotations

from typing import Any, Literal, cast

import msgspec

GameStatus = Literal["playing", "won", "resigned", "left"]


class Column(msgspec.Struct, kw_only=True):
    """A tableau column: how many cards lie face down, and the face-up ones, bottom first."""

    down: int
    up: list[str]


class Foundation(msgspec.Struct, kw_only=True):
    """A foundation: its suit letter (None while a free one is empty), size and top card."""

    suit: str | None
    cards: int
    top: str | None


class Waste(msgspec.Struct, kw_only=True):
    """The waste: how many cards lie there, and those a player sees (the last one is the
    top card, the one that can be played)."""

    count: int
    visible: list[str]


class PlayerView(msgspec.Struct, kw_only=True, omit_defaults=True):
    """Everything a player may see of one of their games.

    ``seed`` and ``deal_code`` are left out while they would give away the deal (a race
    still running, a daily deal before its day closes). ``legal_moves`` lists every
    legal move in canonical notation, grouped by the source it moves from ("1"–"10"
    columns, "w" waste, "f1"… foundations, "d" deal), so a client lights targets without
    knowing the rules. ``status`` and the clock (``started_at``, ``finished_at``) come
    with every view of a live game; a replay's view (``game_record``) has neither.
    """

    variant: str
    options: dict[str, Any]
    tableau: list[Column]
    stock: int | None
    waste: Waste | None
    foundations: list[Foundation]
    counters: dict[str, int]
    outcome: str | None
    can_finish: bool
    legal_moves: dict[str, list[str]]
    status: GameStatus | None = None
    started_at: int | None = None
    seed: int | None = None
    deal_code: str | None = None
    passes: int | None = None
    runs_removed: int | None = None
    deals_left: int | None = None
    finished_at: int | None = None


def wire_view(data: dict[str, Any]) -> PlayerView:
    """The engine's view data, sent as the ``PlayerView`` it encodes to.

    Not converted: msgspec encodes the dict to the same JSON, and converting would cost
    every acknowledged move a copy of its view. The types hold the data to its shape in
    tests (tests/server/test_protocol.py), not at run time.
    """
    return cast(PlayerView, data)
