"""Board buttons stay inside Discord's component limits for every variant and selection."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from discord_rules import rule_breaks

import engine
from bot.boards import won_line
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
            if view["outcome"] == "won":
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
                lit = set()
                for c in children:
                    if not (isinstance(c, BoardButton) and c.op == "t" and not c.item.disabled):
                        continue
                    if c.arg.startswith("?"):  # the target whose card is picked next
                        lit.add(c.arg[1:])
                    elif ">" not in c.arg:  # the selection again: the one-tap rule
                        assert c.arg.partition(":")[0] == source
                    elif c.arg.partition(":")[0].split(">")[0] == source:  # a lit target
                        lit.add(c.arg.split(">")[1])
                    else:  # another pile whose only legal move it plays at once
                        moves = legal[c.arg.split(">")[0].partition(":")[0]]
                        assert moves == [c.arg], (c.arg, moves)
                assert lit <= targets


async def test_race_buttons_per_state() -> None:
    def labels(state: str, start: str) -> list[str]:
        ui = race_view(7, state, "en", start)
        return [] if ui is None else [c.item.label for c in ui.children]

    assert labels("lobby", "manual") == ["Join", "Leave", "Start"]
    # the board opens in the countdown (face down until the start)
    assert labels("countdown", "countdown") == ["Join", "Leave", "Open my board"]
    assert labels("running", "manual") == ["Open my board"]
    assert labels("running", "now") == ["Join", "Leave", "Open my board"]
    assert labels("finished", "now") == ["Play this deal", "Rematch", "Share"]


def stuck_view() -> dict[str, object]:
    """Klondike deal 47 with one pass: after drawing the whole stock nothing helps."""
    game = engine.new_game("klondike", seed=47, options={"passes": 1})
    for _ in range(24):
        game.play("d")
    view = game.view()
    assert view["outcome"] == "no_moves" and view["legal_moves"] == {}
    return view


async def test_a_game_with_no_more_moves_keeps_undo_jump_back_and_resign() -> None:
    view = stuck_view()
    for lost, wanted in ((False, ["Undo", "Hint", "Resign"]), (True, ["Undo", "Jump back"])):
        ui = board_view(1, view, "en", lost=lost)
        assert ui is not None
        enabled = [c.item.label for c in ui.children if not c.item.disabled]
        assert set(wanted) <= set(enabled) and "Resign" in enabled
    # a race without undo still lets the player resign
    ui = board_view(1, view, "en", allow_undo=False, allow_hints=False)
    assert ui is not None and [c.item.label for c in ui.children if not c.item.disabled] == [
        "Type a move",
        "Resign",
    ]


async def test_a_resigned_game_has_no_buttons_and_a_won_one_only_share() -> None:
    view = engine.new_game("klondike", seed=1).view()
    view["status"] = "resigned"
    assert board_view(1, view, "en") is None
    won = engine.new_game("klondike", seed=1).view()
    won["outcome"] = "won"
    ui = board_view(1, won, "en", daily="2026-12-02")
    assert ui is not None and [c.item.label for c in ui.children] == ["Share"]
    assert [c.item.custom_id for c in ui.children] == ["sa|b|1|S|2026-12-02|"]


def test_a_won_daily_shares_its_day_and_no_card() -> None:
    won = engine.new_game("klondike", seed=1).view()
    won.update(status="won", started_at=1_000, finished_at=184_000)
    del won["seed"], won["deal_code"]  # a daily's deal stays hidden until its day closes
    won["counters"]["moves"] = 117
    line = won_line({"game": 9, "view": won}, "de", daily="2026-12-02")
    assert line == (
        "Solitaire Arena · Tagesspiel Klondike · 1 Karte ziehen 2026-12-02"
        " · gewonnen in 3:03, 117 Züge"
    )
    practice = dict(won, deal_code="1B")
    assert won_line({"game": 9, "view": practice}, "en") == (
        "Solitaire Arena · Klondike · draw 1 · deal 1B · won in 3:03, 117 moves"
    )
    playing = dict(won, status="playing")
    assert won_line({"game": 9, "view": playing}, "en") is None
