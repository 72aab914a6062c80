"""The page's rules (server/web/rules.js) against the Python engine, move for move.

The page plays practice offline with its own port of the rules, so it must deal the
same cards from the same seed and agree with the engine on everything a player sees.
Random lines are played here with the engine (random legal moves, the engine's hints,
one-tap sources, undo, hints counted, the finish); node replays the same texts with the
page's module, and every view, every hint and every move a text resolved to must be
the engine's. Node runs the very file the server ships.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from typing import Any

import pytest

from engine import Game, MoveError, new_game
from engine.moves import STOCK, WASTE, Move, source_key
from engine.solver import solve
from server.transport.static import WEB_ROOT

NODE = shutil.which("node")  # Debian's nodejs, as chromium is for the browser tests

VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("klondike", {}),
    ("klondike", {"passes": 3}),
    ("klondike-3", {}),
    ("klondike-3", {"passes": 1}),
    ("spider-1", {}),
    ("spider-2", {"layout": "digital"}),
    ("spider-4", {}),
    ("yukon", {}),
    ("russian", {}),
    ("alaska", {}),
]
SEEDS = 8
STEPS = 160
HINTED_MOVES = 300

# Reads {variant, options, seed, steps} lines on stdin; answers per line the views after
# each step and what each step resolved to (the move played, or the hint).
DRIVER = """
import { LocalGame, MoveError, notation } from %s;
import { readFileSync } from "node:fs";
const out = [];
for (const line of JSON.parse(readFileSync(0, "utf8"))) {
  const game = new LocalGame(line.variant, BigInt(line.seed), line.options);
  const views = [game.view()];
  const results = [];
  for (const step of line.steps) {
    let result = null;
    try {
      if (step === "undo") game.undo();
      else if (step === "hint") result = game.hint();
      else if (step === "finish") {
        result = game.finishingMoves();
        for (const m of result) game.play(m);
      }
      else result = notation(game.play(step));
    } catch (error) { if (!(error instanceof MoveError)) throw error; result = "error"; }
    results.push(result);
    views.push(game.view());
  }
  out.push({ views, results });
}
process.stdout.write(JSON.stringify(out));
"""


def random_line(game: Game, rng: random.Random) -> tuple[list[str], list[Any], list[Any]]:
    """Steps a player might send, the engine's view after each, and what each did."""
    steps: list[str] = []
    results: list[Any] = []
    views: list[Any] = [game.view()]
    for _ in range(STEPS):
        legal = list(game.legal_moves)
        roll = rng.random()
        result: Any = None
        if game.can_finish and roll < 0.5:
            step = "finish"
            result = [m.notation() for m in game.finishing_moves()]
            for text in result:
                game.play(text)
        elif roll < 0.08 and game.moves:
            step = "undo"
            game.undo()
        elif roll < 0.13:
            step = "hint"
            hinted = game.hint()
            result = None if hinted is None else hinted.notation()
        elif not legal:
            break
        else:
            step = pick(game, legal, rng)
            try:
                result = game.play(step).notation()
            except MoveError:  # ambiguous "9 10": refused alike, nothing changes
                result = "error"
        steps.append(step)
        results.append(result)
        views.append(game.view())
    return steps, views, results


def pick(game: Game, legal: list[Move], rng: random.Random) -> str:
    """A move text: the engine's hint, a random legal move, or a source alone (the
    one-tap rule) or a source and a target (the keys)."""
    roll = rng.random()
    hinted = game.suggestion()
    if roll < 0.45 and hinted is not None:
        return hinted.notation()
    move = rng.choice(legal)
    if move.source == STOCK or roll < 0.75:
        return move.notation()
    source = source_key(move.source)
    if roll < 0.88:
        return f"{source}:{move.size}" if move.source >= 0 else source
    target = "f" if move.target < 0 else str(move.target + 1)
    return f"{source} {target}" if move.source != WASTE or rng.random() < 0.5 else f"w {target}"


def run_node(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    module = json.dumps((WEB_ROOT / "rules.js").as_uri())
    assert NODE is not None, "node is missing: apt-get install nodejs"
    done = subprocess.run(
        [NODE, "--input-type=module", "-e", DRIVER % module],
        input=json.dumps(lines),
        capture_output=True,
        text=True,
        timeout=100,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answer: list[dict[str, Any]] = json.loads(done.stdout)
    return answer


def plain(view: Any) -> Any:
    """The view as JSON reads it (seeds as text: large ones do not fit a double)."""
    data = json.loads(json.dumps(view))
    data["seed"] = str(data["seed"])
    return data


def compare(lines: list[dict[str, Any]], expected: list[tuple[list[Any], list[Any]]]) -> None:
    """Node's views and results for ``lines`` are the engine's, step by step."""
    answers = run_node(lines)
    for line, (views, results), answer in zip(lines, expected, answers, strict=True):
        for i, (want, got) in enumerate(zip(views, answer["views"], strict=True)):
            assert plain(got) == plain(want), (line["seed"], i, line["steps"][i - 1 : i])
        assert answer["results"] == results, line["seed"]


@pytest.mark.parametrize(("variant", "options"), VARIANTS)
def test_the_page_plays_like_the_engine(variant: str, options: dict[str, Any]) -> None:
    lines, expected = [], []
    for k in range(SEEDS):
        seed = k * 7919 + len(variant)
        rng = random.Random(f"{variant}{options}{seed}")
        steps, views, results = random_line(new_game(variant, seed, options), rng)
        lines.append({"variant": variant, "options": options, "seed": str(seed), "steps": steps})
        expected.append((views, results))
    compare(lines, expected)
    ends = {str(v["outcome"]) for views, _ in expected for v in views}
    # Klondike's "no more moves" is the subtle one (stock cycled, cards taken back).
    assert "no_moves" in ends or not variant.startswith("klondike"), ends


def solver_line(game: Game, rng: random.Random) -> tuple[list[str], list[Any], list[Any]]:
    """The solver's win with hints and undone moves on the way, and the finish."""
    steps: list[str] = []
    results: list[Any] = []
    views: list[Any] = [game.view()]

    def step(text: str) -> None:
        result: Any = None
        if text == "finish":
            result = [m.notation() for m in game.finishing_moves()]
            for move in result:
                game.play(move)
        elif text == "undo":
            game.undo()
        elif text == "hint":
            hinted = game.hint()
            result = None if hinted is None else hinted.notation()
        else:
            result = game.play(text).notation()
        steps.append(text)
        results.append(result)
        views.append(game.view())

    for move in solve(game.rules, game.position).moves or ():
        if game.can_finish and rng.random() < 0.7:
            step("finish")
            break
        roll = rng.random()
        if roll < 0.1:
            step("hint")
        step(move.notation())
        if roll > 0.95:
            step("undo")
            step(move.notation())
    return steps, views, results


@pytest.mark.parametrize(
    "variant", ["klondike", "klondike-3", "spider-1", "spider-2", "yukon", "alaska"]
)
def test_a_won_game_is_won_alike(variant: str) -> None:
    """To the end: runs lifted, the finish, the win, as the solver plays them."""
    lines, expected = [], []
    for seed in (2, 3):  # deals the solver wins (Alaska 1 is lost)
        rng = random.Random(f"{variant}{seed}")
        steps, views, results = solver_line(new_game(variant, seed), rng)
        lines.append({"variant": variant, "options": {}, "seed": str(seed), "steps": steps})
        expected.append((views, results))
    compare(lines, expected)
    assert all(views[-1]["outcome"] == "won" for views, _ in expected)
    if not variant.startswith("spider"):
        assert "finish" in {s for line in lines for s in line["steps"]}


def hints_line(game: Game) -> tuple[list[str], list[Any], list[Any]]:
    """Hints alone, each played, until there is none or the game is won: the page's
    hints must be the engine's through draws, redeals, deals and moves taken back."""
    steps: list[str] = []
    results: list[Any] = []
    views: list[Any] = [game.view()]
    for _ in range(HINTED_MOVES):
        hinted = game.hint()
        steps.append("hint")
        results.append(None if hinted is None else hinted.notation())
        views.append(game.view())
        if hinted is None:
            break
        steps.append(game.play(hinted).notation())
        results.append(steps[-1])
        views.append(game.view())
    return steps, views, results


@pytest.mark.parametrize(("variant", "options"), VARIANTS)
def test_hints_alone_are_the_engines(variant: str, options: dict[str, Any]) -> None:
    lines, expected = [], []
    for seed in (21, 2**64 - 7):
        steps, views, results = hints_line(new_game(variant, seed, options))
        lines.append({"variant": variant, "options": options, "seed": str(seed), "steps": steps})
        expected.append((views, results))
    compare(lines, expected)
    for views, results in expected:  # each line ran until won or no hint was left
        assert views[-1]["outcome"] == "won" or results[-1] is None


@pytest.mark.parametrize("variant", ["klondike", "spider-2", "yukon"])
def test_large_seeds_deal_the_same_cards(variant: str) -> None:
    seeds = [0, 1, 2**53 + 1, 2**63, 12345678901234567890, 2**64 - 1]
    lines = [{"variant": variant, "options": {}, "seed": str(s), "steps": []} for s in seeds]
    for seed, answer in zip(seeds, run_node(lines), strict=True):
        assert plain(answer["views"][0]) == plain(new_game(variant, seed).view()), seed
