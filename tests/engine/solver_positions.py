"""Positions and checks the solver's tests share (the interpreted and compiled searches).

Its own module, not conftest, so test files import it by a name no other folder uses.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from engine.cards import Card, card
from engine.moves import Move
from engine.position import Pile, Position
from engine.rules import Rules

# Budgets in nodes, never in seconds, so that every run gives the same answer.
NO_TIME_LIMIT = 1e9
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def replay(rules: Rules, pos: Position, moves: Sequence[Move]) -> Position:
    """Play ``moves`` through the engine, each one checked legal first."""
    for move in moves:
        assert move in rules.legal_moves(pos), f"{move} is not legal here"
        pos = rules.apply(pos, move)
    return pos


def random_position(rules: Rules, seed: int, steps: int) -> Position:
    """A position reached from deal ``seed`` by ``steps`` random legal moves."""
    rng = random.Random(seed)
    pos = rules.deal(seed)
    for _ in range(steps):
        moves = rules.legal_moves(pos)
        if not moves:
            break
        pos = rules.apply(pos, rng.choice(moves))
    return pos


def cards_left(rng: random.Random, left: int) -> tuple[list[Pile], list[Card]]:
    """An endgame's cards: the foundations, suit by suit, with the lowest cards of each
    suit home, and the ``left`` cards still to go home, shuffled."""
    heights = [13, 13, 13, 13]
    for _ in range(left):
        suit = rng.choice([k for k in range(4) if heights[k]])
        heights[suit] -= 1
    rest = [card(rank, s) for s in range(4) for rank in range(heights[s] + 1, 14)]
    rng.shuffle(rest)
    piles = [tuple(card(rank, s) for rank in range(1, heights[s] + 1)) for s in range(4)]
    return piles, rest


def random_endgame(rules: Rules, rng: random.Random, left: int) -> Position:
    """A position with ``left`` cards still to go home: for each suit the lowest
    cards are home, the others lie shuffled in the stock (Klondike) and the columns,
    all but the top one or two of each column face down."""
    piles, rest = cards_left(rng, left)
    stock: tuple[Card, ...] = ()
    if rules.has_stock:
        split = rng.randrange(len(rest) // 2 + 1)
        stock, rest = tuple(rest[:split]), rest[split:]
    columns: list[list[Card]] = [[] for _ in range(rules.columns)]
    for c in rest:
        columns[rng.randrange(rules.columns)].append(c)
    down = tuple(max(0, len(col) - 1 - rng.randrange(2)) for col in columns)
    if not rules.suited_foundations:
        rng.shuffle(piles)  # Yukon's foundations belong to no suit
    tableau = tuple(tuple(col) for col in columns)
    return Position(tableau, down, stock, (), 0, tuple(piles), 0, 0, 0)


def position_text(head: str, foundations: str, columns: list[str], stock: str = "") -> str:
    """A position in the text form of docs/positions.md, no waste, counters at zero."""
    return "\n".join(
        [
            head,
            "moves=0 score=0 redeals=0 fan=0",
            f"foundations: {foundations}",
            f"stock: {stock}",
            "waste:",
            *(f"{i + 1}: {col}" for i, col in enumerate(columns)),
        ]
    )


def klondike_text(foundations: str, columns: list[str], stock: str = "", head: str = "") -> str:
    """A Klondike position (draw 1, no pass limit unless ``head`` says otherwise)."""
    return position_text(head or "klondike passes=0", foundations, columns, stock)


def suit_run(suit: str, top: str) -> str:
    """The cards of ``suit`` from the Ace up to ``top``, as position text."""
    return " ".join(r + suit for r in RANKS[: RANKS.index(top) + 1])


# A dead position: all black cards left, their Aces buried, no empty column, so
# nothing moves (the red suits are home). Its foundations, then its columns.
DEAD_FOUNDATIONS = "- / " + suit_run("d", "K") + " / " + suit_run("h", "K") + " / -"
DEAD_COLUMNS = [
    "Ac 2c 3c | 4c",
    "As 2s 3s | 4s",
    "5c | 6c",
    "5s | 6s",
    "7c 8c 9c | 10c",
    "7s 8s 9s 10s | Js",
    "Jc Qc Kc Qs | Ks",
]


def agreement(
    positions: Iterable[Position],
    reference: Callable[[Position], str],
    checked: Callable[[Position], str],
) -> Counter[str]:
    """Each position the reference decides gets the same verdict from ``checked``; how
    many of each verdict were compared."""
    compared: Counter[str] = Counter()
    for pos in positions:
        expected = reference(pos)
        if expected == "unknown":
            continue
        assert checked(pos) == expected
        compared[expected] += 1
    return compared
