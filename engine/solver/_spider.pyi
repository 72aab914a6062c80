"""The compiled Spider search (engine/solver/native/spider.c)."""

from collections.abc import Sequence

def solve(
    tableau: Sequence[Sequence[int]],
    down: Sequence[int],
    stock: Sequence[int],
    lifted: int,
    max_nodes: int,
    max_seconds: float,
    /,
) -> tuple[str, list[tuple[int, int, int]], int]:
    """Search a Spider position: (verdict word, moves in engine codes, positions searched).

    ``tableau`` lists each pile bottom card first, ``down`` its face-down count,
    ``stock`` the stock with the next card to deal last, ``lifted`` the runs already
    off. The verdict is "won", "unwinnable" (an exhaustive search under proven
    pruning) or "unknown" (a budget or the memory bound ran out).
    """
