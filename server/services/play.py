"""The game service: practice games, and every action on a game, in a race or not.

Each change takes the game's lock, applies the session's rules (server/core/session.py),
commits the rows it added to the move log (with the race's events, through
server/services/publish.py, when the game is part of a race), and only then replies with the view. A
failed commit rebuilds the game from the database, the truth.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import engine
from server import protocol as p
from server.core.identity import Principal
from server.core.race import RaceState
from server.core.session import SEED_LIMIT, MoveRow, check_game_settings
from server.ops.metrics import Metrics
from server.protocol.errors import ArenaError, ConflictError, GameError, RaceError
from server.services.games import GameCache, LiveGame
from server.services.hosting import RaceHosting
from server.services.publish import RacePublisher
from server.services.review import FairPlay
from server.services.rooms import RaceRoom
from server.services.solving import SolverHelp
from server.services.subscriber import Subscriber
from server.services.winnability import WinnabilityWatch
from server.store import writes
from server.store.commit import GroupCommitter
from server.store.storage import Storage

# What a change does to the game: the actions played (as the reply lists them) and a hint.
Action = Callable[[LiveGame], tuple[list[str], str | None]]


class GameService:
    """Every game action, for the game's owner only."""

    def __init__(
        self,
        storage: Storage,
        committer: GroupCommitter,
        games: GameCache,
        hosting: RaceHosting,
        publisher: RacePublisher,
        fair_play: FairPlay,
        solver_help: SolverHelp,
        winnability: WinnabilityWatch,
        metrics: Metrics,
        clock: Callable[[], int],
    ) -> None:
        self.storage = storage
        self.committer = committer
        self.games = games
        self.hosting = hosting
        self.publisher = publisher
        self.fair_play = fair_play
        self.solver_help = solver_help
        self.winnability = winnability
        self.metrics = metrics
        self.clock = clock

    async def practice(self, who: Principal, message: p.Practice) -> p.ViewReply:
        """Start a one-player game outside any race."""
        check_game_settings(message.variant, message.options, message.seed)
        seed = secrets.randbelow(SEED_LIMIT) if message.seed is None else message.seed
        now = self.clock()
        game_id = await self.storage.create_entry(
            race_id=None,
            player_id=who.player_id,
            variant=message.variant,
            options=dict(message.options),
            seed=seed,
            seed_public=message.seed is not None,
            guild_id=message.guild_id,
            created_at=now,
        )
        live = self.games.start(
            game_id,
            race_id=None,
            player_id=who.player_id,
            variant=message.variant,
            seed=seed,
            options=dict(message.options),
            seed_public=message.seed is not None,
            started_at=now,
        )
        return self._reply(live, None, message.id)

    async def practice_record(self, who: Principal, message: p.PracticeRecord) -> p.ViewReply:
        """Keep a practice game played elsewhere (the page offline) as a finished game.

        The record is replayed with the engine before anything is stored: an action
        that is not legal where it stands refuses the whole record. It is stored as a
        practice game with a public seed, won or given up; practice reaches no board.
        A record sent again after a lost reply is stored again, which costs nothing a
        board could see.

        Raises:
            GameError: ``invalid_options``, ``bad_record`` or ``record_not_over``.
        """
        check_game_settings(message.variant, message.options, message.seed)
        game = engine.new_game(message.variant, message.seed, dict(message.options))
        for index, action in enumerate(message.actions):
            try:
                game.play_action(action)
            except engine.MoveError as err:
                raise GameError(
                    "bad_record", index=index, action=action, reason=err.en, reason_de=err.de
                ) from None
            except ValueError as err:
                raise GameError(
                    "bad_record", index=index, action=action, reason=str(err), reason_de=str(err)
                ) from None
        won = game.rules.is_won(game.position)
        if not won and not message.resigned:
            raise GameError("record_not_over")
        now = self.clock()
        # The game's clock: it started as long before it arrived as the page says it took.
        started = now - (message.time_ms or 0)
        game_id = await self.storage.create_entry(
            race_id=None,
            player_id=who.player_id,
            variant=message.variant,
            options=dict(message.options),
            seed=message.seed,
            seed_public=True,
            guild_id=None,
            created_at=started,
        )
        status = "won" if won else "resigned"
        rows = [MoveRow(game_id, seq, action) for seq, action in enumerate(game.actions)]
        await self.committer.submit(rows, (), [writes.entry_status(game_id, status, now)])
        live = LiveGame(
            game_id=game_id,
            race_id=None,
            player_id=who.player_id,
            game=game,
            status=status,
            seed_public=True,
            move_ids={},
            started_at=started,
            finished_at=now if won else None,
        )
        return self._reply(live, None, message.id)

    def _view(self, live: LiveGame, room: RaceRoom | None) -> p.PlayerView:
        if room is None:
            return live.view(live.reveals_seed(self.clock(), None))
        race = room.race
        reveal = live.reveals_seed(self.clock(), race.state is RaceState.FINISHED)
        before_start = race.state in (RaceState.LOBBY, RaceState.COUNTDOWN)
        return live.view(reveal, race.starts_at, face_down=before_start)

    def _reply(
        self, live: LiveGame, room: RaceRoom | None, request_id: p.RequestId, **extra: Any
    ) -> p.ViewReply:
        return p.ViewReply(
            id=request_id,
            game=live.game_id,
            race=live.race_id,
            view=self._view(live, room),
            **extra,
        )

    async def _owned(self, who: Principal, game_id: int) -> tuple[LiveGame, RaceRoom | None]:
        # Every move comes through here: a cached game and room cost no await.
        live = self.games.cached(game_id) or await self.games.get(game_id)
        live.check_owner(who.player_id)
        if live.race_id is None:
            return live, None
        return live, await self.hosting.current_room(live.race_id)

    async def get_view(self, who: Principal, message: p.GetView) -> p.ViewReply:
        """The player's view of one of their games."""
        live, room = await self._owned(who, message.game)
        return self._reply(live, room, message.id)

    async def move(
        self, who: Principal, message: p.Move, subscriber: Subscriber | None = None
    ) -> p.ViewReply:
        """Play a move given in the forgiving notation or canonical form; ``subscriber``
        is told unasked once the solver (where it may help) finds the game lost."""
        live, room = await self._owned(who, message.game)
        race = None if room is None else room.race.settings

        def play(g: LiveGame) -> tuple[list[str], str | None]:
            return g.play(message.text, race), None

        reply = await self._change(who, live, room, play, message.id, message.move_id)
        self._check_winnable(live, room, subscriber)
        return reply

    async def undo(
        self, who: Principal, message: p.Undo, subscriber: Subscriber | None = None
    ) -> p.ViewReply:
        """Take back the last move, where the race allows it (``subscriber`` as in ``move``)."""
        live, room = await self._owned(who, message.game)
        race = None if room is None else room.race.settings

        def undo(g: LiveGame) -> tuple[list[str], str | None]:
            return g.undo(race), None

        reply = await self._change(who, live, room, undo, message.id, message.move_id)
        self._check_winnable(live, room, subscriber)
        return reply

    def _check_winnable(
        self, live: LiveGame, room: RaceRoom | None, subscriber: Subscriber | None
    ) -> None:
        """Have the background check look at the game's new position (winnability.py)."""
        race = None if room is None else room.race.settings
        if subscriber is not None and live.status == "playing" and live.solver_may_help(race):
            self.winnability.changed(live, subscriber)

    async def hint(self, who: Principal, message: p.Hint) -> p.ViewReply:
        """A useful move, where the race allows hints; counts as a hint.

        With the solver's help the move is the next of the line the game keeps
        (``GameSession.solver_hint``); the solver is asked for a line only when the
        game has none or has left it. Otherwise (or when it finds no win in time) the
        engine's hint.
        """
        live, room = await self._owned(who, message.game)
        race = None if room is None else room.race.settings
        if race is not None and not race.allow_hints:
            raise RaceError("hints_disabled")
        helped = live.status == "playing" and live.solver_may_help(race)
        if helped and live.solver_hint() is None:
            # A game hinted before that holds no line (rebuilt from its record since)
            # may be on the deal's own line; any other asks from where it stands.
            from_deal = live.solver_line is None and live.game.hints > 0
            line = await self.solver_help.hint_line(live.game, from_deal)
            if line is not None:
                live.keep_solver_line(line)  # followed from where the game stands now
        source: list[str | None] = []

        def hint(g: LiveGame) -> tuple[list[str], str | None]:
            move, origin = g.hint(helped)
            source.append(origin)
            return [], move

        reply = await self._change(who, live, room, hint, message.id, None)
        reply.hint_source = source[0] if source else None  # type: ignore[assignment]
        return reply

    async def _helped(self, who: Principal, game_id: int) -> tuple[LiveGame, RaceRoom | None]:
        live, room = await self._owned(who, game_id)
        if not live.solver_may_help(None if room is None else room.race.settings):
            raise RaceError("solver_help_disabled")
        live.check_playing()
        if room is not None:
            room.race.check_playing(who.player_id)  # nothing about the deal before the start
        return live, room

    async def check(self, who: Principal, message: p.Check) -> p.WinnabilityReply:
        """Whether the game can still be won, as far as the solver can tell in its time."""
        live, _ = await self._helped(who, message.game)
        seq = live.seq
        verdict = await self.solver_help.verdict(live.game)
        return p.WinnabilityReply(
            id=message.id,
            game=live.game_id,
            seq=seq,
            verdict=verdict,  # type: ignore[arg-type]
        )

    async def jump_back(self, who: Principal, message: p.JumpBack) -> p.ViewReply:
        """Undo back to the last still-winnable position of a game proven lost.

        The undos are logged like any others, so the game replays exactly.
        """
        live, room = await self._helped(who, message.game)
        if room is not None and not room.race.settings.allow_undo:
            raise RaceError("undo_disabled")
        if live.answered(message.move_id):
            return self._reply(live, room, message.id, move_id=message.move_id, duplicate=True)
        asked_at = live.seq
        verdict = await self.solver_help.verdict(live.game)
        if verdict != "lost":
            raise GameError("not_lost", verdict=verdict)
        keep = await self.solver_help.last_winnable(live.game)
        if keep is None:
            raise GameError("no_winnable_move")

        def back(g: LiveGame) -> tuple[list[str], str | None]:
            if g.seq != asked_at:
                raise ConflictError()  # a move came in while the solver searched
            return g.jump_back(keep), None

        return await self._change(who, live, room, back, message.id, message.move_id)

    async def auto_finish(self, who: Principal, message: p.AutoFinish) -> p.ViewReply:
        """Play every finishing move, when the engine says the game can be finished."""
        live, room = await self._owned(who, message.game)
        return await self._change(who, live, room, lambda g: (g.finish(), None), message.id, None)

    async def resign(self, who: Principal, message: p.Resign) -> p.ViewReply:
        """Give up a game; in a race the player is ranked among the unfinished."""
        live, room = await self._owned(who, message.game)
        async with live.lock:
            live.check_playing()
            now = self.clock()
            statement = writes.entry_status(live.game_id, "resigned", None)
            if room is None:
                await self.committer.submit(statements=[statement])
            else:
                events = room.race.resign(who.player_id, now)
                await self.publisher.publish(room, events, now, [statement])
            live.resigned()
        self.games.retire(live)
        return self._reply(live, room, message.id)

    async def _change(
        self,
        who: Principal,
        live: LiveGame,
        room: RaceRoom | None,
        action: Action,
        request_id: p.RequestId,
        move_id: str | None,
    ) -> p.ViewReply:
        """Apply ``action`` to the game, commit what it added to the log, reply."""
        # The lock's acquire and release spelled out: ``async with`` would add two
        # coroutines to every move.
        await live.lock.acquire()
        try:
            cached = self.games.peek(live.game_id)
            if cached is None:
                # Let go of meanwhile (a room read again): held again, so that a copy
                # read from the database before this change commits is not cached over
                # it, to offer this move's number a second time.
                self.games.put(live)
            elif cached is not live:
                # Rebuilt from the database while we waited (a commit failed): use that.
                fresh = await self.games.get(live.game_id)
                return await self._change(who, fresh, room, action, request_id, move_id)
            if live.answered(move_id):
                return self._reply(live, room, request_id, move_id=move_id, duplicate=True)
            live.check_change(self.clock())
            if room is not None:
                room.race.check_playing(who.player_id)
            before = live.seq
            played, hint = action(live)
            rows = live.logged_since(before, move_id)
            if not rows:
                return self._reply(live, room, request_id, hint=hint)
            await self._commit(who, live, room, rows, move_id)
            self.metrics.moves_total += 1
            return self._reply(live, room, request_id, played=played, move_id=move_id, hint=hint)
        finally:
            live.lock.release()

    async def _commit(
        self,
        who: Principal,
        live: LiveGame,
        room: RaceRoom | None,
        rows: list[MoveRow],
        move_id: str | None,
    ) -> None:
        game = live.game
        now = self.clock()
        # The view is built after the commit (``_reply``); the race needs only this.
        won = live.won
        statements = [writes.entry_status(live.game_id, "won", now)] if won else []
        try:
            if room is None:
                await self.committer.submit(rows, (), statements)
            else:
                events = room.race.progress(
                    who.player_id,
                    foundation=game.foundation_cards,
                    moves=game.position.moves,
                    score=game.position.score,
                    won=won,
                    now=now,
                )
                await self.publisher.publish(room, events, now, statements, rows)
        except ArenaError as err:
            await self._recover(live, room, err)
            raise
        live.acknowledged(rows, move_id, now, won)
        if won:
            self.games.retire(live)
            if live.sealed_until is not None:  # a daily attempt: counts once reviewed
                self.fair_play.review_soon([live.game_id])

    async def _recover(self, live: LiveGame, room: RaceRoom | None, err: ArenaError) -> None:
        """After a failed commit, rebuild the game from the database (the truth)."""
        self.games.forget(live.game_id)
        try:
            fresh = await self.games.get(live.game_id)
        except ArenaError:
            return
        if room is not None:
            room.race.restore_progress(fresh.player_id, fresh.counters)
        if isinstance(err, ConflictError):
            err.view = self._view(fresh, room)
