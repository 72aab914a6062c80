"""What an arena pushes to those following it in this process: its standings (at most
once a second), each player's next race and scored races, and its changes of state.

Any process may change an arena (server/store/arena.py); each process pushes to its own
followers what it reads changed. Every few hundred milliseconds (and at once after a
change made here) it reads the versions of the arenas its followers follow, one query for
all; for an arena that moved on it reads, in one snapshot, the arena, its standings and
the seats written since the version it saw. So the pushes need no message between
processes: the database, which every change goes through anyway, is the channel.

What everybody sees alike (the top of the standings, a change of state) is encoded once
and the same bytes go to every follower; a player's own lines (their place and those
around it, their next race, their score) go to that player's connections only.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field

import structlog

from server import protocol as p
from server.core.arena_rules import Pacer
from server.protocol.errors import ArenaError
from server.services.subscriber import Subscriber, send_to_all
from server.store.arena_reads import ArenaChanges, ArenaReads, ArenaRow

log = structlog.get_logger(__name__)

TOP = 10  # lines of the standings everybody gets
AROUND = 2  # lines above and below a player's own


@dataclass
class _Followed:
    """An arena followed here: the version last pushed, and who follows it (for whom)."""

    version: int
    state: str
    followers: dict[Subscriber, set[int | None]] = field(default_factory=dict)
    standings: list[p.ArenaLine] = field(default_factory=list)
    standings_sent_at: int | None = None
    standings_held: bool = False  # changed, held back by the once-a-second pace


def around(
    lines: list[p.ArenaLine], player_id: int
) -> tuple[p.ArenaLine | None, list[p.ArenaLine]]:
    """A player's line of the standings and the lines next to it."""
    for index, line in enumerate(lines):
        if line.player == player_id:
            return line, lines[max(0, index - AROUND) : index + AROUND + 1]
    return None, []


def podium(lines: list[p.ArenaLine]) -> list[p.ArenaLine]:
    """The first three of the standings among players who completed a race."""
    return [line for line in lines if line.races > 0][:3]


class ArenaPush:
    """The arenas followed in this process, and what they push."""

    def __init__(
        self,
        reads: ArenaReads,
        clock: Callable[[], int],
        poll_ms: int = 250,
        pacer: Pacer | None = None,
    ) -> None:
        self.reads = reads
        self.clock = clock
        self.poll_ms = poll_ms
        self.pacer = pacer or Pacer(1000)
        self.arenas: dict[int, _Followed] = {}
        self._following: dict[Subscriber, set[int]] = {}
        self._nudged = asyncio.Event()

    def follow(self, row: ArenaRow, subscriber: Subscriber | None, player_id: int | None) -> None:
        """Push this arena's events to ``subscriber`` from now on (for ``player_id``'s
        own events too, when given)."""
        if subscriber is None:
            return
        followed = self.arenas.get(row.arena_id)
        if followed is None:
            followed = self.arenas[row.arena_id] = _Followed(row.version, row.state)
        followed.followers.setdefault(subscriber, set()).add(player_id)
        self._following.setdefault(subscriber, set()).add(row.arena_id)

    def unwatch(self, subscriber: Subscriber) -> None:
        """Forget a subscriber whose connection closed."""
        for arena_id in self._following.pop(subscriber, ()):
            followed = self.arenas.get(arena_id)
            if followed is not None:
                followed.followers.pop(subscriber, None)
                if not followed.followers:
                    del self.arenas[arena_id]

    def nudge(self) -> None:
        """A change was committed here: look at once rather than at the next poll."""
        self._nudged.set()

    async def run(self) -> None:
        """Poll the followed arenas for changes, and push them, until cancelled."""
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.poll_ms / 1000):
                    await self._nudged.wait()
            self._nudged.clear()
            try:
                await self.poll()
            except ArenaError as err:
                log.error("arena_push_failed", error=err.code)

    async def poll(self) -> None:
        """Push what changed in every followed arena since its version last pushed."""
        live = [arena_id for arena_id, f in self.arenas.items() if f.state != "finished"]
        # A finished arena changes no more.
        versions = await self.reads.versions(live) if live else {}
        for arena_id, version in versions.items():
            followed = self.arenas.get(arena_id)
            if followed is not None and version > followed.version:
                changes = await self.reads.changes(arena_id, followed.version)
                if changes is not None and arena_id in self.arenas:
                    self._push(followed, changes)
        now = self.clock()
        for arena_id, followed in list(self.arenas.items()):
            if followed.standings_held and self.pacer.due(followed.standings_sent_at, now):
                self._push_standings(arena_id, followed, now)

    def _push(self, followed: _Followed, changes: ArenaChanges) -> None:
        arena = changes.arena
        now = self.clock()
        followed.version = arena.version
        followed.standings = changes.standings
        followed.standings_held = True
        scores = {line.player: line for line in changes.standings}
        by_pairing: dict[int, list[p.PlayerInfo]] = {}
        for seat in changes.seats:
            if seat.placed:
                by_pairing.setdefault(seat.pairing, []).append(
                    p.PlayerInfo(id=seat.player_id, name=seat.name)
                )
        for seat in changes.seats:
            if seat.race_id is None:
                continue
            if seat.placed and not seat.done:
                race = p.ArenaNextRaceEvent(
                    race=seat.race_id, pairing=seat.pairing, players=by_pairing[seat.pairing]
                )
                self._send_to_player(arena.arena_id, followed, seat.player_id, race, now)
            if seat.scored and seat.points is not None:
                line = scores.get(seat.player_id)
                scored = p.ArenaScoredEvent(
                    race=seat.race_id,
                    rank=seat.rank or 0,
                    racers=seat.racers or 0,
                    points=seat.points,
                    fire=seat.fire,
                    score=0 if line is None else line.score,
                    streak=0 if line is None else line.streak,
                )
                self._send_to_player(arena.arena_id, followed, seat.player_id, scored, now)
        if arena.state != followed.state:
            followed.state = arena.state
            finished = arena.state == "finished"
            self._send_to_all(
                arena.arena_id,
                followed,
                p.ArenaStateEvent(
                    state=arena.state,  # type: ignore[arg-type]
                    starts_at=arena.starts_at,
                    ends_at=arena.ends_at,
                    podium=podium(changes.standings) if finished else None,
                ),
                now,
            )
        if self.pacer.due(followed.standings_sent_at, now):
            self._push_standings(arena.arena_id, followed, now)

    def _push_standings(self, arena_id: int, followed: _Followed, now: int) -> None:
        """The top to everyone, framed once; each player's own place to that player."""
        followed.standings_held = False
        followed.standings_sent_at = now
        lines = followed.standings
        top = lines[:TOP]
        shared = p.ArenaStandingsEvent(players=len(lines), top=top)
        spectators = [s for s, whom in followed.followers.items() if None in whom]
        send_to_all(spectators, p.encode(p.ArenaEvent(arena=arena_id, time=now, event=shared)))
        for subscriber, whom in followed.followers.items():
            for player_id in whom:
                if player_id is None:
                    continue
                you, near = around(lines, player_id)
                event = p.ArenaStandingsEvent(players=len(lines), top=top, you=you, around=near)
                message = p.ArenaEvent(arena=arena_id, time=now, event=event, player=player_id)
                subscriber.send(p.encode(message))

    def _send_to_all(
        self, arena_id: int, followed: _Followed, event: p.ArenaEventBody, now: int
    ) -> None:
        frame = p.encode(p.ArenaEvent(arena=arena_id, time=now, event=event))
        send_to_all(followed.followers, frame)

    def _send_to_player(
        self, arena_id: int, followed: _Followed, player_id: int, event: p.ArenaEventBody, now: int
    ) -> None:
        mine = [s for s, whom in followed.followers.items() if player_id in whom]
        if mine:
            message = p.ArenaEvent(arena=arena_id, time=now, event=event, player=player_id)
            send_to_all(mine, p.encode(message))
