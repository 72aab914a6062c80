"""Board buttons stay inside Discord's component limits for every variant and selection."""

from __future__ import annotations

import random
from typing import Any

import discord
import pytest
from board_sweep import APP_SUITS, views_along
from discord_rules import rule_breaks

import engine
from bot.layout import board_layout, component_count
from bot.move_menu import MoveMenu
from bot.presses import won_line
from bot.race_buttons import race_view
from bot.render import board_text
from bot.taps import tap_move
from bot.views import (
    CHOOSE,
    BoardButton,
    BoardButtons,
    BoardOp,
    board_buttons,
    split_selection,
)


def drawn(
    view: dict[str, Any], locale: str = "en", suits: Any = APP_SUITS, **options: Any
) -> tuple[BoardButtons | None, discord.ui.LayoutView]:
    """A board's buttons and the Components V2 message they are laid out in."""
    buttons = board_buttons(42, view, locale, **options)
    source, size = split_selection(options.get("sel", ""))
    shown = board_text(view, locale, selected=source, size=size, suits=suits)
    return buttons, board_layout(shown, buttons, suits)


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
            buttons, ui = drawn(view, "de", sel=sel, confirm_resign=sel == "")
            assert rule_breaks(None, ui) == []
            assert component_count(ui) <= 40
            if view["outcome"] == "won":
                assert buttons is not None and [b.op for b in buttons.items()] == [BoardOp.SHARE]
                continue
            assert buttons is not None
            children = buttons.items()
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
        ui = board_buttons(1, view, "en", lost=lost)
        assert ui is not None
        enabled = [c.item.label for c in ui.items() if not c.item.disabled]
        assert set(wanted) <= set(enabled) and "Resign" in enabled
    # a race without undo still lets the player resign
    ui = board_buttons(1, view, "en", allow_undo=False, allow_hints=False)
    assert ui is not None and [c.item.label for c in ui.items() if not c.item.disabled] == [
        "Type a move",
        "Resign",
    ]


async def test_a_resigned_game_has_no_buttons_and_a_won_one_only_share() -> None:
    view = engine.new_game("klondike", seed=1).view()
    view["status"] = "resigned"
    assert board_buttons(1, view, "en") is None
    won = engine.new_game("klondike", seed=1).view()
    won["outcome"] = "won"
    ui = board_buttons(1, won, "en", daily="2026-12-02")
    assert ui is not None and [c.item.label for c in ui.items()] == ["Share"]
    assert [c.item.custom_id for c in ui.items()] == ["sa|b|1|S|2026-12-02|"]


class TestComponentsV2:
    def test_each_column_has_its_button_beside_it_and_klondike_takes_34_of_40(self) -> None:
        view = engine.new_game("klondike", seed=5).view()
        _, ui = drawn(view)
        assert component_count(ui) == 34  # Draw, Undo, Hint, Type, Resign in two rows
        sections = [c for c in ui.children if isinstance(c, discord.ui.Section)]
        assert len(sections) == 8  # seven columns and the waste beside the stock
        for number, section in enumerate(sections[1:], start=1):
            line = section.children[0].content  # type: ignore[attr-defined]
            assert isinstance(section.accessory, BoardButton)
            assert section.accessory.pile == str(number) and line.startswith(f"{number}\ufe0f")

    def test_pile_buttons_carry_the_card_emoji_and_controls_a_mark(self) -> None:
        view = engine.new_game("klondike", seed=5).view()
        buttons, _ = drawn(view)
        assert buttons is not None
        column = buttons.pile("1")  # 8♠
        assert column is not None and column.item.label == "8"
        assert column.item.emoji is not None and column.item.emoji.name == "sa_s"
        assert all(b.item.emoji is not None for b in buttons.controls)
        # Without the application's emoji the text mark stays in the label.
        plain, _ = drawn(view, suits={"c": "♣\ufe0e", "d": "♢", "h": "♡", "s": "♠\ufe0e"})
        assert plain is not None and plain.pile("1").item.label == "8♠\ufe0e"  # type: ignore[union-attr]

    def test_a_tap_plays_the_most_useful_move_and_choose_makes_taps_select(self) -> None:
        """Green plays at once (a pile with several moves too: its most useful one); the
        menu of other moves holds the rest and Choose; after Choose every pile that can
        move selects (grey), and a selected pile is blue, its targets green."""
        seed, source, moves = next(
            (seed, pile, moves)
            for seed in range(50)
            for pile, moves in engine.new_game("klondike", seed=seed).view()["legal_moves"].items()
            if pile.isdigit() and len({m.split(">")[1] for m in moves}) > 1
        )
        view = engine.new_game("klondike", seed=seed).view()
        buttons, _ = drawn(view)
        assert buttons is not None
        plays = buttons.pile(source)
        assert plays is not None and plays.op is BoardOp.TARGET and plays.arg in moves
        assert plays.arg == tap_move(view, source)
        assert plays.item.style is discord.ButtonStyle.success
        # The menu of other moves: every legal move no tap plays, then Choose.
        menu = MoveMenu.make(42, view, "en")
        assert menu is not None
        values = [o.value for o in menu.item.options]
        assert values[-1] == CHOOSE and plays.arg not in values
        taps = {tap_move(view, p) for p in view["legal_moves"]}
        legal = {m for ms in view["legal_moves"].values() for m in ms if ">" in m}
        assert set(values[:-1]) == legal - taps
        buttons, _ = drawn(view, sel=CHOOSE)
        assert buttons is not None
        movable = {p for p in view["legal_moves"] if p != "d"}
        for pile in movable:
            selects = buttons.pile(pile)
            assert selects is not None and selects.op is BoardOp.SELECT
            assert selects.item.style is discord.ButtonStyle.secondary
        assert BoardOp.CANCEL in [b.op for b in buttons.controls]  # back as it was
        buttons, _ = drawn(view, sel=source)
        assert buttons is not None
        again = buttons.pile(source)
        assert again is not None and again.item.style is discord.ButtonStyle.primary
        lit = {b.pile for b in buttons.piles if b.op is BoardOp.TARGET and b.pile != source}
        assert lit == {m.split(">")[1] for m in moves}

    def test_spider_with_a_menu_still_fits_forty(self) -> None:
        for view in views_along("spider-4", 2):  # the solver's win of Spider deal 2
            for source, moves in view["legal_moves"].items():
                sizes = {m.split(">")[0].partition(":")[2] or "1" for m in moves}
                if source.isdigit() and len(sizes) > 1:
                    buttons, ui = drawn(view, sel=source)
                    assert buttons is not None and buttons.select is not None
                    assert rule_breaks(None, ui) == [] and component_count(ui) <= 40
                    return
        raise AssertionError("no spider opening with a choice of run lengths")


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
