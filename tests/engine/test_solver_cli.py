"""``solitaire solve``: the verdict, time, positions and solution, as text or JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.moves import Move
from engine.position_text import position_text
from engine.variants import rules_for
from server.ops.cli import main


def test_a_seed_prints_verdict_and_a_solution_that_replays(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = main(["solve", "--variant", "klondike-3", "--seed", "5", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert status == 0
    assert out["verdict"] == "won" and out["variant"] == "klondike-3"
    assert out["nodes"] > 0 and out["seconds"] >= 0
    rules = rules_for("klondike-3")
    pos = rules.deal(5)
    for text in out["moves"]:
        move = Move.from_notation(text)
        assert move in rules.legal_moves(pos)
        pos = rules.apply(pos, move)
    assert rules.is_won(pos)


def test_text_output_names_verdict_time_and_positions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "--variant", "yukon", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("yukon seed 1: won")
    assert "positions" in out and "solution (" in out


def test_a_position_file_is_solved(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules = rules_for("russian")
    path = tmp_path / "game.txt"
    path.write_text(position_text(rules, rules.deal(1)))
    status = main(["solve", "--position", str(path), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert (status, out["verdict"], out["source"]) == (1, "unwinnable", "position")


def test_a_spent_budget_says_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["solve", "--variant", "spider-4", "--seed", "1", "--max-nodes", "5"])
    assert status == 2
    assert "unknown" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "--seed", "3"],
        ["solve", "--variant", "yukon", "--seed", "1", "--passes", "2"],
        ["solve", "--position", "/nonexistent/position.txt"],
    ],
)
def test_bad_input_is_a_clear_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 64
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("solitaire solve:")


def test_a_malformed_position_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("klondike passes=0\nnot a position\n")
    assert main(["solve", "--position", str(path)]) == 64
    assert "solitaire solve:" in capsys.readouterr().err
