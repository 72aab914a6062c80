"""Signals that a player's play looks machine-made, for an operator to review.

A competition is worth what its claim that players are human is worth. The server holds
every winning game's move log with the time of each move, so it can measure what a
person's play does not look like (docs/operations.md, "Who is human"):

- **regularity**: the spread of the time between a player's moves, as the coefficient
  of variation (standard deviation over mean) of the gaps. People think longer before
  some moves than others (their gaps vary about as much as they last: 0.8 and more); a
  program that plays at a set pace barely varies. Gaps longer than ``LONG_GAP_MS`` (a
  player who looked away) are left out, so a pause does not make a program look human.
- **speed**: the median gap between moves. A person rarely keeps under half a second a
  move for a whole game; the fair-play floor (server/core/fairness.py) holds only wins
  faster than a quarter of a second.
- **solver match**: the share of moves that are the move the solver (engine/solver)
  would play from the position before it. A person finds the solver's move now and then;
  a program that asks the solver finds it every time.

A signal is a reason to look, never a verdict: the operator reviews the games (the
replays) and bars (``solitaire players bar``) or not. This module is pure: numbers in,
the signals and which of them cross their thresholds out.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

LONG_GAP_MS: Final = 10_000  # a gap past this is a pause, not a move's time
REGULAR_BELOW: Final = 0.35  # coefficient of variation of the gaps
FAST_BELOW_MS: Final = 500  # median gap between moves
SOLVER_FROM: Final = 0.8  # share of moves that match the solver's
SOLVER_POSITIONS: Final = 20  # positions the solver must have judged for the share to count
MIN_GAPS: Final = 20  # gaps needed before regularity and speed say anything


@dataclass(frozen=True, slots=True)
class Signals:
    """A player's signals over their recent wins: None where there was too little to say."""

    games: int
    gaps: int
    median_gap_ms: float | None
    regularity: float | None
    solver_match: float | None
    solver_positions: int

    @property
    def flags(self) -> list[str]:
        """The signals that cross their thresholds: ``regular``, ``fast``, ``solver``."""
        flags = []
        if self.regularity is not None and self.regularity < REGULAR_BELOW:
            flags.append("regular")
        if self.median_gap_ms is not None and self.median_gap_ms < FAST_BELOW_MS:
            flags.append("fast")
        if self.solver_match is not None and self.solver_match >= SOLVER_FROM:
            flags.append("solver")
        return flags


def gap_signals(gaps_ms: Sequence[float]) -> tuple[float | None, float | None, int]:
    """The median gap and the coefficient of variation of ``gaps_ms`` (the time between
    consecutive moves of the same game), pauses left out; with the gaps counted."""
    kept = [gap for gap in gaps_ms if 0 <= gap <= LONG_GAP_MS]
    if len(kept) < MIN_GAPS:
        return None, None, len(kept)
    mean = statistics.fmean(kept)
    spread = statistics.pstdev(kept) / mean if mean > 0 else 0.0
    return statistics.median(kept), spread, len(kept)


def signals(games: int, gaps_ms: Sequence[float], matched: int, judged: int) -> Signals:
    """A player's signals: their won ``games``, the gaps between their moves, and how many
    of the ``judged`` positions they played the solver's move in (``matched``)."""
    median, regularity, counted = gap_signals(gaps_ms)
    share = matched / judged if judged >= SOLVER_POSITIONS else None
    return Signals(
        games=games,
        gaps=counted,
        median_gap_ms=median,
        regularity=None if regularity is None or math.isnan(regularity) else regularity,
        solver_match=share,
        solver_positions=judged,
    )
