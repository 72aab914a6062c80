"""Properties over random seeds and random legal play, for every variant (issue #3):
cards are conserved, replay reproduces the state, undo restores the exact previous
state, the view never holds a face-down or stock card, every listed legal move plays
and no unlisted move does, canonical notation and position text round-trip."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator

import pytest
from engine_reference import candidate_moves, is_legal, reference_moves
from hypothesis import given, settings, strategies as st

from engine import Game, IllegalMoveError, Move, Termination, _legal, new_game, replay
from engine.cards import CODES
from engine.game import UNDO_MARK_EVERY
from engine.position import Position
from engine.position_text import game_from_text, game_text, parse_position, position_text
from engine.view import interpreted_board

# Every variant, with the options that change play: a pass limit and Spider's layout.
CASES = [
    ("klondike", {}),
    ("klondike-3", {"passes": 2}),
    ("spider-1", {}),
    ("spider-2", {"layout": "digital"}),
    ("spider-4", {}),
    ("yukon", {}),
    ("russian", {}),
    ("alaska", {}),
]
IDS = [f"{v}-{'-'.join(map(str, o.values()))}".rstrip("-") for v, o in CASES]
variants = pytest.mark.parametrize(("variant", "options"), CASES, ids=IDS)

# At most this many examples per property and variant (the CI profile may run fewer),
# each a random game of up to PLIES steps: enough to reach redeals, deals and lifted
# runs while the whole engine suite stays well under a minute.
EXAMPLES = min(12, settings.default.max_examples)
PLIES = 120
examples = settings(max_examples=EXAMPLES)
seeds = st.integers(min_value=0, max_value=2**64 - 1)
walks = st.randoms(use_true_random=False)


def walk(game: Game, rnd: random.Random) -> Iterator[Position]:
    """Play up to PLIES random steps, mostly legal moves, now and then an undo or a
    hint; yield the position before each step."""
    for _ in range(PLIES):
        before = game.position
        roll = rnd.random()
        if roll < 0.08 and game.moves:
            game.undo()
        elif roll < 0.11:
            hint = game.hint()
            assert hint is None or hint in game.legal_moves
        else:
            legal = list(game.legal_moves)
            if not legal:
                return
            game.play(rnd.choice(legal))
        yield before


@variants
@examples
@given(seed=seeds, rnd=walks)
def test_cards_are_conserved(variant, options, seed, rnd):
    game = new_game(variant, seed, options)
    deck = Counter(game.position.cards())
    assert sum(deck.values()) == game.rules.total_cards
    for _ in walk(game, rnd):
        pos = game.position
        assert Counter(pos.cards()) == deck
        for col, down in zip(pos.tableau, pos.down, strict=True):
            assert 0 <= down < len(col) or down == 0 == len(col)  # the top card is face up


@variants
@examples
@given(seed=seeds, rnd=walks)
def test_replay_reproduces_the_state(variant, options, seed, rnd):
    game = new_game(variant, seed, options)
    for _ in walk(game, rnd):
        pass
    again = replay(variant, seed, options, game.actions)
    assert again.position == game.position
    assert again.counters == game.counters
    assert again.moves == game.moves
    assert again.actions == game.actions


@variants
@examples
@given(seed=seeds, rnd=walks)
def test_undo_walks_back_through_every_earlier_position(variant, options, seed, rnd):
    # Undo keeps a position only every UNDO_MARK_EVERY moves and replays the moves
    # since: taking moves back passes through every position the game had, in reverse,
    # also after playing on from half-way back (marks dropped, then made again).
    game = new_game(variant, seed, options)
    positions = [game.position]

    def forward(steps: int) -> None:
        for _ in range(steps):
            legal = list(game.legal_moves)
            if not legal:
                return
            game.play(rnd.choice(legal))
            positions.append(game.position)

    def back(steps: int) -> None:
        for _ in range(min(steps, len(game.moves))):
            game.undo()
            positions.pop()
            assert game.position == positions[-1]

    forward(3 * UNDO_MARK_EVERY + 5)
    back(len(game.moves) // 2 + 1)
    forward(UNDO_MARK_EVERY + 3)
    back(len(game.moves))
    assert game.position == new_game(variant, seed, options).position


@variants
@examples
@given(seed=seeds, rnd=walks)
def test_undo_restores_the_exact_previous_state(variant, options, seed, rnd):
    game = new_game(variant, seed, options)
    for _ in walk(game, rnd):
        if not game.moves:
            continue
        after, moves = game.position, game.moves
        taken = game.undo()
        assert game.moves == moves[:-1]
        before = game.position
        game.play(taken)
        assert game.position == after
        game.undo()
        assert game.position == before
        game.play(taken)


@variants
@examples
@given(seed=seeds, rnd=walks)
def test_the_view_never_holds_a_face_down_or_stock_card(variant, options, seed, rnd):
    game = new_game(variant, seed, options)
    shuffler = random.Random(seed)
    for _ in walk(game, rnd):
        view = game.view()
        assert json.loads(json.dumps(view)) == view
        shown = set(_strings(view))
        hidden, visible = _hidden_and_visible(game)
        assert {CODES[c] for c in visible} >= shown & set(CODES)
        if game.rules.total_cards == 52:
            assert not shown & {CODES[c] for c in hidden}
        # The view is the same whatever the hidden cards are (the outcome aside:
        # "no more moves" may look through the stock, as a player can).
        other = Game(game.rules, _shuffle_hidden(game, shuffler), variant, seed)
        other.undos, other.hints = game.undos, game.hints
        assert _without_outcome(other.view()) == _without_outcome(view)


@variants
@examples
@given(seed=seeds, rnd=walks)
def test_every_listed_move_plays_and_no_unlisted_move_does(variant, options, seed, rnd):
    game = new_game(variant, seed, options)
    sampler = random.Random(seed)
    for _ in walk(game, rnd):
        rules, pos = game.rules, game.position
        legal = list(game.legal_moves)
        assert len(set(legal)) == len(legal) == game.legal_moves.count()
        assert reference_moves(rules, pos) == set(legal)
        candidates = list(candidate_moves(rules, pos))
        probe = game.copy()
        for move in legal:
            probe.play(move)
            probe.undo()
        for move in sampler.sample(candidates, min(8, len(candidates))):
            assert is_legal(rules, pos, move) == (move in legal)
            if move in legal:
                continue
            with pytest.raises(IllegalMoveError) as error:
                probe.play(move)
            assert error.value.en and error.value.de
            assert probe.position == pos
        _check_outcome(game)


@variants
@examples
@given(seed=seeds, rnd=walks)
def test_compiled_moves_are_the_interpreted_ones_in_their_order(variant, options, seed, rnd):
    # The order matters too: views, hints and "the first legal move" follow it.
    game = new_game(variant, seed, options)
    for _ in walk(game, rnd):
        rules, pos = game.rules, game.position
        assert rules.legal_moves(pos) == rules.interpreted_moves(pos)


@pytest.mark.parametrize(
    ("variant", "options"),
    [
        ("klondike", {}),
        ("klondike", {"passes": 1}),
        ("klondike-3", {}),
        ("klondike-3", {"passes": 2}),
    ],
)
@examples
@given(seed=seeds, rnd=walks)
def test_compiled_stock_check_is_the_interpreted_one(variant, options, seed, rnd):
    # The last step of Klondike's "no more moves": the stock's cards within reach.
    game = new_game(variant, seed, options)
    rules = game.rules
    for _ in walk(game, rnd):
        pos = game.position
        compiled = _legal.stock_playable(rules._moves_spec, pos, rules.draw, rules.passes)
        assert compiled == rules.interpreted_stock_playable(pos)


@variants
@examples
@given(seed=seeds, rnd=walks)
def test_compiled_board_is_the_interpreted_one(variant, options, seed, rnd):
    # Compared as JSON text: the key order of every entry reaches the clients too.
    game = new_game(variant, seed, options)
    for _ in walk(game, rnd):
        rules, pos = game.rules, game.position
        view = game.view()
        compiled = [view["tableau"], view["foundations"], view["legal_moves"]]
        compiled.append(view["waste"]["visible"] if rules.has_waste else [])
        interpreted = interpreted_board(pos, game.legal_list(), rules.suited_foundations)
        assert json.dumps(compiled) == json.dumps(list(interpreted))


@variants
@examples
@given(seed=seeds, rnd=walks)
def test_canonical_notation_round_trips(variant, options, seed, rnd):
    game = new_game(variant, seed, options)
    for _ in walk(game, rnd):
        listed: dict[str, list[str]] = {}
        for move in game.legal_moves:
            text = move.notation()
            assert Move.from_notation(text) == move
            assert game.parse(text) == move
            listed.setdefault(text.split(">")[0].split(":")[0], []).append(text)
        assert game.view()["legal_moves"] == listed


@variants
@examples
@given(seed=seeds, rnd=walks)
def test_position_text_round_trips(variant, options, seed, rnd):
    game = new_game(variant, seed, options)
    for _ in walk(game, rnd):
        text = game_text(game)
        rules, pos = parse_position(text)
        assert pos == game.position
        assert (rules.name, rules.options) == (game.rules.name, game.rules.options)
        assert position_text(rules, pos) == text
        assert list(game_from_text(text).legal_moves) == list(game.legal_moves)


def _strings(value: object) -> Iterator[str]:
    """Every string in a JSON-ready value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _shown_waste(pos: Position) -> int:
    return max(pos.fan, 1) if pos.waste else 0


def _hidden_and_visible(game: Game) -> tuple[list[int], list[int]]:
    """The cards a player cannot see (face down, stock, waste under the shown ones)
    and those they can (face up, shown waste, foundation tops)."""
    pos = game.position
    hidden = [*pos.stock, *pos.waste[: len(pos.waste) - _shown_waste(pos)]]
    visible = list(pos.waste[len(pos.waste) - _shown_waste(pos) :])
    for col, down in zip(pos.tableau, pos.down, strict=True):
        hidden.extend(col[:down])
        visible.extend(col[down:])
    visible.extend(pile[-1] for pile in pos.foundations if pile)
    return hidden, visible


def _shuffle_hidden(game: Game, rnd: random.Random) -> Position:
    """The position with its hidden cards dealt among their places at random."""
    pos = game.position
    hidden, _ = _hidden_and_visible(game)
    rnd.shuffle(hidden)
    cards = iter(hidden)
    stock = tuple(next(cards) for _ in pos.stock)
    kept = _shown_waste(pos)
    waste = tuple(next(cards) for _ in pos.waste[: len(pos.waste) - kept])
    waste += pos.waste[len(pos.waste) - kept :]
    tableau = tuple(
        tuple(next(cards) for _ in col[:down]) + col[down:]
        for col, down in zip(pos.tableau, pos.down, strict=True)
    )
    return pos._replace(stock=stock, waste=waste, tableau=tableau)


def _without_outcome(view: dict[str, object]) -> dict[str, object]:
    return {key: value for key, value in view.items() if key != "outcome"}


def _check_outcome(game: Game) -> None:
    """A won game has every card home; Spider is lost only without a move or a deal;
    Yukon only when nothing but foundation cards can move."""
    outcome = game.outcome
    if outcome is None:
        return
    if outcome.termination is Termination.WON:
        assert game.foundation_cards == game.rules.total_cards
    elif game.variant.startswith("spider"):
        assert not game.legal_moves
    elif game.variant in ("yukon", "russian", "alaska"):
        assert all(m.source <= -10 for m in game.legal_moves)
