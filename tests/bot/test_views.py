"""Board buttons stay inside Discord's component limits for every variant and selection."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from discord_rules import rule_breaks

import engine
from bot.views import BoardButton, BoardSelect, board_view, race_view, split_selection


def positions(variant: str, count: int) -> list[dict[str, object]]:
    """Views of real games of ``variant`` after random legal moves."""
    chooser = random.Random(variant)
    views = []
    for seed in range(count):
        game = engine.new_game(variant, seed=seed)
        for _ in range(chooser.randrange(0, 120)):
            moves = list(game.legal_moves)
            if not moves:
                break
            game.play(chooser.choice(moves))
        views.append(game.view())
    return views


@pytest.mark.parametrize("variant", sorted(engine.VARIANTS))
async def test_every_selection_fits_discords_limits(variant: str) -> None:
    for view in positions(variant, 12):
        legal = view["legal_moves"]
        assert isinstance(legal, dict)
        selections = [""]
        for source, moves in legal.items():
            selections.append(source)
            for move in moves:
                head = move.split(">")[0]
                if ":" in head:
                    selections.append(f"{source}.{head.partition(':')[2]}")
        for sel in selections:
            ui = board_view(42, view, "de", sel=sel, confirm_resign=sel == "")
            if view["outcome"] is not None:
                assert ui is None
                continue
            assert ui is not None
            children = ui.children
            rows = Counter(child.row for child in children)
            assert len(children) <= 25 and max(rows) <= 4
            for row, size in rows.items():
                selects = [c for c in children if c.row == row and isinstance(c, BoardSelect)]
                assert size <= 5 and (not selects or size == 1)
            payload = ui.to_components()  # what Discord receives: action rows
            assert 1 <= len(payload) <= 5
            for action_row in payload:
                kinds = [c["type"] for c in action_row["components"]]
                assert kinds == [3] or (kinds and set(kinds) == {2} and len(kinds) <= 5), kinds
            assert rule_breaks(None, ui) == []
            source, size = split_selection(sel)
            if source is not None:  # only the legal targets of the selection are enabled
                targets = {
                    target
                    for head, _, target in (m.partition(">") for m in legal.get(source, []))
                    if target and (size is None or int(head.partition(":")[2] or 1) == size)
                }
                lit = {  # a move's target, or the target whose card is picked next
                    c.arg[1:] if c.arg.startswith("?") else c.arg.split(">")[1]
                    for c in children
                    if isinstance(c, BoardButton) and c.op == "t" and not c.item.disabled
                }
                assert lit <= targets


async def test_race_buttons_per_state() -> None:
    def labels(state: str, start: str) -> list[str]:
        ui = race_view(7, state, "en", start)
        return [] if ui is None else [c.item.label for c in ui.children]

    assert labels("lobby", "manual") == ["Join", "Leave", "Start"]
    assert labels("countdown", "countdown") == ["Join", "Leave"]
    assert labels("running", "manual") == ["Open my board"]
    assert labels("running", "now") == ["Join", "Leave", "Open my board"]
    assert labels("finished", "now") == []


async def test_a_finished_game_has_no_buttons() -> None:
    view = engine.new_game("klondike", seed=1).view()
    view["status"] = "resigned"
    assert board_view(1, view, "en") is None
