"""Deals and lines of play the solver answers quickly, measured for the solver tests."""

from __future__ import annotations

# Klondike deal 2 is proven winnable within a few hundred positions; this line of play
# (draws and waste moves) throws it away: the solver proves the end position lost in
# a few thousand positions.
LOST_SEED = 2
LOST_LINE = [
    *("d", "d", "d", "d", "w>1", "d", "d", "d", "d", "d", "d", "d", "d", "d", "d", "w>1"),
    *("d", "w>4", "w>1", "w>4", "7>1", "w>1", "4:2>7", "7:2>4", "5>1", "4:3>5"),
]
