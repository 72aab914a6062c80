"""An arena tournament, without sockets or clocks: data in, decisions out.

An arena is a timed event of back-to-back races on one variant (docs/arena.md). Anyone
may join until it ends. A player who is done with a race (won their game, gave up, or
ran out of the race's time) waits to be paired again; each pairing round puts the
waiting players into new races of up to eight, the players closest in arena score, then
in rating, together. A race scores the places its player beat, doubled for a player on
fire (their two races before it won), as lichess's arena scores wins
(lila ``modules/tournament/src/main/arena/ArenaSheet.scala``): the rule is
``server.core.arena_rules``. Its values (settings, players, the decisions it returns) are
in ``server.core.arena_values``.

Every operation takes ``now`` (server ms) and returns what it decided; the service stores
it and acts on it (creates the races of a ``Paired``, resigns the race of a
``Withdrawn``). Operations check the arena's state and raise a ``TournamentError`` that
names the state found.

    upcoming ──starts_at──▶ running ──ends_at──▶ ending ──every race scored, or grace──▶ finished

A player in a running arena:

    waiting ──pair──▶ paired ──placed──▶ racing ──done──▶ waiting, or paused (asked, or absent)
       │                 └──unplaced, or no race in time──▶ waiting
       └──pause, leave──▶ paused ──join──▶ waiting
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from server.core.arena_rules import (
    RaceLine,
    Seat,
    absent_last,
    group_sizes,
    score_seat,
    standings_key,
)
from server.core.arena_values import (
    ArenaPlayer,
    ArenaSettings,
    ArenaState,
    Decision,
    Paired,
    Paused,
    Scored,
    StateChanged,
    Status,
    Withdrawn,
)
from server.protocol.arenas import ArenaLine
from server.protocol.errors import TournamentError

# A pairing whose race was not placed within this time is given up (its process died
# while creating it): its players wait again.
PAIRING_TIMEOUT_MS = 60_000
# No race is paired when less time than this is left for it to run (after its countdown).
SHORTEST_RACE_MS = 30_000
# How long an ending arena waits for its last races' results before it finishes anyway.
ENDING_GRACE_MS = 60_000


@dataclass
class Arena:
    """An arena's authoritative state, as one pairing round or request sees it."""

    arena_id: int
    creator_id: int | None  # None: the operator's schedule made it
    settings: ArenaSettings
    starts_at: int
    state: ArenaState = ArenaState.UPCOMING
    players: dict[int, ArenaPlayer] = field(default_factory=dict)
    pairings: int = 0  # the last pairing number given
    finished_at: int | None = None
    # The stored arena's version: every stored change moves it on by one.
    version: int = 0
    # What changed since the arena was loaded: the store writes these (players by id,
    # seats by (pairing, player)), and deletes the seats of pairings given up.
    changed: set[int] = field(default_factory=set)
    changed_seats: dict[tuple[int, int], Seat] = field(default_factory=dict)
    dropped_seats: set[tuple[int, int]] = field(default_factory=set)

    @property
    def ends_at(self) -> int:
        """When the arena stops pairing; its last races end by then too."""
        return self.starts_at + self.settings.duration_ms

    def _require(self, action: str, *states: ArenaState) -> None:
        if self.state not in states:
            raise TournamentError("arena_state", state=self.state.value, action=action)

    def _player(self, player_id: int) -> ArenaPlayer:
        found = self.players.get(player_id)
        if found is None:
            raise TournamentError("not_in_arena")
        return found

    def _touch(self, player: ArenaPlayer, seat: Seat | None = None) -> None:
        self.changed.add(player.player_id)
        if seat is not None:
            self.changed_seats[(seat.pairing, player.player_id)] = seat

    # ------------------------------------------------------------ membership

    def join(self, player_id: int, name: str, rating: float, now: int) -> list[Decision]:
        """Enter the arena, or come back after a pause; any time before its end.

        Raises:
            TournamentError: ``arena_state`` (ending or finished) or ``arena_joined``
                (already in and not paused).
        """
        self._require("join", ArenaState.UPCOMING, ArenaState.RUNNING)
        player = self.players.get(player_id)
        if player is None:
            self.players[player_id] = player = ArenaPlayer(
                player_id, name, rating, joined_at=now, score_at=now
            )
            self._touch(player)
            return []
        if player.status is Status.PAUSED:
            player.status = Status.WAITING
        elif player.pause_after:
            player.pause_after = False  # racing still: they wait again once done
        else:
            raise TournamentError("arena_joined")
        self._touch(player)
        return []

    def pause(self, player_id: int, now: int) -> list[Decision]:
        """Stop being paired; a race under way is played to its end first.

        Raises:
            TournamentError: ``arena_state`` (finished) or ``not_in_arena``.
        """
        self._require("pause", ArenaState.UPCOMING, ArenaState.RUNNING, ArenaState.ENDING)
        player = self._player(player_id)
        self._touch(player)
        if player.status is Status.WAITING:
            player.status = Status.PAUSED
            return [Paused(player_id, "asked")]
        if player.status in (Status.PAIRED, Status.RACING):
            player.pause_after = True
        return []

    def leave(self, player_id: int, now: int) -> list[Decision]:
        """Before the start: leave the arena. After it: pause at once, giving up the race
        under way (its place still counts); the score stays on the standings, and
        ``join`` brings the player back.

        Raises:
            TournamentError: ``arena_state`` (finished) or ``not_in_arena``.
        """
        self._require("leave", ArenaState.UPCOMING, ArenaState.RUNNING, ArenaState.ENDING)
        player = self._player(player_id)
        if self.state is ArenaState.UPCOMING:
            del self.players[player_id]
            self.changed.add(player_id)
            return []
        decisions = self.pause(player_id, now)
        if player.status is Status.PAIRED:
            player.withdraw = True
        elif player.status is Status.RACING:
            seat = self._current(player)
            if seat is not None and seat.race_id is not None:
                decisions.append(Withdrawn(player_id, seat.race_id))
        return decisions

    # ------------------------------------------------------------ clock

    def deadline(self) -> int | None:
        """When ``tick`` next has something to do by the clock alone (server ms), or None."""
        if self.state is ArenaState.UPCOMING:
            return self.starts_at
        if self.state is ArenaState.RUNNING:
            return self.ends_at
        if self.state is ArenaState.ENDING:
            return self.ends_at + ENDING_GRACE_MS
        return None

    def tick(self, now: int) -> list[Decision]:
        """Start, end and finish by the clock; give up pairings whose race never came."""
        decisions: list[Decision] = []
        if self.state is ArenaState.UPCOMING and now >= self.starts_at:
            self.state = ArenaState.RUNNING
            decisions.append(StateChanged(self.state, self.starts_at))
        if self.state is ArenaState.RUNNING and now >= self.ends_at:
            self.state = ArenaState.ENDING
            decisions.append(StateChanged(self.state, self.ends_at))
        for player in self.players.values():
            if player.status is Status.PAIRED:
                seat = self._current(player)
                if seat is None or now - seat.paired_at >= PAIRING_TIMEOUT_MS:
                    self._unseat(player, seat)
        late = now >= self.ends_at + ENDING_GRACE_MS
        if self.state is ArenaState.ENDING and (late or not self._open_seats()):
            decisions.append(self._finish(now))
        return decisions

    def _finish(self, now: int) -> StateChanged:
        self.state = ArenaState.FINISHED
        self.finished_at = now
        return StateChanged(self.state, now, tuple(self.podium()))

    def _open_seats(self) -> list[Seat]:
        return [seat for p in self.players.values() for seat in p.seats if seat.points is None]

    # ------------------------------------------------------------ pairing

    def pair(self, now: int) -> list[Paired]:
        """One pairing round: the waiting players, closest in score (then rating) first,
        into races of two to ``race_size``; a lone waiter waits. Nothing is paired once
        too little of the arena is left for a race to run."""
        if self.state is not ArenaState.RUNNING:
            return []
        time_limit = min(
            self.settings.race_time_ms, self.ends_at - now - self.settings.countdown_ms
        )
        if time_limit < SHORTEST_RACE_MS:
            return []
        waiting = sorted(
            (p for p in self.players.values() if p.status is Status.WAITING),
            key=lambda p: (-p.score, -p.rating, p.joined_at, p.player_id),
        )
        pairings: list[Paired] = []
        start = 0
        for size in group_sizes(len(waiting), self.settings.race_size):
            group = waiting[start : start + size]
            start += size
            self.pairings += 1
            for player in group:
                player.status = Status.PAIRED
                seat = Seat(pairing=self.pairings, paired_at=now)
                player.seats.append(seat)
                self._touch(player, seat)
            pairings.append(Paired(self.pairings, tuple(p.player_id for p in group), time_limit))
        return pairings

    def placed(self, pairing: int, race_id: int, now: int) -> list[Decision]:
        """The race of a pairing exists: its players race. Those who left the arena
        meanwhile are withdrawn from it at once."""
        decisions: list[Decision] = []
        for player in self.players.values():
            seat = player.seat(pairing)
            if seat is None or seat.race_id is not None or player.status is not Status.PAIRED:
                continue
            seat.race_id = race_id
            player.status = Status.RACING
            self._touch(player, seat)
            if player.withdraw:
                player.withdraw = False
                decisions.append(Withdrawn(player.player_id, race_id))
        return decisions

    def unplaced(self, pairing: int, now: int) -> None:
        """The race of a pairing could not be created: its players wait again."""
        for player in self.players.values():
            seat = player.seat(pairing)
            if seat is not None and seat.race_id is None:
                self._unseat(player, seat)

    def _unseat(self, player: ArenaPlayer, seat: Seat | None) -> None:
        if seat is not None:
            player.seats.remove(seat)
            self.changed_seats.pop((seat.pairing, player.player_id), None)
            self.dropped_seats.add((seat.pairing, player.player_id))
        player.withdraw = False
        player.status = Status.PAUSED if player.pause_after else Status.WAITING
        player.pause_after = False
        self.changed.add(player.player_id)

    def _current(self, player: ArenaPlayer) -> Seat | None:
        """The seat of the race the player is in (or being paired into), if any."""
        for seat in reversed(player.seats):
            if not seat.done:
                return seat
        return None

    # ------------------------------------------------------------ races' outcomes

    def racer_done(self, race_id: int, player_id: int, moves: int, now: int) -> list[Decision]:
        """A player is done in an arena race (won, gave up, or out of its time): they
        wait to be paired again, unless they asked for a pause or never moved in it
        (then they are paused as absent: an idle player is not paired on and on)."""
        player = self.players.get(player_id)
        seat = None if player is None else _seat_of_race(player.seats, race_id)
        if player is None or seat is None or seat.done:
            return []
        seat.done = True
        self._touch(player, seat)
        decisions: list[Decision] = []
        if player.status is Status.RACING and self._current(player) is None:
            if moves == 0:
                player.status = Status.PAUSED
                decisions.append(Paused(player_id, "absent"))
            elif player.pause_after:
                player.status = Status.PAUSED
                decisions.append(Paused(player_id, "asked"))
            else:
                player.status = Status.WAITING
            player.pause_after = False
        return decisions

    def race_ended(
        self, race_id: int, lines: Iterable[RaceLine], now: int, racers: int | None = None
    ) -> list[Decision]:
        """A race of the arena ended with this final ranking: each of its players is done
        in it, and their races are scored in the order they were paired (a race still
        running holds back the scoring of the later ones, so a streak follows the order
        the races were played).

        ``racers`` is how many the race ranked, when ``lines`` also holds players who
        left it before its start (ranked after them, with no move: they score nothing).
        Players who made no move count as ranked after every player who did
        (``absent_last``).
        """
        if self.state is ArenaState.FINISHED:
            return []
        lines = absent_last(list(lines))
        size = len(lines) if racers is None else racers
        decisions: list[Decision] = []
        for line in lines:
            decisions += self.racer_done(race_id, line.player_id, line.moves, now)
            player = self.players.get(line.player_id)
            seat = None if player is None else _seat_of_race(player.seats, race_id)
            if player is None or seat is None or seat.rank is not None:
                continue
            seat.rank, seat.racers, seat.moves = line.rank, size, line.moves
            self._touch(player, seat)
            decisions += self._score_ready(player, now)
        return decisions

    def _score_ready(self, player: ArenaPlayer, now: int) -> list[Decision]:
        decisions: list[Decision] = []
        while player.seats and player.seats[0].rank is not None:
            seat = player.seats.pop(0)
            assert seat.race_id is not None and seat.rank is not None and seat.racers is not None
            points, fire, won = score_seat(seat, player.streak)
            seat.points, seat.fire = points, fire
            player.streak = player.streak + 1 if won else 0
            player.best_streak = max(player.best_streak, player.streak)
            player.races += 1
            player.wins += int(won)
            if points:
                player.score += points
                player.score_at = now
            self._touch(player, seat)
            decisions.append(
                Scored(player.player_id, seat.race_id, seat.rank, seat.racers, points, fire)
            )
        return decisions

    # ------------------------------------------------------------ standings

    def standings(self) -> list[ArenaLine]:
        """Every player, first place first: score, then who reached it first."""
        ordered = sorted(self.players.values(), key=standings_key)
        return [player.line(rank) for rank, player in enumerate(ordered, start=1)]

    def podium(self) -> list[ArenaLine]:
        """The first three of the standings among players who completed a race."""
        return [line for line in self.standings() if line.races > 0][:3]

    def is_open_race(self, race_id: int) -> bool:
        """Whether a race of this arena is placed and not scored for everyone yet."""
        return any(_seat_of_race(p.seats, race_id) for p in self.players.values())

    def open_races(self) -> set[int]:
        """The races placed and not scored yet (the service looks at how they stand)."""
        return {
            seat.race_id
            for player in self.players.values()
            for seat in player.seats
            if seat.race_id is not None and seat.rank is None
        }


def _seat_of_race(seats: list[Seat], race_id: int) -> Seat | None:
    return next((seat for seat in seats if seat.race_id == race_id), None)
