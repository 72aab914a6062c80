"""What a watcher may see, and when, without a database: times are arguments."""

from __future__ import annotations

import random
import re
from collections import Counter

import msgspec
from hypothesis import given, strategies as st

import engine
from engine.cards import CODES
from server.core.watching import (
    RANKED_DELAY_MS,
    DelayBuffer,
    board_after,
    delay_for,
    played_by,
    racer_board,
)

CARD = re.compile(r"^(?:[2-9TJQKA]|10)[cdhs]$")


class TestDelayBuffer:
    def test_items_come_out_after_the_delay_in_order(self) -> None:
        buffer: DelayBuffer[str] = DelayBuffer(15_000)
        buffer.push("start", 1_000)
        buffer.push("progress", 2_000)
        assert buffer.next_release() == 16_000
        assert buffer.release(15_999) == []
        assert buffer.release(16_000) == ["start"]
        assert buffer.next_release() == 17_000
        assert buffer.release(40_000) == ["progress"]
        assert buffer.release(40_000) == [] and buffer.next_release() is None

    def test_an_item_stamped_earlier_than_the_last_waits_with_it(self) -> None:
        buffer: DelayBuffer[int] = DelayBuffer(1000)
        buffer.push(1, 5_000)
        buffer.push(2, 4_000)  # another process's clock, a little behind
        assert buffer.release(5_999) == []
        assert buffer.release(6_000) == [1, 2]

    def test_no_delay_is_live(self) -> None:
        buffer: DelayBuffer[int] = DelayBuffer(delay_for(ranked=False))
        buffer.push(7, 100)
        assert buffer.release(100) == [7]
        assert delay_for(ranked=True) == RANKED_DELAY_MS == 15_000

    def test_the_log_is_cut_at_the_delay(self) -> None:
        assert played_by(["d", "w>1", "2>3"], [100, 200, 300], 250) == ["d", "w>1"]


def play_randomly(variant: str, seed: int, length: int) -> engine.Game:
    choose = random.Random(seed)
    game = engine.new_game(variant, seed)
    for _ in range(length):
        legal = game.legal_list()
        if not legal:
            break
        game.play(choose.choice(legal))
    return game


def board_cards(value: object) -> list[str]:
    """Every card code anywhere in a decoded JSON value."""
    found: list[str] = []
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str) and CARD.match(item):
            found.append(item)
        elif isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return found


@given(
    variant=st.sampled_from(sorted(engine.VARIANTS)),
    seed=st.integers(0, 2**64 - 1),
    length=st.integers(0, 120),
)
def test_a_watcher_never_gets_a_hidden_card(variant: str, seed: int, length: int) -> None:
    """Every card on a watcher's board is face up on the table (a tableau card turned
    up, a waste card, a foundation card); the face-down cards and the stock are counts
    only; no seed, deal code or legal move is there to give the deal away."""
    game = play_randomly(variant, seed, length)
    board = racer_board(game.view())
    wire = msgspec.json.decode(msgspec.json.encode(board))
    assert set(wire) == {"tableau", "stock", "waste", "foundations", "counters", "outcome"}
    pos = game.position
    face_up = [
        CODES[c] for col, down in zip(pos.tableau, pos.down, strict=True) for c in col[down:]
    ]
    face_up += [CODES[c] for c in pos.waste]
    face_up += [CODES[c] for pile in pos.foundations for c in pile]
    assert not Counter(board_cards(wire)) - Counter(face_up)
    assert [column["down"] for column in wire["tableau"]] == list(pos.down)
    stock = len(pos.stock) if game.rules.has_stock else None
    assert wire["stock"] == stock


def test_the_board_is_the_game_after_the_actions_a_watcher_may_see() -> None:
    game = play_randomly("klondike", 5, 30)
    seen = game.actions[:12]
    rebuilt, board = board_after("klondike", {}, 5, seen)
    assert rebuilt.actions == seen
    assert board.counters["moves"] == engine.replay("klondike", 5, {}, seen).counters["moves"]
