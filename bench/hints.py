"""Hints alone: how far a player gets who plays nothing but the hinted move.

Two modes, per variant:

- the engine's hint (``--seeds N`` deals from seed 0): each game plays
  ``Game.suggestion()`` until there is none or the game is won (at most ``--most``
  moves); prints the deals won, the mean cards home, the mean moves and the mean time
  of one hint, and stops with an error should a position come twice;
- ``--solver``: the hints a game with the solver's help gets (``hint_line`` and the
  line the session keeps, as tests/server/test_solver_hints.py plays them, each game
  rebuilt from its record halfway), on the first ``--seeds`` deals from 0 the solver
  wins within ``--nodes`` positions in under 1,000 moves; prints the deals, the wins,
  the hinted moves and the moves of the solver's lines.

    .venv/bin/python bench/hints.py --seeds 100
    .venv/bin/python bench/hints.py --solver --seeds 8 --nodes 2000000
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

# Run as a script, this file's folder comes first on the path and its name would
# shadow the engine package; the repository root goes there instead.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import engine  # noqa: E402
from engine.hints import position_key  # noqa: E402
from server.core.session import GameSession  # noqa: E402
from server.services.solving import Budget, hint_line  # noqa: E402

VARIANTS = list(engine.VARIANTS)


def engine_hints(variant: str, seeds: int, most: int) -> str:
    won = home = moves = hints = 0
    spent = 0.0
    for seed in range(seeds):
        game = engine.new_game(variant, seed)
        seen = {position_key(game.rules, game.position)}
        for _ in range(most):
            if game.rules.is_won(game.position):
                break
            started = time.perf_counter()
            move = game.suggestion()
            spent += time.perf_counter() - started
            hints += 1
            if move is None:
                break
            game.play(move)
            key = position_key(game.rules, game.position)
            if key in seen:
                raise SystemExit(f"{variant} {seed}: a position came twice")
            seen.add(key)
        won += game.rules.is_won(game.position)
        home += game.foundation_cards
        moves += len(game.moves)
    return (
        f"| {variant} | {seeds} | {won} | {home / seeds:.1f} | {moves / seeds:.0f} "
        f"| {1000 * spent / max(hints, 1):.2f} ms |"
    )


def session(game: engine.Game) -> GameSession:
    return GameSession(1, None, 1, game, "playing", True, {})


def helped_hint(live: GameSession, seed: int, budget: Budget) -> str | None:
    game = live.game
    if live.solver_hint() is None:
        from_deal = live.solver_line is None and game.hints > 0
        line = hint_line(game.variant, game.options, seed, list(game.actions), budget, from_deal)
        if line is not None:
            live.keep_solver_line(line)
    return live.hint(True)[0]


def solver_hints(variant: str, seeds: int, budget: Budget) -> str:
    played: list[int] = []
    won = hinted = lines = 0
    for seed in range(1000):
        if len(played) == seeds:
            break
        line = hint_line(variant, {}, seed, [], budget)
        if line is None or len(line) >= 1000:
            continue
        played.append(seed)
        lines += len(line)
        live = session(engine.new_game(variant, seed))
        for count in range(2 * len(line)):
            if live.won:
                break
            if count == len(line) // 2:
                live = session(engine.replay(variant, seed, {}, list(live.game.actions)))
            move = helped_hint(live, seed, budget)
            if move is None:
                break
            live.play(move, None)
            hinted += 1
        won += live.won
    deals = ", ".join(map(str, played))
    return f"| {variant} | {deals} | {won} | {hinted} | {lines} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="*", default=VARIANTS)
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--most", type=int, default=1000, help="moves per game at most")
    parser.add_argument("--solver", action="store_true", help="the solver's hints")
    parser.add_argument("--nodes", type=int, default=2_000_000, help="positions per search")
    args = parser.parse_args()
    if args.solver:
        print("| variant | deals | won | hinted moves | moves of the solver's lines |")
        print("|---|---|---|---|---|")
    else:
        print("| variant | deals | won | cards home (mean) | moves (mean) | one hint (mean) |")
        print("|---|---|---|---|---|---|")
    for variant in args.variants:
        if args.solver:
            row = solver_hints(variant, args.seeds, Budget(args.nodes, 600.0))
        else:
            row = engine_hints(variant, args.seeds, args.most)
        print(row, flush=True)


if __name__ == "__main__":
    main()
