"""The compiled piles of the view (engine/native/view.c) on positions random play
rarely reaches, and on input it must refuse instead of reading out of bounds. That it
equals ``interpreted_board`` along random play of every variant is a property in
test_engine_properties.py."""

from __future__ import annotations

import pytest

from engine import _view, new_game, parse_card
from engine.cards import CODES
from engine.moves import DRAW, NOTATIONS, TO_FOUNDATION, Move, named
from engine.position import Position
from engine.view import FIXED_SUITS, SUIT_CODES, interpreted_board


def card(code: str) -> int:
    return int(parse_card(code))


def board(pos: Position, legal: list[Move], suited: bool = True) -> tuple[object, ...]:
    return _view.board(
        pos, legal, NOTATIONS, named, CODES, SUIT_CODES, FIXED_SUITS if suited else None
    )


def position(**changes: object) -> Position:
    pos = Position(
        tableau=((card("9s"), card("Kh"), card("Qs")), (), (card("Ad"),)),
        down=(1, 0, 0),
        stock=(card("2c"), card("3c")),
        waste=(card("4c"), card("5c"), card("6c"), card("7c")),
        fan=3,
        foundations=((card("Ac"), card("2d")), (), (), ()),
        redeals=0,
        moves=0,
        score=0,
    )
    return pos._replace(**changes)


def test_a_fanned_waste_shows_the_last_draw_and_no_face_down_card() -> None:
    pos = position()
    tableau, foundations, legal, visible = board(pos, [TO_FOUNDATION[2], DRAW])
    assert tableau == [
        {"down": 1, "up": ["Kh", "Qs"]},  # the 9s stays hidden: only counted
        {"down": 0, "up": []},
        {"down": 0, "up": ["Ad"]},
    ]
    assert visible == ["5c", "6c", "7c"]
    assert legal == {"3": ["3>f"], "d": ["d"]}
    # a pile's suit is its Ace's; empty piles show Klondike's fixed suits
    assert [f["suit"] for f in foundations] == ["c", "d", "h", "s"]
    assert foundations[0] == {"suit": "c", "cards": 2, "top": "2d"}
    assert (tableau, foundations, legal, visible) == interpreted_board(
        pos, [TO_FOUNDATION[2], DRAW], True
    )


def test_waste_edges_and_unsuited_foundations() -> None:
    # fan 0 still shows the top card; an empty waste shows nothing
    assert board(position(fan=0), [])[3] == ["7c"]
    assert board(position(waste=(), fan=0), [])[3] == []
    foundations = board(position(foundations=((), ())), [], suited=False)[1]
    assert foundations == [{"suit": None, "cards": 0, "top": None}] * 2


def test_a_move_outside_the_table_is_named_by_the_fallback() -> None:
    odd = Move(40, 41, 3)  # no variant has 41 columns: not among the listed notations
    assert odd not in NOTATIONS
    assert board(position(), [odd])[2] == {named(odd)[0]: [named(odd)[1]]}


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"down": (1, 0)}, ValueError),  # one count per column
        ({"down": (4, 0, 0)}, ValueError),  # more face down than cards
        ({"down": (-1, 0, 0)}, ValueError),
        ({"tableau": ((99,), (), ()), "down": (0, 0, 0)}, ValueError),  # no such card
        ({"tableau": ([1], (), ())}, TypeError),
        ({"foundations": ((-1,), (), (), ())}, ValueError),
        ({"foundations": [(), (), (), ()]}, TypeError),
        ({"waste": [1, 2]}, TypeError),
        ({"waste": (1, 200)}, ValueError),
    ],
)
def test_malformed_positions_are_refused(changes: dict[str, object], error: type) -> None:
    with pytest.raises(error):
        board(position(**changes), [])


def test_malformed_arguments_are_refused() -> None:
    pos = position()
    with pytest.raises(TypeError):  # the legal moves come as a list
        _view.board(tuple(pos), (), NOTATIONS, named, CODES, SUIT_CODES, None)
    with pytest.raises(ValueError):
        _view.board(tuple(pos)[:5], [], NOTATIONS, named, CODES, SUIT_CODES, None)
    with pytest.raises(ValueError):
        _view.board(tuple(pos), [], NOTATIONS, named, CODES, SUIT_CODES[:10], None)
    with pytest.raises(TypeError):
        _view.board(tuple(pos), [], NOTATIONS, named, CODES, SUIT_CODES, "cdhs")
    with pytest.raises(TypeError):
        # a move's names from the fallback must be (source, text)
        _view.board(tuple(pos), [Move(40, 41, 3)], {}, lambda move: "d", CODES, SUIT_CODES, None)
    game = new_game("klondike", 1)
    assert game.view()["tableau"][6]["down"] == 6
