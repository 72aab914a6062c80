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

# Yukon deal 21 played as the old hint led (each move the first of a fresh solver win):
# after these moves the solver's own win begins with 1>f, taking the last move back,
# and the old hint went round from here (issue 37).
STRAYED_YUKON_21 = [
    *("2>f", "4:5>1", "3:5>2", "7:5>3", "7>3", "1:6>4", "6:5>1", "1:2>4", "2>3", "2>4"),
    *("2:5>1", "4:10>2", "4>1", "2:7>4", "5:5>2", "5>f", "3:8>5", "1:2>3", "5:3>3", "1>5"),
    *("5:4>1", "f1>1"),
]
