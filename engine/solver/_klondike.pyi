"""The compiled Klondike search (engine/solver/native/klondike.c)."""

def solve(
    layout: bytes,
    draw: int,
    passes: int,
    redeals: int,
    max_nodes: int,
    max_seconds: float,
    locked: bool = True,
    /,
) -> tuple[str, list[tuple[int, int, int]], int]:
    """Search a packed position; the verdict word, the engine moves of a win, the
    positions searched. ``layout`` per column: length, face-down count, cards bottom
    first; then the talon's length, cards (waste bottom to top, then stock top to
    bottom) and pointer (the waste's size); then the four foundation heights.
    ``locked=False`` turns the locked-cards rule off (for the tests' comparison)."""
