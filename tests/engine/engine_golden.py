"""The golden deals: for a fixed set of seeds, each variant's dealt layout, checked in
under tests/engine/golden/ so that a change of the deal algorithm cannot go unnoticed.

Regenerate only on purpose (a deliberate change of docs/deals.md), then review the diff::

    REGENERATE_GOLDEN=1 .venv/bin/pytest tests/engine/test_engine_deal.py
    # or: .venv/bin/python tests/engine/engine_golden.py
"""

from __future__ import annotations

from pathlib import Path

from engine.deal import deal_code
from engine.game import new_game
from engine.position_text import game_text

GOLDEN_DIR = Path(__file__).parent / "golden"
GOLDEN_SEEDS = (0, 1, 2, 42, 2**63 + 5, 2**64 - 1)
# File name, variant, options: every variant, and Spider's digital layout once.
GOLDEN_CASES: tuple[tuple[str, str, dict[str, object]], ...] = (
    ("klondike", "klondike", {}),
    ("klondike-3", "klondike-3", {}),
    ("spider-1", "spider-1", {}),
    ("spider-2", "spider-2", {}),
    ("spider-4", "spider-4", {}),
    ("spider-4-digital", "spider-4", {"layout": "digital"}),
    ("yukon", "yukon", {}),
    ("russian", "russian", {}),
    ("alaska", "alaska", {}),
)
SEPARATOR = "\n\n"


def golden_path(name: str) -> Path:
    """Where the golden deals of ``name`` live."""
    return GOLDEN_DIR / f"{name}.txt"


def golden_text(variant: str, options: dict[str, object]) -> str:
    """The dealt layouts of ``variant`` for every golden seed, each headed by a
    ``# seed ... code ...`` line and separated by a blank line."""
    blocks = []
    for seed in GOLDEN_SEEDS:
        game = new_game(variant, seed, options)
        blocks.append(f"# seed {seed} code {deal_code(seed)}\n{game_text(game)}")
    return SEPARATOR.join(blocks) + "\n"


def write_golden() -> list[Path]:
    """Write every golden file from the engine as it deals now."""
    GOLDEN_DIR.mkdir(exist_ok=True)
    written = []
    for name, variant, options in GOLDEN_CASES:
        path = golden_path(name)
        path.write_text(golden_text(variant, options), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for path in write_golden():
        print(path)
