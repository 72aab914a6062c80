"""What the server does for each request: races, practice games, moves.

The socket layer parses a message, resolves who sent it, and calls one method
here with the player and the clock; each method checks everything, changes the
cached game and race cores, waits for the group commit, then pushes the race's
events and returns the reply. Nothing is acknowledged before it is committed.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import msgspec
import structlog
from websockets.asyncio.server import ServerConnection

import engine
from server import protocol as p
from server.core.identity import Principal
from server.core.race import Race, Racer, RaceSettings, RaceState, commitment
from server.ops.config import ServerConfig
from server.ops.metrics import Metrics
from server.protocol.errors import ArenaError, ConflictError, GameError, NotFoundError, RaceError
from server.services.daily import Dailies
from server.services.games import GameCache, LiveGame, move_error
from server.services.leaderboard import Leaderboard
from server.services.listings import Listings
from server.services.rooms import RaceRoom
from server.services.solving import SolverHelp, SolverPool, winnable_race_seed
from server.services.winnability import WinnabilityWatch
from server.store.commit import GroupCommitter, MoveRow
from server.store.daily import DailyStore
from server.store.storage import (
    Statement,
    Storage,
    entry_status_statement,
    race_state_statement,
    result_statement,
    to_ms,
)
from server.transport.routing import ALONE, Place

log = structlog.get_logger(__name__)

SEED_LIMIT = 2**64
# Events that set a race's clock (run_clock looks again), and those that change its
# stored state (a row of ``races`` to update). Every move of a race passes these tests.
_CLOCK_EVENTS = (p.CountdownEvent, p.StartEvent)
_STATE_EVENTS = (p.CountdownEvent, p.StartEvent, p.EndEvent)
Action = Callable[[LiveGame], tuple[list[str], str | None]]


def now_ms() -> int:
    """Server time: milliseconds since the epoch."""
    return time.time_ns() // 1_000_000


def _clock_start(room: RaceRoom | None) -> int | None:
    """When a game's clock starts if not at its creation: a race's start, as ranked."""
    return None if room is None else room.race.starts_at


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


def _limits(message: p.CreateRace) -> None:
    problems = []
    if not 1 <= message.max_players <= 100:
        problems.append("max_players must be from 1 to 100")
    if not 0 <= message.countdown_s <= 3600:
        problems.append("countdown_s must be from 0 to 3600")
    if message.time_limit_s is not None and not 1 <= message.time_limit_s <= 86400:
        problems.append("time_limit_s must be from 1 to 86400")
    if problems:
        raise GameError("invalid_options", reason="; ".join(problems) + ".")


class Arena:
    """Every race and game this process serves."""

    def __init__(
        self,
        storage: Storage,
        committer: GroupCommitter,
        metrics: Metrics,
        config: ServerConfig,
        clock: Callable[[], int] = now_ms,
        place: Place = ALONE,
    ) -> None:
        self.storage = storage
        self.place = place
        self.committer = committer
        self.metrics = metrics
        self.config = config
        self.clock = clock
        self.games = GameCache(storage, config.game_cache_size)
        self.rooms: dict[int, RaceRoom] = {}
        self._watching: dict[ServerConnection, set[int]] = {}
        self._deadlines_changed = asyncio.Event()
        daily_limit_ms = config.daily_time_limit_s * 1000
        self.solver = SolverPool(config.solver_workers)
        self.solver_help = SolverHelp(self.solver, config.solver_help_seconds)
        self.winnability = WinnabilityWatch(self.solver_help)
        self.dailies = Dailies(
            DailyStore(storage), self.solver, self.games, clock, time_limit_ms=daily_limit_ms
        )
        self.boards = Leaderboard(storage.pool, clock, daily_limit_ms)
        self.listings = Listings(storage.pool, clock)

    # ------------------------------------------------------------ races

    async def room(self, race_id: int) -> RaceRoom:
        """The race's room, rebuilt from the database when this process has none.

        Raises:
            NotFoundError: no such race.
        """
        room = self.rooms.get(race_id)
        if room is not None and not room.stale:
            return room
        stale = room
        record = await self.storage.race(race_id)
        if record is None:
            raise NotFoundError(what="race", ref=race_id)
        race = Race(
            race_id=record.race_id,
            creator_id=record.creator_id,
            settings=record.settings,
            seed=record.seed,
            salt=record.salt,
            state=record.state,
            starts_at=record.starts_at,
            ends_at=record.ends_at,
            end_reason=record.end_reason,
            progress_interval_ms=self.config.progress_interval_ms,
            version=record.version,
        )
        if stale is not None:
            # Games of this race cached here may be behind too (played through another
            # process): replay them from the move log, unless a move is in hand.
            for entry in record.entries:
                cached = self.games.peek(entry["id"])
                if cached is not None and not cached.lock.locked():
                    self.games.forget(entry["id"])
        for entry in record.entries:
            live = await self.games.get(entry["id"])
            racer = race.racers.setdefault(
                entry["player_id"],
                _racer(entry, live),
            )
            if entry["status"] == "won" and race.starts_at is not None:
                finished_at = int(entry["finished_at"].timestamp() * 1000 + 0.5)
                racer.time_ms = max(0, finished_at - race.starts_at)
            racer.resigned = entry["status"] == "resigned"
        room = RaceRoom(race, seq=record.last_seq, sent=record.last_seq)
        current = self.rooms.get(race_id)
        if current is not None and not current.stale:
            return current  # another request rebuilt it meanwhile
        if stale is not None:
            room.watchers |= stale.watchers
        self.rooms[race_id] = room
        self._deadlines_changed.set()
        return room

    async def resume_open_races(self) -> int:
        """Load every unfinished race at home here after a start, so its clock runs again."""
        race_ids = [r for r in await self.storage.open_races() if self.place.owns(r)]
        for race_id in race_ids:
            await self.room(race_id)
        return len(race_ids)

    async def _publish(
        self,
        room: RaceRoom,
        events: list[p.RaceEvent],
        now: int,
        statements: list[Statement] | None = None,
        moves: list[MoveRow] | None = None,
    ) -> None:
        """Commit the events (with any rows and statements), then push them to watchers."""
        messages, rows = room.number(events, now)
        if events:
            statements = [*(statements or []), *self._race_statements(room, events)]
        try:
            await self.committer.submit(moves or (), rows, statements or ())
        except ArenaError:
            # The race in memory may now be ahead of the database: rebuild it from there.
            room.stale = room.failed = True
            self._deadlines_changed.set()
            raise
        if messages:
            room.send(messages)
            if any(isinstance(e, _CLOCK_EVENTS) for e in events):
                self._deadlines_changed.set()

    def _race_statements(self, room: RaceRoom, events: list[p.RaceEvent]) -> list[Statement]:
        race = room.race
        statements: list[Statement] = []
        if any(isinstance(e, _STATE_EVENTS) for e in events):
            statements.append(
                race_state_statement(
                    race.race_id,
                    race.state,
                    race.starts_at,
                    race.ends_at,
                    race.end_reason,
                    race.version,
                )
            )
            race.version += 1
        for event in events:
            if isinstance(event, p.EndEvent):
                for line in event.ranking:
                    game_id = race.racers[line.player].game_id
                    statements.append(result_statement(race.race_id, game_id, line.player, line))
        return statements

    def watch(self, room: RaceRoom, websocket: ServerConnection | None) -> None:
        """Send this connection the race's events from now on."""
        if websocket is not None:
            room.watchers.add(websocket)
            self._watching.setdefault(websocket, set()).add(room.race_id)

    def unwatch(self, websocket: ServerConnection) -> None:
        """Forget a closed connection."""
        for race_id in self._watching.pop(websocket, ()):
            room = self.rooms.get(race_id)
            if room is not None:
                room.watchers.discard(websocket)

    def race_reply(self, room: RaceRoom, who: Principal, request_id: p.RequestId) -> p.RaceReply:
        """The race's full state as ``who`` may see it."""
        info = room.race.info(room.sent, who.player_id)
        return p.RaceReply(id=request_id, race=info, server_time=self.clock())

    async def create_race(
        self, who: Principal, message: p.CreateRace, websocket: ServerConnection | None
    ) -> p.RaceReply:
        """Create a race (and join it), publishing the commitment to its seed."""
        check_game_settings(message.variant, message.options, message.seed)
        _limits(message)
        settings = RaceSettings(
            variant=message.variant,
            options=dict(message.options),
            max_players=message.max_players,
            start_mode=message.start,
            countdown_ms=message.countdown_s * 1000,
            time_limit_ms=None if message.time_limit_s is None else message.time_limit_s * 1000,
            allow_undo=message.allow_undo,
            allow_hints=message.allow_hints,
            guild_id=message.guild_id,
            context=message.context,
            require_winnable=message.require_winnable,
            solver_help=message.solver_help,
        )
        seed, winnable = message.seed, False
        if seed is None and message.require_winnable:
            seed, winnable = await winnable_race_seed(
                self.solver, message.variant, message.options, self.config.race_winnable_seconds
            )
        elif seed is None:
            seed = secrets.randbelow(SEED_LIMIT)
        settings = replace(settings, winnable="proven" if winnable else "unproven")
        salt = secrets.token_hex(16)
        race_id = await self.storage.create_race(
            who.player_id, settings, seed, salt, commitment(seed, salt), self.place
        )
        race = Race(
            race_id,
            who.player_id,
            settings,
            seed,
            salt,
            progress_interval_ms=self.config.progress_interval_ms,
        )
        room = self.rooms.setdefault(race_id, RaceRoom(race))
        self.watch(room, websocket)
        async with room.lock:
            now = self.clock()
            events: list[p.RaceEvent] = []
            if message.join:
                events += await self._enter(room, who)
            events += race.open(now)
            await self._publish(room, events, now)
        log.info("race_created", race=race_id, variant=settings.variant)
        return self.race_reply(room, who, message.id)

    async def _enter(self, room: RaceRoom, who: Principal) -> list[p.RaceEvent]:
        race = room.race
        race.check_join(who.player_id)
        now = self.clock()
        game_id = await self.storage.create_entry(
            race_id=race.race_id,
            player_id=who.player_id,
            variant=race.settings.variant,
            options=race.settings.options,
            seed=race.seed,
            seed_public=False,
            guild_id=race.settings.guild_id,
            created_at=now,
        )
        self.games.start(
            game_id,
            race_id=race.race_id,
            player_id=who.player_id,
            variant=race.settings.variant,
            seed=race.seed,
            options=race.settings.options,
            seed_public=False,
            started_at=now,
        )
        return race.join(who.player_id, who.name, who.user, game_id)

    async def join_race(
        self, who: Principal, message: p.JoinRace, websocket: ServerConnection | None
    ) -> p.RaceReply:
        """Join a race's lobby (or a race that started "now")."""
        room = await self.room(message.race)
        async with room.lock:
            events = await self._enter(room, who)
            await self._publish(room, events, self.clock())
        self.watch(room, websocket)
        return self.race_reply(room, who, message.id)

    async def leave_race(self, who: Principal, message: p.LeaveRace) -> p.RaceReply:
        """Leave a lobby, or resign from a running race."""
        room = await self.room(message.race)
        async with room.lock:
            racer = room.race.racers.get(who.player_id)
            if racer is None:
                raise RaceError("not_in_race")
            now = self.clock()
            running = room.race.state is RaceState.RUNNING
            was_done = racer.done
            events = room.race.leave(who.player_id, now)
            if running and was_done:
                pass  # a finished (or resigned) player leaving changes nothing
            elif running:
                live = await self.games.get(racer.game_id)
                async with live.lock:
                    statement = entry_status_statement(racer.game_id, "resigned", None)
                    await self._publish(room, events, now, [statement])
                    live.status = "resigned"
                self.games.retire(live)
            else:
                statement = entry_status_statement(racer.game_id, "left", None)
                await self._publish(room, events, now, [statement])
        return self.race_reply(room, who, message.id)

    async def start_race(self, who: Principal, message: p.StartRace) -> p.RaceReply:
        """The creator starts the race."""
        room = await self.room(message.race)
        async with room.lock:
            now = self.clock()
            events = room.race.start(who.player_id, now)
            await self._publish(room, events, now)
        return self.race_reply(room, who, message.id)

    async def get_race(
        self, who: Principal, message: p.GetRace, websocket: ServerConnection | None
    ) -> p.RaceReply:
        """A race's full state; the connection watches it from now on."""
        room = await self.room(message.race)
        self.watch(room, websocket)
        return self.race_reply(room, who, message.id)

    async def resume(
        self, who: Principal, message: p.Resume, websocket: ServerConnection | None
    ) -> p.EventsReply | p.RaceReply:
        """The events after ``last_seq`` if they are few enough, else the full state."""
        room = await self.room(message.race)
        self.watch(room, websocket)
        window = self.config.resume_window
        # Only events already sent are certainly stored without gaps (commits overlap).
        if message.last_seq < 0 or message.last_seq > room.sent:
            return self.race_reply(room, who, message.id)
        if room.sent - message.last_seq > window:
            return self.race_reply(room, who, message.id)
        sent = room.sent
        rows = await self.storage.events_after(room.race_id, message.last_seq, window + 1)
        events = _stored_events(room.race_id, [row for row in rows if row["seq"] <= sent])
        return p.EventsReply(id=message.id, race=room.race_id, events=events)

    async def catch_up(self, race_id: int, seq: int) -> None:
        """Another process stored events of a race up to ``seq``: send them on here.

        This process's copy of the race is behind from then on, so it is marked
        stale and rebuilt from the database before it is used again.
        """
        room = self.rooms.get(race_id)
        if room is None or seq <= room.sent:
            return
        rows = await self.storage.events_after(race_id, room.sent, seq - room.sent)
        room.send(_stored_events(race_id, rows))
        room.seq = max(room.seq, room.sent)
        room.stale = True

    async def run_clock(self) -> None:
        """Start counted-down races, send gathered progress, end races out of time.

        Due races are ticked together, so their events share one group commit.
        Finished races leave memory a minute after their end (``room`` reloads them).
        """
        longest = max(0.02, min(1.0, self.config.progress_interval_ms / 2000))
        while True:
            now = self.clock()
            due: list[RaceRoom] = []
            upcoming: list[int] = []
            for race_id, room in list(self.rooms.items()):
                due_at = room.race.deadline()
                if room.stale and (room.failed or (due_at is not None and due_at <= now)):
                    # Rebuilt only when a failed write left it behind, or when its clock
                    # is due: another process's events alone need no replay here.
                    with contextlib.suppress(ArenaError):
                        room = await self.room(race_id)
                    if room.stale:
                        continue  # the database is still away; try again next pass
                deadline = room.race.deadline()
                if deadline is None:
                    ended = room.race.ends_at
                    if room.race.state is RaceState.FINISHED and ended and now - ended > 60_000:
                        del self.rooms[race_id]
                elif deadline <= now:
                    due.append(room)
                else:
                    upcoming.append(deadline)
            if due:
                async with asyncio.TaskGroup() as group:
                    for room in due:
                        group.create_task(self._tick(room))
                await asyncio.sleep(0.005)  # no busy loop if a tick keeps failing
                continue
            # Progress that becomes due later is looked at within half an interval.
            wait = min([longest, *((d - now) / 1000 for d in upcoming)])
            self._deadlines_changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._deadlines_changed.wait(), max(0.0, wait))

    async def _tick(self, room: RaceRoom) -> None:
        async with room.lock:
            now = self.clock()
            events = room.race.tick(now)
            if not events:
                return
            try:
                await self._publish(room, events, now)
            except ArenaError as err:
                log.error("race_tick_failed", race=room.race_id, error=err.code)

    # ------------------------------------------------------------ games

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
        return self._view_reply(live, None, message.id)

    def _reveal(self, live: LiveGame, room: RaceRoom | None) -> bool:
        if live.sealed_until is not None and self.clock() < live.sealed_until:
            return False  # a daily deal's seed stays secret until its day closes
        if room is not None:
            return room.race.state is RaceState.FINISHED
        return live.status != "playing"

    def _view_reply(
        self, live: LiveGame, room: RaceRoom | None, request_id: p.RequestId, **extra: Any
    ) -> p.ViewReply:
        return p.ViewReply(
            id=request_id,
            game=live.game_id,
            race=live.race_id,
            view=live.view(self._reveal(live, room), _clock_start(room)),
            **extra,
        )

    async def _owned(self, who: Principal, game_id: int) -> tuple[LiveGame, RaceRoom | None]:
        # Every move comes through here: a cached game and room cost no await.
        live = self.games.cached(game_id) or await self.games.get(game_id)
        live.check_owner(who.player_id)
        if live.race_id is None:
            return live, None
        room = self.rooms.get(live.race_id)
        if room is None or room.stale:
            room = await self.room(live.race_id)
        return live, room

    async def get_view(self, who: Principal, message: p.GetView) -> p.ViewReply:
        """The player's view of one of their games."""
        live, room = await self._owned(who, message.game)
        return self._view_reply(live, room, message.id)

    async def move(
        self, who: Principal, message: p.Move, websocket: ServerConnection | None = None
    ) -> p.ViewReply:
        """Play a move given in the forgiving notation or canonical form; ``websocket``
        is told unasked once the solver (where it may help) finds the game lost."""

        def play(live: LiveGame) -> tuple[list[str], str | None]:
            if engine.is_undo_text(message.text):
                return undo(live)
            try:
                move = live.game.play(message.text)
            except engine.MoveError as err:
                raise move_error(err) from None
            return [move.notation()], None

        def undo(live: LiveGame) -> tuple[list[str], str | None]:
            return self._undo(live, room)

        live, room = await self._owned(who, message.game)
        reply = await self._change(who, live, room, play, message.id, message.move_id)
        self._watch(live, room, websocket)
        return reply

    def _watch(
        self, live: LiveGame, room: RaceRoom | None, websocket: ServerConnection | None
    ) -> None:
        """Have the background check look at the game's new position (server/services/winnability.py)."""
        if websocket is not None and live.status == "playing" and self._solver_help(live, room):
            self.winnability.changed(live, websocket)

    def _undo(self, live: LiveGame, room: RaceRoom | None) -> tuple[list[str], str | None]:
        if room is not None and not room.race.settings.allow_undo:
            raise RaceError("undo_disabled")
        try:
            live.game.undo()
        except engine.IllegalMoveError:
            raise GameError("nothing_to_undo") from None
        return ["undo"], None

    async def undo(
        self, who: Principal, message: p.Undo, websocket: ServerConnection | None = None
    ) -> p.ViewReply:
        """Take back the last move, where the race allows it (``websocket`` as in ``move``)."""
        live, room = await self._owned(who, message.game)
        reply = await self._change(
            who, live, room, lambda g: self._undo(g, room), message.id, message.move_id
        )
        self._watch(live, room, websocket)
        return reply

    async def hint(self, who: Principal, message: p.Hint) -> p.ViewReply:
        """A useful move, where the race allows hints; counts as a hint.

        With the solver's help the move is the first of a win the solver found;
        otherwise (or when it finds none in time) the engine's hint.
        """
        live, room = await self._owned(who, message.game)
        if room is not None and not room.race.settings.allow_hints:
            raise RaceError("hints_disabled")
        asked_at, solved = live.seq, None
        if live.status == "playing" and self._solver_help(live, room):
            solved = await self.solver_help.hint(live.game)
        source: list[str] = []

        def hint(g: LiveGame) -> tuple[list[str], str | None]:
            still_there = g.seq == asked_at  # no move came in while the solver searched
            move = g.game.hint()
            if solved is not None and still_there:
                source.append("solver")
                return [], solved
            source.append("engine")
            return [], None if move is None else move.notation()

        reply = await self._change(who, live, room, hint, message.id, None)
        reply.hint_source = source[0] if source and reply.hint else None  # type: ignore[assignment]
        return reply

    def _solver_help(self, live: LiveGame, room: RaceRoom | None) -> bool:
        """Whether the solver may help in this game: it knows the face-down cards.

        Practice games, yes; races only when created with ``solver_help``; daily
        attempts never (their deal is the same for everyone that day).
        """
        if room is not None:
            return room.race.settings.solver_help
        return live.sealed_until is None

    async def _helped(self, who: Principal, game_id: int) -> tuple[LiveGame, RaceRoom | None]:
        live, room = await self._owned(who, game_id)
        if not self._solver_help(live, room):
            raise RaceError("solver_help_disabled")
        live.check_playing()
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
        if message.move_id is not None and message.move_id in live.move_ids:
            return self._view_reply(live, room, message.id, move_id=message.move_id, duplicate=True)
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
            count = len(g.game.moves) - keep
            for _ in range(count):
                g.game.undo()
            return ["undo"] * count, None

        return await self._change(who, live, room, back, message.id, message.move_id)

    async def auto_finish(self, who: Principal, message: p.AutoFinish) -> p.ViewReply:
        """Play every finishing move, when the engine says the game can be finished."""
        live, room = await self._owned(who, message.game)

        def finish(g: LiveGame) -> tuple[list[str], str | None]:
            if not g.game.can_finish:
                raise GameError("cannot_finish")
            played = []
            for move in g.game.finishing_moves():
                g.game.play(move)
                played.append(move.notation())
            return played, None

        return await self._change(who, live, room, finish, message.id, None)

    async def resign(self, who: Principal, message: p.Resign) -> p.ViewReply:
        """Give up a game; in a race the player is ranked among the unfinished."""
        live, room = await self._owned(who, message.game)
        async with live.lock:
            live.check_playing()
            now = self.clock()
            statement = entry_status_statement(live.game_id, "resigned", None)
            if room is None:
                await self.committer.submit(statements=[statement])
            else:
                events = room.race.resign(who.player_id, now)
                await self._publish(room, events, now, [statement])
            live.status = "resigned"
        self.games.retire(live)
        return self._view_reply(live, room, message.id)

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
            if self.games.peek(live.game_id) not in (live, None):
                # Rebuilt from the database while we waited (a commit failed): use that.
                fresh = await self.games.get(live.game_id)
                return await self._change(who, fresh, room, action, request_id, move_id)
            if move_id is not None and move_id in live.move_ids:
                return self._view_reply(live, room, request_id, move_id=move_id, duplicate=True)
            live.check_playing()
            live.check_time(self.clock())
            if room is not None:
                room.race.check_playing(who.player_id)
            before = live.seq
            played, hint = action(live)
            added = live.game.actions[before:]
            rows = [
                MoveRow(live.game_id, before + i, a, move_id if i == len(added) - 1 else None)
                for i, a in enumerate(added)
            ]
            if not rows:
                return self._view_reply(live, room, request_id, hint=hint)
            await self._commit_change(who, live, room, rows)
            if move_id is not None:
                live.move_ids[move_id] = rows[-1].seq
            self.metrics.moves_total += 1
            return self._view_reply(
                live, room, request_id, played=played, move_id=move_id, hint=hint
            )
        finally:
            live.lock.release()

    async def _commit_change(
        self, who: Principal, live: LiveGame, room: RaceRoom | None, rows: list[MoveRow]
    ) -> None:
        game = live.game
        now = self.clock()
        # The view is built after the commit (``_view_reply``); the race needs only this.
        won = game.rules.is_won(game.position)
        statements = [entry_status_statement(live.game_id, "won", now)] if won else []
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
                await self._publish(room, events, now, statements, rows)
        except ArenaError as err:
            await self._recover(live, room, err)
            raise
        if won:
            live.finished_at = now
            live.status = "won"
            self.games.retire(live)

    async def _recover(self, live: LiveGame, room: RaceRoom | None, err: ArenaError) -> None:
        """After a failed commit, rebuild the game from the database (the truth)."""
        self.games.forget(live.game_id)
        try:
            fresh = await self.games.get(live.game_id)
        except ArenaError:
            return
        if room is not None:
            racer = room.race.racers.get(fresh.player_id)
            if racer is not None and not racer.done:
                racer.foundation = fresh.game.foundation_cards
                racer.moves = fresh.game.counters["moves"]
                racer.score = fresh.game.counters["score"]
        if isinstance(err, ConflictError):
            err.view = fresh.view(self._reveal(fresh, room), _clock_start(room))


def _stored_events(race_id: int, rows: list[Any]) -> list[p.Event]:
    """Stored event rows as the messages they were sent as."""
    return [
        p.Event(
            race=race_id,
            seq=row["seq"],
            time=to_ms(row["at"]) or 0,
            event=msgspec.json.decode(row["body"], type=p.RaceEvent),
        )
        for row in rows
    ]


def _racer(entry: dict[str, Any], live: LiveGame) -> Racer:
    """A racer rebuilt from a stored entry and its replayed game."""
    counters = live.game.counters
    return Racer(
        player_id=entry["player_id"],
        name=entry["display_name"],
        user=entry["principal"],
        game_id=entry["id"],
        foundation=live.game.foundation_cards,
        moves=counters["moves"],
        score=counters["score"],
    )
