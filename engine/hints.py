"""The engine's hint: a move worth making now that never leads in circles.

The Klondike seed's hint (key H) "shows a move that is possible now". A player who plays
nothing but hints must still get somewhere, so a hint is chosen with the game's line of
play in view (the positions it passed through, the moves that led there), and:

- it never leads into a position already seen on that line. Positions are compared
  by what can happen next (``position_key``): counters, score, the draw-3 fan and the
  redeal count are left out, and so is the order of the columns where it does not
  matter (everywhere but Spider with cards left in the stock, which deals onto the
  piles by number). So no move and its reverse, no King moved from one empty column to
  another, no pass through the stock that ends where it began;
- it never takes back the move just played (the same cards back where they came from);
- it never turns the waste over into the stock again when no card has moved since the
  last time it did (no stock pass without a move between);
- it moves the game on. In order of preference, each tier picking its best move by
  ``hint_rank``: a card home that is safe there (Spider: a move that completes a run);
  a move that turns a face-down card up; any other card home; a card from the waste
  onto a column; a card that settles onto its own predecessor (``settled``: it lay on
  a face-down card, on a card it does not follow, or alone in a column it does not
  need, as a non-King); a move between columns that makes one of these possible where
  no move from the same place to the same place could before (a card uncovered for its
  foundation, for the waste top, or for another card to settle on), unless it
  unsettles its own card; the stock; a card back from a foundation that lets a card
  turn up or leave the waste; and in Spider, when a deal waits for an empty pile, a
  move onto it from a pile that keeps cards (while a deal waits, no Spider hint
  empties a pile). Anything else (a card shuffled between equal places) is never
  hinted: once nothing in these tiers is left, the hint is ``None``.

Every tier but the stock, the enabling moves and the filling of an empty pile strictly
improves the table (more cards home, fewer face down, fewer in the talon, fewer
unsettled) and none makes it worse; an enabling move is followed by the move it
enables; a card back from a foundation is paid for by a card turned up or out of the
waste, which never come back; the stock is bounded by the rules above, and Spider's
deals by its stock. So hints alone never repeat a position, and end. The hint uses no
card the player cannot see: what it compares beyond that (whole positions) the player
has seen. ``server/web/hints.js`` mirrors this module move for move.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import KING, RANK
from engine.moves import DRAW, FOUNDATION, STOCK, WASTE, Move, is_foundation_source
from engine.notation import column_move_rank, is_safe_home, moving_card
from engine.position import Position
from engine.rules import Rules

# A line of play: each earlier position with the move played from it, oldest first.
Line = Sequence[tuple[Position, Move]]
PositionKey = tuple[object, ...]

# The tiers, best first (see the module docstring).
SAFE_HOME, TURNS_UP, HOME, FROM_WASTE, SETTLES = range(5)
PROGRESS = (SAFE_HOME, TURNS_UP, HOME, FROM_WASTE, SETTLES)
IRREVERSIBLE = (TURNS_UP, FROM_WASTE)


def position_key(rules: Rules, pos: Position) -> PositionKey:
    """What decides a position's future: the columns with their face-down counts, the
    stock and the waste. The foundations hold exactly the cards found nowhere else."""
    columns = list(zip(pos.down, pos.tableau, strict=True))
    if not _deals_onto_piles(rules, pos):
        columns.sort()  # only Spider's deals tell the piles apart
    return (tuple(columns), pos.stock, pos.waste)


def settled(rules: Rules, pos: Position, column: int, index: int) -> bool:
    """Whether the face-up card at ``index`` of ``column`` lies where it belongs: on the
    face-up card it builds on (Spider: in suit), or as a King at the bottom."""
    col = pos.tableau[column]
    card = col[index]
    if index == 0:
        return RANK[card] == KING
    if index - 1 < pos.down[column]:
        return False
    below = col[index - 1]
    if rules.has_stock and not rules.has_waste:  # Spider: a run of one suit
        return below == card + 1 and RANK[card] != KING
    return rules.KEY[card] in rules.WANTS[below]


def hint_rank(rules: Rules, pos: Position, move: Move) -> tuple[int, ...]:
    """How good a move looks within its tier; larger is better: from the column with
    the most face-down cards, home rather than onto a column, then ``column_move_rank``
    (onto a card rather than into an empty column, in suit, more cards, lower column)."""
    down = pos.down[move.source] if move.source >= 0 else -1
    if move.target < 0:
        return (down, 1, 0, 0, 0, 0)
    _, onto_card, same_suit, size, column = column_move_rank(rules, pos, move)
    return (down, 0, onto_card, same_suit, size, column)


def undoes(rules: Rules, before: Position, last: Move, pos: Position, move: Move) -> bool:
    """Whether ``move`` in ``pos`` carries back the cards ``last`` just carried from
    ``before``: from where they lie now to where they came from."""
    if last.source in (STOCK, WASTE) or move.source == STOCK or move.size != last.size:
        return False
    if last.target == FOUNDATION:
        if not is_foundation_source(move.source):
            return False
    elif move.source != last.target:
        return False
    back = FOUNDATION if is_foundation_source(last.source) else last.source
    return move.target == back and moving_card(pos, move) == moving_card(before, last)


def redeal_allowed(pos: Position, history: Line) -> bool:
    """Whether turning the waste over again is worth a hint: some card moved since the
    last time (draws alone only cycle the same cards)."""
    if pos.stock:
        return True  # a draw, not a redeal
    for earlier, move in reversed(history):
        if move != DRAW:
            return True
        if not earlier.stock:
            return False
    return True


def tier(rules: Rules, pos: Position, move: Move, after: Position) -> int | None:
    """The progress tier of ``move`` from ``pos`` to ``after`` (``PROGRESS``), or None."""
    if move.source == STOCK:
        return None
    if move.target == FOUNDATION:
        return SAFE_HOME if is_safe_home(rules, pos, moving_card(pos, move)) else HOME
    if len(after.foundations) > len(pos.foundations):
        return SAFE_HOME  # Spider: a run completed and lifted off
    if sum(after.down) < sum(pos.down):
        return TURNS_UP
    if empties_before_deal(rules, pos, move):
        return None
    if move.source == WASTE:
        return FROM_WASTE
    if move.source >= 0 and settling(rules, pos, move, after) == (False, True):
        return SETTLES
    return None


def empties_before_deal(rules: Rules, pos: Position, move: Move) -> bool:
    """Whether a Spider move empties its pile while a deal is waiting: the pile would
    only have to be filled again before the deal."""
    return (
        _deals_onto_piles(rules, pos)
        and move.source >= 0
        and move.size == len(pos.tableau[move.source])
    )


def settling(rules: Rules, pos: Position, move: Move, after: Position) -> tuple[bool, bool]:
    """Whether the card a move between columns picks up was ``settled`` before it, and
    is after it."""
    index = len(pos.tableau[move.source]) - move.size
    landed = len(after.tableau[move.target]) - move.size
    return settled(rules, pos, move.source, index), settled(rules, after, move.target, landed)


def hint_move(rules: Rules, pos: Position, history: Line = ()) -> Move | None:
    """A move worth making in ``pos`` after the line of play ``history``, or None.

    See the module docstring for the tiers; a won game and a game with nothing
    useful left to do get None.
    """
    if rules.is_won(pos):
        return None
    seen = {position_key(rules, earlier) for earlier, _ in history}
    seen.add(position_key(rules, pos))
    legal = rules.legal_moves(pos)
    last = history[-1] if history else None
    tiers: list[tuple[Move, Position, int | None]] = []
    for move in legal:
        if last is not None and undoes(rules, last[0], last[1], pos, move):
            continue
        after = rules.apply(pos, move)
        if position_key(rules, after) not in seen:
            tiers.append((move, after, tier(rules, pos, move, after)))

    def best(moves: list[Move]) -> Move | None:
        # The highest ``hint_rank``, the first of equals.
        return max(moves, key=lambda m: hint_rank(rules, pos, m)) if moves else None

    def enabling(move: Move, after: Position, wanted: tuple[int, ...]) -> bool:
        return _enables(rules, pos, legal, seen, move, after, wanted)

    for wanted in PROGRESS:
        found = best([m for m, _, t in tiers if t == wanted])
        if found is not None:
            return found
    rest = [(m, after) for m, after, t in tiers if t is None and m.source != STOCK]
    # A move between columns that unsettles its card is never hinted: the move it
    # enables would only make up for it, and the two could go round for ever.
    found = best(
        [
            m
            for m, after in rest
            if m.source >= 0
            and settling(rules, pos, m, after) != (True, False)
            and not empties_before_deal(rules, pos, m)
            and enabling(m, after, PROGRESS)
        ]
    )
    if found is not None:
        return found
    if any(m == DRAW for m, _, _ in tiers) and redeal_allowed(pos, history):
        return DRAW
    # A card back from a foundation only for what cannot be taken back: a card
    # turned up, a card out of the waste.
    found = best(
        [
            m
            for m, after in rest
            if is_foundation_source(m.source) and enabling(m, after, IRREVERSIBLE)
        ]
    )
    if found is not None:
        return found
    if _deals_onto_piles(rules, pos) and not all(pos.tableau):
        # A deal waits for the empty piles: one filled (from a pile that keeps cards).
        return best(
            [
                m
                for m, _ in rest
                if m.source >= 0
                and m.target >= 0
                and not pos.tableau[m.target]
                and not empties_before_deal(rules, pos, m)
            ]
        )
    return None


def _deals_onto_piles(rules: Rules, pos: Position) -> bool:
    """Whether cards are left in a stock that deals onto the piles by number (Spider)."""
    return bool(pos.stock) and rules.has_stock and not rules.has_waste


def _enables(
    rules: Rules,
    pos: Position,
    legal: list[Move],
    seen: set[PositionKey],
    move: Move,
    after: Position,
    wanted: tuple[int, ...],
) -> bool:
    """Whether ``move`` opens a move of the ``wanted`` tiers, one the next hint could
    give, that no move from the same place to the same place could make before it."""
    before = {(m.source, m.target) for m in legal}
    here = position_key(rules, after)
    for then in rules.legal_moves(after):
        if (then.source, then.target) in before or undoes(rules, pos, move, after, then):
            continue
        later = rules.apply(after, then)
        key = position_key(rules, later)
        if key != here and key not in seen and tier(rules, after, then, later) in wanted:
            return True
    return False
