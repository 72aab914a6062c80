"""The compiled move generation (engine/native/legal.c) on positions random play
rarely reaches, and on input it must refuse instead of reading out of bounds.
That it equals the interpreted generation along random play of every variant is a
property in test_engine_properties.py."""

from __future__ import annotations

import pytest

from engine import _legal, new_game
from engine.cards import RANK, RED, SUIT
from engine.moves import (
    COLUMN_MOVES,
    DRAW,
    FROM_FOUNDATION,
    TO_FOUNDATION,
    WASTE_HOME,
    WASTE_MOVES,
    Move,
)
from engine.position import Position
from engine.rules import HOME_BY_SUIT, UNIT_ALTERNATING


def both(variant: str, pos: Position) -> tuple[list[Move], list[Move]]:
    rules = new_game(variant, 1).rules
    return rules.legal_moves(pos), rules.interpreted_moves(pos)


def card(code: str) -> int:
    from engine import parse_card

    return int(parse_card(code))


def test_kings_go_to_every_empty_column_from_waste_columns_and_foundations() -> None:
    # Klondike: a King leads into an empty column from anywhere; an Ace goes home.
    king_s, king_h, ace_c = card("Ks"), card("Kh"), card("Ac")
    pos = Position(
        tableau=((), (king_h,), (), (card("5d"),), (), (), ()),
        down=(0, 0, 0, 0, 0, 0, 0),
        stock=(),
        waste=(ace_c, king_s),
        fan=1,
        foundations=(
            (),
            (),
            (),
            tuple(
                card(f"{r}s") for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q"]
            ),
        ),
        redeals=0,
        moves=0,
        score=0,
    )
    compiled, interpreted = both("klondike", pos)
    assert compiled == interpreted
    assert FROM_FOUNDATION[3][1] in compiled  # the Queen of spades back onto the Kh
    assert FROM_FOUNDATION[3][0] not in compiled  # but not into a gap: only a King goes there
    assert Move(-1, -2, 1) in compiled  # the waste's Ks onto the Qs of its foundation
    assert Move(-1, 0, 1) in compiled  # the waste's King into the first empty column
    assert Move(1, 2, 1) in compiled  # the King of column 2 into another empty one


def test_a_whole_column_of_one_suit_moves_in_spider() -> None:
    run = tuple(range(12, -1, -1))  # King of clubs down to the Ace: one suit, gapless
    pos = Position(
        tableau=(run, (), *(((card("9h"),),) * 8)),
        down=(0,) * 10,
        stock=(),
        waste=(),
        fan=0,
        foundations=(),
        redeals=0,
        moves=0,
        score=0,
    )
    compiled, interpreted = both("spider-4", pos)
    assert compiled == interpreted
    assert Move(0, 1, 13) in compiled


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"tableau": [()] * 7}, TypeError),
        ({"tableau": (((99,),) + ((),) * 6)}, ValueError),
        ({"down": (5,) + (0,) * 6}, ValueError),
        ({"tableau": ((),) * 11, "down": (0,) * 11}, ValueError),
        ({"foundations": [(), (), (), ()]}, TypeError),
        ({"waste": (-1,)}, ValueError),
    ],
)
def test_a_malformed_position_is_refused(change: dict[str, object], error: type) -> None:
    rules = new_game("klondike", 1).rules
    pos = new_game("klondike", 1).position._replace(**change)
    with pytest.raises(error):
        rules.legal_moves(pos)


def klondike_tables(**change: object) -> dict[str, object]:
    """What engine.rules hands the compiled generation for Klondike, with ``change``."""
    rules = new_game("klondike", 1).rules
    tables: dict[str, object] = {
        "key": rules.KEY,
        "wants": rules.WANTS,
        "opens_empty": rules.OPENS_EMPTY,
        "rank": RANK,
        "suit": SUIT,
        "red": RED,
        "unit": UNIT_ALTERNATING,
        "home": HOME_BY_SUIT,
        "give_back": True,
        "column_moves": COLUMN_MOVES,
        "to_foundation": TO_FOUNDATION,
        "waste_moves": WASTE_MOVES,
        "waste_home": WASTE_HOME,
        "from_foundation": FROM_FOUNDATION,
    }
    return {**tables, **change}


def test_the_tables_of_engine_rules_make_a_spec() -> None:
    spec = _legal.spec(**klondike_tables())  # type: ignore[arg-type]
    pos = new_game("klondike", 1).position
    interpreted = new_game("klondike", 1).rules.interpreted_moves(pos)
    assert _legal.moves(spec, pos) == [move for move in interpreted if move != DRAW]


@pytest.mark.parametrize(
    "change",
    [
        {"key": (999,) * 52},  # a key past the table of targets
        {"rank": (1,) * 51},  # not a table of every card
        {"wants": ((1, 2, 3, 4, 5),) * 52},  # more wanted keys than a card can have
        {"unit": 7},
        {"home": -1},
        {"column_moves": tuple(tuple(t[:5] for t in row) for row in COLUMN_MOVES)},
        {"from_foundation": FROM_FOUNDATION[:3]},
        {"to_foundation": ()},
    ],
)
def test_a_spec_with_bad_tables_is_refused(change: dict[str, object]) -> None:
    # The tables are read without bounds checks once accepted: each must be whole.
    with pytest.raises(ValueError):
        _legal.spec(**klondike_tables(**change))  # type: ignore[arg-type]


def test_only_a_spec_is_taken_as_one() -> None:
    with pytest.raises(ValueError):
        _legal.moves(object(), new_game("klondike", 1).position)


def stock_position(stock: tuple[int, ...], waste: tuple[int, ...], redeals: int = 0) -> Position:
    """Klondike with a single column topped by the black 8 of clubs (it takes a red 7)."""
    return Position(
        tableau=((card("8c"),),) + ((card("Kd"),),) * 6,
        down=(0,) * 7,
        stock=stock,
        waste=waste,
        fan=1,
        foundations=((), (), (), ()),
        redeals=redeals,
        moves=0,
        score=0,
    )


@pytest.mark.parametrize(
    ("variant", "options", "pos", "playable"),
    [
        # draw 1: the red 7 is the stock's bottom card, reached on the last tap
        ("klondike", {}, stock_position((card("7h"), card("2s"), card("3s")), ()), True),
        # it lies in the waste: reached after turning the waste over, if a pass is left
        ("klondike", {}, stock_position((), (card("7h"), card("2s"))), True),
        ("klondike", {"passes": 1}, stock_position((), (card("7h"), card("2s"))), False),
        ("klondike", {"passes": 3}, stock_position((), (card("7h"),), redeals=2), False),
        # draw 3: only the last card of each group comes up on top, in every pass
        (
            "klondike-3",
            {},
            stock_position((card("2s"), card("7h"), card("3s")), ()),
            False,
        ),
        (
            "klondike-3",
            {},
            stock_position((card("7h"), card("3s"), card("4s"), card("5s")), ()),
            True,
        ),
        # an Ace goes home
        ("klondike", {"passes": 1}, stock_position((card("As"),), ()), True),
    ],
)
def test_the_stock_check_of_no_more_moves(
    variant: str, options: dict[str, object], pos: Position, playable: bool
) -> None:
    rules = new_game(variant, 1, options).rules
    assert _legal.stock_playable(rules._moves_spec, pos, rules.draw, rules.passes) is playable
    assert rules.interpreted_stock_playable(pos) is playable


@pytest.mark.parametrize(
    ("pos", "draw", "passes", "error"),
    [
        (stock_position((99,), ()), 1, 0, ValueError),  # not a card
        (stock_position(tuple(range(52)), (1,)), 1, 0, ValueError),  # 53 cards
        (stock_position((1,), ()), 0, 0, ValueError),  # draw nothing
        (stock_position((1,), ()), 1, -1, ValueError),
        (stock_position([1], ()), 1, 0, TypeError),  # type: ignore[arg-type]
        (tuple(stock_position((1,), ()))[:6], 1, 0, TypeError),
    ],
)
def test_the_stock_check_refuses_malformed_input(
    pos: Position, draw: int, passes: int, error: type
) -> None:
    spec = new_game("klondike", 1).rules._moves_spec
    with pytest.raises(error):
        _legal.stock_playable(spec, pos, draw, passes)
