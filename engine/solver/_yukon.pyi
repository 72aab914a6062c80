"""The compiled Yukon-family search (engine/solver/native/yukon.c)."""

from collections.abc import Sequence

def solve(
    variant: int,
    tableau: Sequence[Sequence[int]],
    down: Sequence[int],
    foundations: Sequence[Sequence[int]],
    max_nodes: int,
    max_seconds: float,
    max_bytes: int = ...,
    locked: bool = ...,
    probes: bool = ...,
) -> tuple[str, list[tuple[int, int, int]], int]:
    """Search a Yukon (0), Russian (1) or Alaska (2) position: the verdict word, the
    engine moves of a win and the positions searched.

    ``max_bytes`` bounds the memory (1 GiB by default; reaching it answers
    unknown). ``locked`` (the locked-cards rule) and ``probes`` (short searches in
    shuffled orders first) are on by default; tests switch them off to compare.
    """
