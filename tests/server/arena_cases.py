"""Arenas at hand for the tests of the arena core: settings, a started arena, races
created and ended (server/core/arena.py; no database, the clock an argument)."""

from __future__ import annotations

from server.core.arena import Arena
from server.core.arena_rules import RaceLine
from server.core.arena_values import ArenaSettings, Paired

MINUTE = 60_000
START = 1_000_000


def make_arena(minutes: int = 30, race_size: int = 8, **settings: object) -> Arena:
    return Arena(
        arena_id=1,
        creator_id=1,
        settings=ArenaSettings(
            variant="klondike",
            options={},
            duration_ms=minutes * MINUTE,
            race_size=race_size,
            **settings,  # type: ignore[arg-type]
        ),
        starts_at=START,
    )


def running(players: int, **settings: object) -> Arena:
    """An arena that started with ``players`` joined, ids 1…n, rating 1000 + 10·id."""
    arena = make_arena(**settings)  # type: ignore[arg-type]
    for player in range(1, players + 1):
        arena.join(player, f"P{player}", 1000 + 10 * player, now=START - 1000)
    arena.tick(START)
    return arena


def place_all(arena: Arena, pairings: list[Paired], first_race: int = 100) -> dict[int, Paired]:
    """Each pairing's race is created: race ids from ``first_race`` on."""
    races = {}
    for offset, pairing in enumerate(pairings):
        arena.placed(pairing.pairing, first_race + offset, START)
        races[first_race + offset] = pairing
    return races


def end(arena: Arena, race_id: int, order: list[int], now: int, moves: int = 50) -> list[object]:
    """The race ended with ``order`` first place first, everyone having moved."""
    lines = [RaceLine(player, rank, moves) for rank, player in enumerate(order, start=1)]
    return list(arena.race_ended(race_id, lines, now))
