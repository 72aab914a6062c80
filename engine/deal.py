"""Deals from seeds: a portable PRNG and Fisher–Yates shuffle (docs/deals.md).

Any client in any language can rebuild a deal from (variant, seed): the generator is
SplitMix64, the shuffle is Fisher–Yates from the last position down, and the draw of
an index uses rejection so no index is favoured. Nothing here touches the global
``random``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, TypeVar

T = TypeVar("T")

MASK64: Final = (1 << 64) - 1
GOLDEN_GAMMA: Final = 0x9E3779B97F4A7C15


class SplitMix64:
    """The SplitMix64 generator (Steele, Lea, Flood 2014), 64-bit state."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        if not 0 <= seed <= MASK64:
            raise ValueError(f"seed must be an unsigned 64-bit integer, got {seed}")
        self.state = seed

    def next(self) -> int:
        """The next 64-bit output."""
        self.state = (self.state + GOLDEN_GAMMA) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, bound: int) -> int:
        """A uniform integer in ``[0, bound)``: outputs at or above the largest
        multiple of ``bound`` are thrown away so that no value is favoured."""
        limit = (1 << 64) - (1 << 64) % bound
        while True:
            x = self.next()
            if x < limit:
                return x % bound


def shuffled(items: Sequence[T], seed: int) -> list[T]:
    """A copy of ``items`` shuffled by Fisher–Yates driven by SplitMix64(seed):
    for i from n-1 down to 1, swap position i with position below(i + 1)."""
    deck = list(items)
    rng = SplitMix64(seed)
    for i in range(len(deck) - 1, 0, -1):
        j = rng.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


# Crockford's base 32: no I, L, O, U, so a code read aloud or typed is hard to garble.
_CODE_ALPHABET: Final = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_CODE_READ: Final = {
    **{ch: i for i, ch in enumerate(_CODE_ALPHABET)},
    "O": 0,
    "I": 1,
    "L": 1,
}


def deal_code(seed: int) -> str:
    """The short shareable code of a seed: Crockford base 32, grouped by four."""
    if not 0 <= seed <= MASK64:
        raise ValueError(f"seed must be an unsigned 64-bit integer, got {seed}")
    digits = []
    while True:
        seed, digit = divmod(seed, 32)
        digits.append(_CODE_ALPHABET[digit])
        if seed == 0:
            break
    text = "".join(reversed(digits))
    groups = [text[max(0, i - 4) : i] for i in range(len(text), 0, -4)]
    return "-".join(reversed(groups))


def seed_from_code(code: str) -> int:
    """The seed of a deal code; case, dashes and spaces do not matter.

    Raises:
        ValueError: the code has a character outside the alphabet or is too large.
    """
    text = code.strip().upper().replace("-", "").replace(" ", "")
    if not text:
        raise ValueError("a deal code needs at least one character")
    seed = 0
    for ch in text:
        if ch not in _CODE_READ:
            raise ValueError(f"{code!r} is not a deal code: {ch!r} is not allowed")
        seed = seed * 32 + _CODE_READ[ch]
    if seed > MASK64:
        raise ValueError(f"{code!r} is not a deal code: it is larger than 64 bits")
    return seed
