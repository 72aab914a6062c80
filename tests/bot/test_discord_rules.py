"""Discord's message limits: the checker, the fakes that apply it, and every board along
solver-won games of every variant held to it."""

from __future__ import annotations

from typing import Any

import discord
import pytest
from board_sweep import WON_SEEDS, board_table, presses_along, sweep, won_line
from discord_fakes import FakeInteraction, FakeMessage, FakeUser
from discord_rules import rule_breaks

from bot.views import BoardButton


class Payload:
    """A view as Discord receives it (``to_components``), for limits discord.py would
    not let a real view reach."""

    def __init__(self, *rows: list[dict[str, Any]]) -> None:
        self.rows = [{"type": 1, "components": row} for row in rows]

    def to_components(self) -> list[dict[str, Any]]:
        return self.rows


def button(custom_id: str, label: str = "1") -> dict[str, Any]:
    return {"type": 2, "style": 2, "custom_id": custom_id, "label": label}


def select(custom_id: str, options: int) -> dict[str, Any]:
    return {
        "type": 3,
        "custom_id": custom_id,
        "options": [{"label": str(n), "value": str(n)} for n in range(options)],
    }


class TestTheRules:
    def test_a_board_within_every_limit_passes(self) -> None:
        payload = Payload(
            [button(f"sa|b|1|s|{n}|") for n in range(1, 6)],
            [select("sa|k|1|7", 25)],
            [button("sa|b|1|u||", "Undo")],
        )
        assert rule_breaks("x" * 2000, payload) == []

    def test_a_repeated_custom_id_breaks_even_on_a_disabled_button(self) -> None:
        ui = discord.ui.View()
        ui.add_item(BoardButton(1, "t", "?", "7", label="2", disabled=True))
        ui.add_item(BoardButton(1, "t", "?", "7", label="3"))
        assert rule_breaks("board", ui) == ["custom_id 'sa|b|1|t|?|7' used 2 times"]

    def test_content_counts_utf16_units(self) -> None:
        assert rule_breaks("♠️" * 1000, None) == []  # U+2660 U+FE0F: two units each
        assert rule_breaks("🟦" * 1001, None) == ["content of 2002 UTF-16 units"]

    def test_rows_widths_ids_labels_and_options(self) -> None:
        breaks = rule_breaks(
            "",
            Payload(
                *[[button(f"a{r}{n}") for n in range(5)] for r in range(5)],
                [button("x" * 101, "L" * 81), button("a00")],
                [select("s", 26), button("b")],
            ),
        )
        assert breaks == [
            "7 action rows",
            "custom_id of 101 characters: '" + "x" * 101 + "'",
            "button label of 81 characters: '" + "L" * 81 + "'",
            "row 6 holds a select beside 1 other item(s)",
            "select 's' with 26 options",
            "custom_id 'a00' used 2 times",
        ]
        assert rule_breaks("", Payload([button(f"b{n}") for n in range(6)])) == [
            "row 0 holds 6 buttons"
        ]


class Layout(Payload):
    """A Components V2 payload as Discord receives it."""

    def __init__(self, *components: dict[str, Any]) -> None:
        self.rows = list(components)

    def has_components_v2(self) -> bool:
        return True


def shown(content: str) -> dict[str, Any]:
    return {"type": 10, "content": content}


class TestComponentsV2:
    def test_a_board_within_every_limit_passes(self) -> None:
        sections = [
            {"type": 9, "components": [shown(f"{n} K♠")], "accessory": button(f"c{n}")}
            for n in range(11)
        ]
        container = {"type": 17, "components": [shown("x" * 3000), *sections]}
        row = {"type": 1, "components": [button("u"), button("r")]}
        assert rule_breaks(None, Layout(container, row)) == []  # 38 components

    def test_forty_components_nested_4000_units_unique_ids_and_no_content(self) -> None:
        sections = [
            {"type": 9, "components": [shown("🟦" * 100)], "accessory": button("same")}
            for _ in range(14)
        ]  # 14 sections of three, in a container: 43 components, 2,800 units
        assert rule_breaks("hello", Layout({"type": 17, "components": sections})) == [
            "content beside Components V2",
            "43 components (nested counted)",
            "custom_id 'same' used 14 times",
        ]
        long = Layout(shown("🟦" * 1001), shown("🟦" * 1000))  # emoji count two units
        assert rule_breaks(None, long) == ["4002 units of text"]

    def test_sections_rows_and_texts_hold_their_shapes(self) -> None:
        bad = Layout(
            {"type": 9, "components": [], "accessory": button("a")},
            {"type": 9, "components": [shown("1")]},
            {"type": 17, "components": [{"type": 17, "components": [shown("x")]}]},
            shown(""),
            {"type": 1, "components": [select("s", 3), button("b")]},
        )
        assert rule_breaks(None, bad) == [
            "a section of 0 text displays",
            "a section without accessory",
            "a component of type 17 in a container",
            "an empty text display",
            "a select beside other items in a row",
        ]


class TestTheFakes:
    async def test_a_board_stays_components_v2_and_its_text_is_what_a_reader_sees(
        self,
    ) -> None:
        ui = discord.ui.LayoutView()
        ui.add_item(discord.ui.TextDisplay("**Klondike**"))
        interaction = FakeInteraction(None, FakeUser(1, "Ada"))
        with pytest.raises(AssertionError, match="content beside Components V2"):
            await interaction.response.send_message("board", view=ui)
        await interaction.response.send_message(view=ui)
        [message] = interaction.sent
        assert message.v2 and message.content == "**Klondike**"
        with pytest.raises(AssertionError, match="cannot become a plain one"):
            await message.edit(content="plain", view=None)

    async def test_a_message_discord_would_refuse_fails_the_test(self) -> None:
        ui = discord.ui.View()
        for label in ("2", "3"):
            ui.add_item(BoardButton(1, "t", "?", "7", label=label))
        interaction = FakeInteraction(None, FakeUser(1, "Ada"))
        with pytest.raises(AssertionError, match="used 2 times"):
            await interaction.response.send_message("board", view=ui)
        message = FakeMessage("board")
        with pytest.raises(AssertionError, match="content of 2001 UTF-16 units"):
            await message.edit(content="x" * 2001)
        assert message.content == "board" and message.edits == 0


@pytest.mark.parametrize("variant", sorted(WON_SEEDS))
def test_every_board_along_a_won_game_keeps_discords_rules(variant: str) -> None:
    """Every board of (a sample of) the positions of a solver-won game: each source
    tapped, each card chosen, each target needing its card chosen, Resign confirmed,
    and the board of a game proven lost; every target plays a legal move to its pile."""
    seed = WON_SEEDS[variant][0]
    stride = max(1, len(won_line(variant, seed)) // 40)  # about 40 positions
    seen = sweep(variant, seed, stride=stride, table=board_table())
    assert seen.broken == [] and seen.wrong == []
    # With the application's card emoji, every board keeps its suit colours.
    assert seen.coloured > 50 and seen.colourless == 0
    assert seen.boards > 100 and seen.taps > 50
    if variant.startswith(("spider", "yukon")):
        # these lines reach targets with several cards to choose from
        assert seen.targets_chosen > 0


@pytest.mark.parametrize("variant", sorted(WON_SEEDS))
def test_every_move_of_a_won_game_can_be_played_by_presses(variant: str) -> None:
    """At every position of the solver's win, the board offers the move it plays:
    Draw, a tap on its pile, a choice in the menu of other moves, or Choose, the source
    and a target that plays it or asks for its card; and the win takes at most 1.2
    presses a move (a tap plays the move a player most often means)."""
    for seed in WON_SEEDS[variant]:
        presses, moves = presses_along(variant, seed, board_table())
        assert moves <= presses <= 1.2 * moves, (seed, presses, moves)
