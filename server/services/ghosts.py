"""Ghost races: race a stored game's ghost, as if it were racing beside you live.

The ghost is the daily's best game of a closed day, or the player's own best game on a
deal (docs/arena.md, "Ghost races"). The player races alone, in an ordinary race the race
service opens on the stored game's deal (its seed given, so the race is unranked, and no
daily attempt: a ghost race never counts as one). The ghost's standing comes from the
stored game replayed (server/core/ghost.py): at each moment of the race, the counts the
stored game had reached after as long from its own start, sent at most every 250 ms as
``ghost_event`` beside the race's own events; at the race's end, ``ghost_result`` says
whether the player beat it.

A ghost race is followed through the race service's public ``get_race`` with a tap
(server/services/taps.py), which tells the race's start and end here.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field

import structlog

from server import protocol as p
from server.core.calendar import closes_at_ms, parse_day
from server.core.ghost import Ghost, beat, order
from server.core.identity import Principal
from server.core.racers import Racer
from server.ops.config import ServerConfig
from server.protocol.errors import ArenaError, DailyError, GameError, NotFoundError, forbidden
from server.services.races import RaceService
from server.services.subscriber import Subscriber, send_to_all
from server.services.taps import EventTap, race_event
from server.store.ghosts import GhostStore, StoredGame
from server.store.storage import Storage

log = structlog.get_logger(__name__)

# The ghost's standing goes out at most this often (ms), as a race's progress does.
GHOST_INTERVAL_MS = 250


@dataclass
class _Run:
    """A ghost race followed here: the ghost, the racer's standing, who hears of it."""

    race_id: int
    ghost: Ghost
    player: Racer
    time_limit_ms: int | None
    starts_at: int | None = None
    subscribers: set[Subscriber] = field(default_factory=set)
    tap: EventTap | None = None
    sent: tuple[int, int, int, int | None] | None = None  # the ghost's counts last sent
    sent_at: int = 0
    result: p.GhostResult | None = None


class Ghosts:
    """The ghost races followed in this process."""

    def __init__(
        self,
        races: RaceService,
        unfollow: Callable[[Subscriber], None],
        storage: Storage,
        store: GhostStore,
        config: ServerConfig,
        clock: Callable[[], int],
    ) -> None:
        self.races = races
        # Forgets a subscriber of races: the tap of a ghost race that ended.
        self.unfollow = unfollow
        self.storage = storage
        self.store = store
        self.config = config
        self.clock = clock
        self.runs: dict[int, _Run] = {}
        self._following: dict[Subscriber, set[int]] = {}
        self._wake = asyncio.Event()

    # ------------------------------------------------------------ requests

    async def start(
        self, who: Principal, message: p.GhostRace, subscriber: Subscriber | None
    ) -> p.GhostReply:
        """Open a ghost race against the daily's best, or the player's own best on a deal.

        Raises:
            GameError: ``invalid_options`` unless the request names one of the two.
            NotFoundError: no such game or day's best; no won game of yours on the deal.
            DailyError: ``deal_live`` while the deal can still be played for a board.
            IdentityError: ``forbidden`` for a game of another player.
        """
        stored, source = await self._source(who, message)
        await self._check_not_live(stored)
        ghost = await self._ghost(stored)
        asked = p.CreateRace(
            variant=stored.variant,
            options=stored.options,
            seed=stored.seed,
            max_players=1,
            start="countdown",
            countdown_s=self.config.arena_countdown_s,
            require_winnable=False,
            context={"ghost": stored.game_id},
        )
        created = await self.races.create(who, asked, subscriber)
        info = _info(stored, ghost, source)
        run = self._follow(created.race, ghost, who)
        await self._tap(run, who)
        if subscriber is not None:
            self._listen(run, subscriber)
        log.info("ghost_race", race=run.race_id, ghost=stored.game_id, source=source)
        return self._reply(message.id, created.race, info, run)

    async def get(
        self, who: Principal, message: p.GetGhost, subscriber: Subscriber | None
    ) -> p.GhostReply:
        """A ghost race's state; the connection hears of its ghost from now on.

        Raises:
            NotFoundError: no such ghost race of the asker.
        """
        record = await self.storage.race(message.race)
        context = None if record is None else record.settings.context
        game_id = context.get("ghost") if isinstance(context, dict) else None
        if record is None or not isinstance(game_id, int) or record.creator_id != who.player_id:
            raise NotFoundError(what="ghost race", ref=message.race)
        stored = await self.store.game(game_id)
        if stored is None:
            raise NotFoundError(what="game", ref=game_id)
        ghost = await self._ghost(stored)
        reply = await self.races.get(who, p.GetRace(race=message.race), subscriber)
        run = self.runs.get(message.race) or self._follow(reply.race, ghost, who)
        if run.tap is None:
            await self._tap(run, who)
        if reply.race.ranking is not None and run.result is None:
            run.result = self._result(run, reply.race.ranking)
        if subscriber is not None:
            self._listen(run, subscriber)
        source = "own" if stored.player_id == who.player_id else "daily"
        return self._reply(message.id, reply.race, _info(stored, ghost, source), run)

    def unwatch(self, subscriber: Subscriber) -> None:
        """Forget a subscriber whose connection closed."""
        for race_id in self._following.pop(subscriber, ()):
            run = self.runs.get(race_id)
            if run is not None:
                run.subscribers.discard(subscriber)
                if not run.subscribers:
                    self._end(run)  # nobody to tell here: get_ghost follows it again

    async def _source(self, who: Principal, message: p.GhostRace) -> tuple[StoredGame, str]:
        """The stored game to race, and where it comes from."""
        if message.game is not None and message.variant is None and message.date is None:
            named = await self.store.game(message.game)
            if named is None:
                raise NotFoundError(what="game", ref=message.game)
            if named.player_id != who.player_id:
                raise forbidden(
                    f"Game {message.game} belongs to another player; race your own best.",
                    f"Spiel {message.game} gehört jemand anderem; fahre gegen deine Bestzeit.",
                )
            await self._check_not_live(named)
            best = await self.store.own_best(who.player_id, named)
            if best is None:
                raise NotFoundError(what="won game of yours on the deal of game", ref=message.game)
            return best, "own"
        if message.variant is not None and message.game is None:
            now = self.clock()
            day = parse_day(message.date, now)
            if now < closes_at_ms(day, self.config.daily_time_limit_s * 1000):
                raise DailyError("deal_live", game=f"{message.variant} {day.isoformat()}")
            best = await self.store.daily_best(message.variant, day)
            if best is None:
                raise NotFoundError(what="won daily attempt of", ref=f"{message.variant} {day}")
            return best, "daily"
        raise GameError(
            "invalid_options",
            reason="Name a daily deal (variant and date) or one of your games (game).",
        )

    async def _check_not_live(self, stored: StoredGame) -> None:
        """Refuse a deal that can still be played for a board: a ghost race reveals its
        seed at its end (every race does), which would give that deal away.

        Raises:
            DailyError: ``deal_live``: a race not finished, a daily deal not closed.
        """
        if stored.race_id is not None and stored.race_state != "finished":
            raise DailyError("deal_live", game=stored.game_id)
        day = stored.day or await self.store.daily_day(stored.variant, stored.seed)
        limit_ms = self.config.daily_time_limit_s * 1000
        if day is not None and self.clock() < closes_at_ms(day, limit_ms):
            raise DailyError("deal_live", game=stored.game_id)

    async def _ghost(self, stored: StoredGame) -> Ghost:
        actions, offsets = await self.store.timeline(stored)
        finish = None if stored.finished_at is None else stored.finished_at - stored.started_at
        try:
            return Ghost.from_game(
                name=stored.name,
                game_id=stored.game_id,
                variant=stored.variant,
                options=stored.options,
                seed=stored.seed,
                actions=actions,
                offsets=offsets,
                finish_ms=finish,
            )
        except ValueError as err:
            log.error("ghost_record_damaged", game=stored.game_id, error=str(err))
            raise NotFoundError(what="game", ref=stored.game_id) from None

    def _reply(
        self, request_id: p.RequestId, race: p.RaceInfo, info: p.GhostInfo, run: _Run
    ) -> p.GhostReply:
        now = self.clock()
        elapsed = 0 if run.starts_at is None else max(0, now - run.starts_at)
        standing = run.ghost.racer_at(elapsed).standing()
        return p.GhostReply(
            id=request_id,
            race=race,
            ghost=info,
            standing=standing,
            result=run.result,
            server_time=now,
        )

    # ------------------------------------------------------------ following the race

    def _follow(self, race: p.RaceInfo, ghost: Ghost, who: Principal) -> _Run:
        mine = next(s for s in race.players if s.player == who.player_id)
        player = Racer(who.player_id, mine.name, who.user, race.your_game or 0)
        limit = race.settings.time_limit_s
        run = _Run(
            race_id=race.race,
            ghost=ghost,
            player=player,
            time_limit_ms=None if limit is None else limit * 1000,
            starts_at=race.starts_at,
        )
        self.runs[race.race] = run
        return run

    async def _tap(self, run: _Run, who: Principal) -> None:
        run.tap = EventTap(lambda frame: self._take(run, frame))
        with contextlib.suppress(ArenaError):
            await self.races.get(who, p.GetRace(race=run.race_id), run.tap)
        self._wake.set()

    def _listen(self, run: _Run, subscriber: Subscriber) -> None:
        run.subscribers.add(subscriber)
        self._following.setdefault(subscriber, set()).add(run.race_id)

    def _take(self, run: _Run, frame: bytes) -> None:
        """The race's own events: its start, its racer's counts, its end."""
        message = race_event(frame)
        if message is None:
            return
        event = message.event
        if isinstance(event, p.CountdownEvent):
            run.starts_at = event.starts_at
        elif isinstance(event, p.StartEvent):
            run.starts_at = event.at
        elif isinstance(event, p.ProgressEvent):
            for standing in event.standings:
                if standing.player == run.player.player_id:
                    run.player.foundation, run.player.moves = standing.foundation, standing.moves
                    run.player.time_ms, run.player.resigned = standing.time_ms, standing.resigned
        elif isinstance(event, p.FinishEvent) and event.player == run.player.player_id:
            run.player.time_ms, run.player.moves = event.time_ms, event.moves
        elif isinstance(event, p.EndEvent):
            run.result = self._result(run, event.ranking)
            frame = p.encode(p.GhostResultEvent(race=run.race_id, result=run.result))
            send_to_all(run.subscribers, frame)
            self._end(run)
        self._wake.set()

    def _result(self, run: _Run, ranking: list[p.Ranked]) -> p.GhostResult:
        """Whether the racer beat the ghost: their final line against where the ghost got
        in its whole game (or within the race's time limit)."""
        line = next(line for line in ranking if line.player == run.player.player_id)
        you = Racer(run.player.player_id, line.name, run.player.user, run.player.game_id)
        you.foundation, you.moves, you.score = line.foundation, line.moves, line.score
        you.time_ms, you.resigned = line.time_ms, line.resigned
        ghost = run.ghost.final(run.time_limit_ms)
        return p.GhostResult(beat=beat(you, ghost), you=you.standing(), ghost=ghost.standing())

    def _end(self, run: _Run) -> None:
        if run.tap is not None:
            self.unfollow(run.tap)
        self.runs.pop(run.race_id, None)

    # ------------------------------------------------------------ the ghost's clock

    async def run(self) -> None:
        """Send each ghost's standing as it changes, at most every 250 ms, until
        cancelled."""
        while True:
            now = self.clock()
            due = [self._step(run, now) for run in list(self.runs.values())]
            self._wake.clear()
            upcoming = [at for at in due if at is not None]
            wait = max(0.0, (min(upcoming, default=now + 1000) - now) / 1000)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(min(wait, 1.0)):
                    await self._wake.wait()

    def _step(self, run: _Run, now: int) -> int | None:
        """Send the ghost's standing if it changed and may go; when to look again."""
        if run.starts_at is None or run.result is not None or now < run.starts_at:
            return run.starts_at
        elapsed = now - run.starts_at
        ghost = run.ghost.racer_at(elapsed)
        counts = (ghost.foundation, ghost.moves, ghost.score, ghost.time_ms)
        if counts != run.sent:
            if now - run.sent_at < GHOST_INTERVAL_MS:
                return run.sent_at + GHOST_INTERVAL_MS
            run.sent, run.sent_at = counts, now
            message = p.GhostEvent(
                race=run.race_id,
                time=elapsed,
                standing=ghost.standing(),
                order=order(run.player, ghost),
            )
            send_to_all(run.subscribers, p.encode(message))
        change = run.ghost.next_change(elapsed)
        return None if change is None else run.starts_at + change


def _info(stored: StoredGame, ghost: Ghost, source: str) -> p.GhostInfo:
    return p.GhostInfo(
        game=stored.game_id,
        name=stored.name,
        source=source,  # type: ignore[arg-type]
        date=None if stored.day is None else stored.day.isoformat(),
        time_ms=ghost.time_ms,
    )
