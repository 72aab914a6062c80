"""The review of machine-made play: every recent winner's signals, the solver asked.

The time signals come from the database in one query; the solver match replays a few
of each player's latest wins and asks the solver, at each position the player had to
decide (not a forced move, not one of the moves that finish the game by themselves),
which move it would play (server/core/suspicion.py says why). The solver gets a budget
in positions searched, not seconds, so the same games give the same share on any
machine, and a program that used the solver with a similar budget matches it nearly
always.
"""

from __future__ import annotations

from dataclasses import dataclass

import engine
from engine.solver import Verdict, solve
from server.core import fairness
from server.core.suspicion import Signals, signals
from server.store.suspects import PlayerGaps, SuspectStore, WonGame


@dataclass(frozen=True, slots=True)
class Review:
    """How hard the review looks: the stretch of days, the wins a player needs to be
    looked at, and the solver's share of the work."""

    days: int = 30
    min_games: int = 3
    solver_games: int = 3
    positions_per_game: int = 40
    solver_nodes: int = 200_000


@dataclass(frozen=True, slots=True)
class Suspect:
    """A player and their signals."""

    player: PlayerGaps
    signals: Signals


def solver_match(game: WonGame, positions: int, max_nodes: int) -> tuple[int, int]:
    """How many of up to ``positions`` decisions of ``game`` were the solver's move, and
    how many the solver judged (it found a win from the position within ``max_nodes``)."""
    replayed = engine.replay(game.variant, game.seed, game.options, game.actions)
    rules = replayed.rules
    line = [replayed.start]
    for move in replayed.moves:
        line.append(rules.apply(line[-1], move))
    decided = [
        index
        for index in range(fairness.entered_moves(replayed))
        if len(rules.legal_moves(line[index])) > 1
    ]
    step = max(1, len(decided) // positions) if positions > 0 else len(decided) + 1
    matched = judged = 0
    for index in decided[::step][:positions]:
        result = solve(rules, line[index], max_nodes, max_seconds=600.0)
        if result.verdict is not Verdict.WON or not result.moves:
            continue
        judged += 1
        matched += result.moves[0].notation() == replayed.moves[index].notation()
    return matched, judged


async def suspects(store: SuspectStore, review: Review) -> list[Suspect]:
    """Every player with enough recent wins and their signals, most flags first."""
    found = []
    for player in await store.gaps(review.days, review.min_games):
        matched = judged = 0
        if review.solver_games > 0:
            for game in await store.recent_wins(player.player_id, review.days, review.solver_games):
                hits, looked = solver_match(game, review.positions_per_game, review.solver_nodes)
                matched, judged = matched + hits, judged + looked
        found.append(Suspect(player, signals(player.games, player.gaps_ms, matched, judged)))
    found.sort(
        key=lambda s: (-len(s.signals.flags), s.signals.regularity or 9.0, s.player.player_id)
    )
    return found
