"""A game: one deal, its rules, and the history of what the player did.

A game is fully determined by (variant, options, seed, actions): ``replay`` rebuilds
it exactly, counters included, which is all the server stores (design.md). Actions
are canonical moves, ``undo`` and ``hint``.

Undo restores the position exactly, with its move count and score (the Yukon seed:
taking back "costs nothing"); the undo and hint counters only ever grow, because the
result screen shows them (seed 004). The engine allows unlimited undo; the server
applies a race's limits.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Final

from engine.deal import deal_code
from engine.errors import IllegalMoveError
from engine.hints import hint_move
from engine.moves import Move
from engine.notation import parse_move
from engine.position import Position
from engine.rules import Rules
from engine.view import player_view

UNDO: Final = "undo"
HINT: Final = "hint"

# Undo keeps the position after every this many moves and replays the moves since
# (a few microseconds each). Keeping the position before every move left several
# tracked objects a move for the garbage collector's young collections to walk: on a
# busy server, a 40–120 ms pause of each worker every ~13 s instead of every ~55 s
# (docs/performance.md, "Garbage collection").
UNDO_MARK_EVERY: Final = 32


class Termination(enum.Enum):
    """How a game ended."""

    WON = "won"
    NO_MOVES = "no_moves"


@dataclass(frozen=True)
class Outcome:
    """The end of a game as data (after python-chess)."""

    termination: Termination

    @property
    def won(self) -> bool:
        """True for a won game."""
        return self.termination is Termination.WON


class LegalMoves:
    """The legal moves of a game's position, generated when first asked for."""

    def __init__(self, game: Game) -> None:
        self._game = game
        self._moves: list[Move] | None = None

    def _all(self) -> list[Move]:
        if self._moves is None:
            self._moves = self._game.legal_list()
        return self._moves

    def __iter__(self) -> Iterator[Move]:
        return iter(self._all())

    def __contains__(self, move: object) -> bool:
        return move in self._all()

    def __bool__(self) -> bool:
        return bool(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def count(self) -> int:
        """How many legal moves there are."""
        return len(self._all())


class Game:
    """A game in progress; ``play``/``undo`` walk the moves played (undo replays from
    the last kept position)."""

    def __init__(
        self, rules: Rules, start: Position, variant: str, seed: int | None = None
    ) -> None:
        self.rules = rules
        self.variant = variant
        self.seed = seed
        self.deal_code = deal_code(seed) if seed is not None else None
        self.start = start
        self.position = start
        # The moves played, and for undo the position after every UNDO_MARK_EVERY of
        # them (``_marks[i]``: after i * UNDO_MARK_EVERY moves), as a plain tuple (a
        # tuple of plain numbers and tuples, which the garbage collector stops
        # tracking; a NamedTuple it would walk in every collection, engine/cards.py).
        self._played: list[Move] = []
        self._marks: list[tuple[object, ...]] = [tuple(start)]
        self.actions: list[str] = []
        self.undos = 0
        self.hints = 0
        # The legal moves of one position, kept because parsing a move, the view and
        # the outcome all need them and generating them is the costliest step.
        self._legal: tuple[Position, list[Move]] | None = None

    @property
    def options(self) -> dict[str, int | str | bool]:
        """The options the game was created with."""
        return dict(self.rules.options)

    @property
    def legal_moves(self) -> LegalMoves:
        """The legal moves now (lazy; supports ``in``, ``bool()`` and ``count()``)."""
        return LegalMoves(self)

    def legal_list(self) -> list[Move]:
        """The legal moves now as a list (shared; do not change it)."""
        cached = self._legal
        if cached is not None and cached[0] is self.position:
            return cached[1]
        moves = self.rules.legal_moves(self.position)
        self._legal = (self.position, moves)
        return moves

    @property
    def moves(self) -> list[Move]:
        """The moves on the way to the current position (undone ones left out)."""
        return list(self._played)

    def parse(self, text: str) -> Move:
        """The legal move ``text`` names here; see ``engine.notation``.

        Raises:
            MoveError: unreadable, illegal or ambiguous.
        """
        return parse_move(self.rules, self.position, text, self.legal_list())

    def play(self, move: Move | str) -> Move:
        """Play a legal move, given as a ``Move`` or as text; returns it.

        Raises:
            MoveError: the move is unreadable, illegal or ambiguous; nothing changes.
        """
        if isinstance(move, str):
            move = self.parse(move)
        elif move not in self.legal_list():
            raise self.rules.explain(self.position, move)
        self._push(move)
        self.actions.append(move.notation())
        return move

    def _push(self, move: Move) -> None:
        self._played.append(move)
        self.position = self.rules.apply(self.position, move)
        if len(self._played) % UNDO_MARK_EVERY == 0:
            self._marks.append(tuple(self.position))

    def undo(self) -> Move:
        """Take the last move back.

        Raises:
            IllegalMoveError: there is no move to take back.
        """
        if not self._played:
            raise IllegalMoveError(
                "There is no move to take back.", "Es gibt keinen Zug zum Zurücknehmen."
            )
        move = self._played.pop()
        kept = len(self._played) // UNDO_MARK_EVERY
        del self._marks[kept + 1 :]
        position = Position._make(self._marks[kept])
        for earlier in self._played[kept * UNDO_MARK_EVERY :]:
            position = self.rules.apply(position, earlier)
        self.position = position
        self.undos += 1
        self.actions.append(UNDO)
        return move

    def hint(self) -> Move | None:
        """A move worth making now (counted as a hint), or ``None``; see ``suggestion``."""
        self.count_hint()
        return self.suggestion()

    def count_hint(self) -> None:
        """Count a hint without working one out: one given from elsewhere (the server's
        solver), or one read back from a record."""
        self.hints += 1
        self.actions.append(HINT)

    def suggestion(self) -> Move | None:
        """The hint for where the game stands, not counted (``engine.hints``): it never
        leads back to a position of the line of play, nor takes back the last move."""
        return hint_move(self.rules, self.position, self.line())

    def line(self) -> list[tuple[Position, Move]]:
        """The line of play: each position on the way here with the move played from it
        (undone moves are not on it). Replayed from the deal when asked: keeping every
        position would cost the garbage collector (``UNDO_MARK_EVERY``)."""
        line = []
        position = self.start
        apply = self.rules.apply
        for move in self._played:
            line.append((position, move))
            position = apply(position, move)
        return line

    def play_action(self, action: str) -> None:
        """Apply one stored action: a canonical move, ``undo`` or ``hint``.

        Raises:
            ValueError: the action is not canonical or not legal here.
        """
        if action == UNDO:
            self.undo()
        elif action == HINT:
            self.count_hint()  # what was hinted is not part of the record
        else:
            self.play(Move.from_notation(action))

    # -- state ------------------------------------------------------------------

    @property
    def outcome(self) -> Outcome | None:
        """Won, no more moves, or ``None`` while the game goes on."""
        if self.rules.is_won(self.position):
            return Outcome(Termination.WON)
        if self.rules.is_stuck(self.position, self.legal_list()):
            return Outcome(Termination.NO_MOVES)
        return None

    @property
    def can_finish(self) -> bool:
        """Whether the rest can go to the foundations by itself."""
        return self.rules.can_finish(self.position)

    def finishing_moves(self) -> list[Move]:
        """The moves that finish the game, one card at a time (empty if it cannot)."""
        return self.rules.finishing_moves(self.position) if self.can_finish else []

    @property
    def foundation_cards(self) -> int:
        """Cards on the foundations (Spider: in the runs lifted off)."""
        return self.rules.foundation_cards(self.position)

    @property
    def counters(self) -> dict[str, int]:
        """Moves, undos, hints and score."""
        return {
            "moves": self.position.moves,
            "undos": self.undos,
            "hints": self.hints,
            "score": self.position.score,
        }

    def copy(self, stack: bool = True) -> Game:
        """A copy; without ``stack`` it keeps only the current position (for search)."""
        other = Game(self.rules, self.start if stack else self.position, self.variant, self.seed)
        other.position = self.position
        if stack:
            other._marks, other._played = list(self._marks), list(self._played)
            other.actions = list(self.actions)
            other.undos, other.hints = self.undos, self.hints
        return other

    def view(self) -> dict[str, object]:
        """What the player may see, JSON-ready; see ``engine.view``."""
        return player_view(self)

    def __repr__(self) -> str:
        return f"<Game {self.variant} seed={self.seed} moves={self.position.moves}>"


def new_game(variant: str, seed: int, options: Mapping[str, object] | None = None) -> Game:
    """A new game of ``variant`` dealt from ``seed``.

    Raises:
        ValueError: unknown variant, bad option or a seed out of range.
    """
    from engine.variants import rules_for

    rules = rules_for(variant, options)
    return Game(rules, rules.deal(seed), variant, seed)


def replay(
    variant: str, seed: int, options: Mapping[str, object] | None, actions: list[str]
) -> Game:
    """Rebuild a game from its record.

    Raises:
        ValueError: an action is not canonical or not legal where it stands.
    """
    game = new_game(variant, seed, options)
    for action in actions:
        game.play_action(action)
    return game
