"""A game as the server plays it: the rules the server adds to the engine's, without I/O.

The engine decides what is legal; the server decides who may act, when, and what they
may see: the owner alone moves, a move id already acknowledged is answered again rather
than played twice, undo and hints follow the race's settings, the solver helps only
where nobody competes on the same deal, the seed stays hidden while it would give the
deal away, and a won game becomes a won entry. These rules live here, taking the clock
as an argument, so they are tested without a database (tests/server/test_session.py);
the game service (server/services/play.py) does the locking and the writes around them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import engine
from server import protocol as p
from server.core.race import RaceSettings
from server.core.race_records import Counters
from server.protocol.errors import GameError, RaceError, forbidden

SEED_LIMIT = 2**64


def check_game_settings(variant: str, options: dict[str, Any], seed: int | None) -> None:
    """Refuse an unknown variant, bad options or an out-of-range seed.

    Raises:
        GameError: ``invalid_options`` with the engine's reason.
    """
    if variant not in engine.VARIANTS:
        known = ", ".join(sorted(engine.VARIANTS))
        raise GameError("invalid_options", reason=f"Unknown variant {variant!r}; try {known}.")
    if seed is not None and not 0 <= seed < SEED_LIMIT:
        raise GameError("invalid_options", reason="A seed is a whole number from 0 to 2**64-1.")
    try:
        engine.new_game(variant, seed=0, options=options)
    except ValueError as err:
        raise GameError("invalid_options", reason=str(err)) from None


class MoveRow(NamedTuple):
    """One action in a game's move log (a tuple: every move makes one)."""

    game_id: int
    seq: int
    action: str
    move_id: str | None = None


@dataclass(slots=True)
class GameSession:
    """A rebuilt game and what the server knows about it beyond the rules."""

    game_id: int
    race_id: int | None
    player_id: int
    game: engine.Game
    status: str
    seed_public: bool
    move_ids: dict[str, int]
    # When the game was created and when it was won, in server ms: the clock a client
    # shows for a game outside a race (a race's clock starts at the race's start).
    started_at: int = 0
    finished_at: int | None = None
    # A daily attempt's end of play time, and the time before which its seed stays
    # hidden even once it is over (its day's close), in server ms (server/services/daily.py).
    play_until: int | None = None
    sealed_until: int | None = None
    # The line of play from the deal to a win that the solver's hints follow
    # (``solver_hint``): derived data, never stored; a game rebuilt from its record
    # starts without one and the next hint asks the solver again.
    solver_line: tuple[engine.Move, ...] | None = None

    @property
    def seq(self) -> int:
        """The sequence number the next action gets in the move log."""
        return len(self.game.actions)

    @property
    def counters(self) -> Counters:
        """The game's public progress, as a race shows it."""
        return Counters(
            self.game.foundation_cards, self.game.counters["moves"], self.game.counters["score"]
        )

    # ------------------------------------------------------------ who and when

    def check_owner(self, player_id: int) -> None:
        """Only the player whose game this is may touch it.

        Raises:
            IdentityError: ``forbidden``.
        """
        if player_id != self.player_id:
            raise forbidden(
                f"Game {self.game_id} belongs to another player.",
                f"Spiel {self.game_id} gehört jemand anderem.",
            )

    def check_time(self, now: int) -> None:
        """Raise ``time_up`` once the game's play time is over."""
        if self.play_until is not None and now > self.play_until:
            raise GameError("time_up")

    def check_playing(self) -> None:
        """Raise ``game_over`` once the game is won or given up."""
        if self.status != "playing":
            raise GameError("game_over")

    def check_change(self, now: int) -> None:
        """Raise what a change of the game now would raise: over, or out of time."""
        self.check_playing()
        self.check_time(now)

    def answered(self, move_id: str | None) -> bool:
        """Whether ``move_id`` was acknowledged already: answered again, not played twice."""
        return move_id is not None and move_id in self.move_ids

    # ------------------------------------------------------------ what a race allows

    def solver_may_help(self, race: RaceSettings | None) -> bool:
        """Whether the solver may help in this game: it knows the face-down cards.

        Practice games, yes; races only when created with ``solver_help``; daily
        attempts never (their deal is the same for everyone that day).
        """
        if race is not None:
            return race.solver_help
        return self.sealed_until is None

    def reveals_seed(self, now: int, race_finished: bool | None) -> bool:
        """Whether the view may carry the seed: once nobody can use it any more.

        ``race_finished`` is None outside a race. A daily deal's seed stays secret until
        its day closes; a race's until the race is over; a practice game's once it is.
        """
        if self.sealed_until is not None and now < self.sealed_until:
            return False
        if race_finished is not None:
            return race_finished
        return self.status != "playing"

    # ------------------------------------------------------------ actions

    def play(self, text: str, race: RaceSettings | None) -> list[str]:
        """Play a move given in the forgiving notation or canonical form (or undo).

        Raises:
            GameError: ``invalid_move``, ``illegal_move``, ``ambiguous_move``, or undo's.
            RaceError: ``undo_disabled``.
        """
        if engine.is_undo_text(text):
            return self.undo(race)
        try:
            move = self.game.play(text)
        except engine.MoveError as err:
            raise move_error(err) from None
        return [move.notation()]

    def undo(self, race: RaceSettings | None) -> list[str]:
        """Take back the last move, where the race allows it.

        Raises:
            RaceError: ``undo_disabled``.
            GameError: ``nothing_to_undo``.
        """
        if race is not None and not race.allow_undo:
            raise RaceError("undo_disabled")
        try:
            self.game.undo()
        except engine.IllegalMoveError:
            raise GameError("nothing_to_undo") from None
        return ["undo"]

    def jump_back(self, keep: int) -> list[str]:
        """Undo back to ``keep`` moves (the last still-winnable position)."""
        count = len(self.game.moves) - keep
        for _ in range(count):
            self.game.undo()
        return ["undo"] * count

    def finish(self) -> list[str]:
        """Play every finishing move.

        Raises:
            GameError: ``cannot_finish`` unless the engine says the game can be finished.
        """
        if not self.game.can_finish:
            raise GameError("cannot_finish")
        played = []
        for move in self.game.finishing_moves():
            self.game.play(move)
            played.append(move.notation())
        return played

    def hint(self, solver_helps: bool) -> tuple[str | None, str | None]:
        """A hint, counted in the game's log, and where it comes from: with the solver's
        help the next move of the line the game keeps (``solver_hint``), else the
        engine's (``engine.hints``, which never goes round in circles either).

        Returns:
            The move in canonical form, or None when there is nothing to hint; and
            ``"solver"`` or ``"engine"`` (None with no move).
        """
        if solver_helps and (move := self.solver_hint()) is not None:
            self.game.count_hint()
            return move, "solver"
        found = self.game.hint()
        return (None, None) if found is None else (found.notation(), "engine")

    def solver_hint(self) -> str | None:
        """The next move of the solver's line while the game follows it, or None.

        The game follows the line while the moves standing in its record are the
        line's first moves (an undo along the line still follows it). Played
        elsewhere, the game has left it: the caller asks the solver for a new line
        (``keep_solver_line``), which never begins by taking back the last move. So
        hints alone go from the deal to the win along one solution, and a player
        who strays is led on from where they are.
        """
        line = self.solver_line
        if line is None:
            return None
        played = self.game.moves
        if len(played) >= len(line) or list(line[: len(played)]) != played:
            return None
        move = line[len(played)]
        return move.notation() if move in self.game.legal_moves else None

    def keep_solver_line(self, line: list[str]) -> None:
        """Keep a line of play from the deal to a win (canonical moves) for hints."""
        self.solver_line = tuple(engine.Move.from_notation(text) for text in line)

    def logged_since(self, before: int, move_id: str | None) -> list[MoveRow]:
        """The move-log rows of the actions after ``before``; the last carries ``move_id``."""
        added = self.game.actions[before:]
        last = len(added) - 1
        return [
            MoveRow(self.game_id, before + i, action, move_id if i == last else None)
            for i, action in enumerate(added)
        ]

    def acknowledged(self, rows: list[MoveRow], move_id: str | None, now: int, won: bool) -> None:
        """The rows are committed: remember the move id, and a win (``won``, as the
        caller found it before the commit: the position cannot change while the game's
        lock is held, and looking again would cost every move a second look)."""
        if move_id is not None:
            self.move_ids[move_id] = rows[-1].seq
        if won:
            self.finished_at = now
            self.status = "won"

    def resigned(self) -> None:
        """The player's resignation is committed: the game is over, unfinished."""
        self.status = "resigned"

    @property
    def won(self) -> bool:
        """Whether the position is won (the entry becomes ``won`` once committed)."""
        return self.game.rules.is_won(self.game.position)

    def view(
        self, reveal_seed: bool, started_at: int | None = None, *, face_down: bool = False
    ) -> p.PlayerView:
        """The player's view; the seed (which would reveal every card) only when allowed.

        ``face_down``: every card lies face down and nothing can be played, as a race's
        deal looks before its start: nobody may study it while others wait (the board's
        shape and the counts are shown, no card).

        It carries the game's clock (``started_at``, and ``finished_at`` once won) so a
        client can show the time of any game; ``started_at`` overrides the creation time
        when the clock starts elsewhere (a race's start).

        Built for each reply and not kept: a view is a few dozen objects, and one kept
        until the player's next move is long out of the processor's caches by then, so
        freeing it there cost more than building it (docs/performance.md). A move's
        reply builds it after the commit, so it is built, encoded and freed in one go.
        """
        view = self.game.view()
        if face_down:
            position = self.game.position
            view["tableau"] = [{"down": len(column), "up": []} for column in position.tableau]
            if view["waste"] is not None:
                view["waste"] = {"count": len(position.waste), "visible": []}
            view["legal_moves"] = {}
            view["can_finish"] = False
        if not (reveal_seed or self.seed_public):
            del view["seed"], view["deal_code"]
        view["status"] = self.status
        view["started_at"] = self.started_at if started_at is None else started_at
        if self.finished_at is not None:
            view["finished_at"] = self.finished_at
        return p.wire_view(view)


def move_error(err: engine.MoveError) -> GameError:
    """The protocol error for an engine's move error, keeping both languages."""
    if isinstance(err, engine.AmbiguousMoveError):
        code = "ambiguous_move"
    elif isinstance(err, engine.IllegalMoveError):
        code = "illegal_move"
    else:
        code = "invalid_move"
    details: dict[str, Any] = {"reason": err.message("en"), "reason_de": err.message("de")}
    if isinstance(err, engine.AmbiguousMoveError):
        details["candidates"] = list(err.candidates)
    return GameError(code, **details)
