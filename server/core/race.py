"""A race, without sockets or clocks: data in, events out.

Every operation takes ``now`` (server time in milliseconds since the epoch) and
returns the events it caused; the socket layer numbers, stores and sends them.
The race's state is an explicit enum and every operation checks it, raising a
``RaceError`` that names the state it found.

    lobby ──start──▶ countdown ──starts_at──▶ running ──all done / time limit──▶ finished
      ├────────────────start (no countdown)─────▲
      └──idle lobby_idle_ms──▶ finished (expired, no ranking)

The lobby: whoever may start it is its creator, or, once the creator has left, the
player who joined first of those still in it (``starter``). A lobby nobody joins or
leaves for ``lobby_idle_ms`` (30 minutes unless the server says) expires: the race
ends (reason ``expired``) with no ranking, since nobody played (docs/protocol.md).

Its racers and the order they place in are in server/core/racers.py; a race as stored,
in server/core/race_records.py.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from server import protocol as p
from server.core.race_records import Counters, RaceRecord, StoredState
from server.core.racers import Racer, places, rank
from server.protocol.errors import GameError, RaceError

LOBBY_IDLE_MS: Final = 30 * 60 * 1000  # an unstarted lobby expires after this long idle
# (the server's ``lobby_idle_ms`` setting, server/ops/config.py, sets each race's)


class RaceState(enum.StrEnum):
    """Where a race is in its life."""

    LOBBY = "lobby"
    COUNTDOWN = "countdown"
    RUNNING = "running"
    FINISHED = "finished"


def check_limits(message: p.CreateRace) -> None:
    """Refuse a race's numbers out of their ranges (players, countdown, time limit).

    Raises:
        GameError: ``invalid_options`` naming every number out of range.
    """
    problems = []
    for name, value, (low, high) in [
        ("max_players", message.max_players, p.MAX_PLAYERS),
        ("countdown_s", message.countdown_s, p.COUNTDOWN_S),
        ("time_limit_s", message.time_limit_s, p.TIME_LIMIT_S),
    ]:
        if value is not None and not low <= value <= high:
            problems.append(f"{name} must be from {low} to {high}")
    if problems:
        raise GameError("invalid_options", reason="; ".join(problems) + ".")


def commitment(seed: int, salt: str) -> str:
    """SHA-256 over ``"<seed in decimal>:<salt>"`` as lowercase hex (docs/deals.md)."""
    return hashlib.sha256(f"{seed}:{salt}".encode("ascii")).hexdigest()


@dataclass(frozen=True, slots=True)
class RaceSettings:
    """What the creator chose; fixed for the race's life."""

    variant: str
    options: dict[str, Any]
    max_players: int = 8
    start_mode: str = "manual"
    countdown_ms: int = 10_000
    time_limit_ms: int | None = None
    allow_undo: bool = True
    allow_hints: bool = False
    guild_id: str | None = None
    context: dict[str, Any] | None = None
    require_winnable: bool = False
    solver_help: bool = False
    winnable: str = "unproven"
    # Whether the race's results reach the boards: only when nobody could see or choose
    # its deal beforehand (the server dealt it) and the solver does not help in it.
    ranked: bool = True

    def public(self, private: bool = True) -> p.RaceSettings:
        """The settings as sent to clients; where the race was opened (``guild_id``,
        ``context``) only when ``private`` (to its players)."""
        return p.RaceSettings(
            variant=self.variant,
            options=self.options,
            max_players=self.max_players,
            start=self.start_mode,  # type: ignore[arg-type]
            countdown_s=self.countdown_ms // 1000,
            time_limit_s=None if self.time_limit_ms is None else self.time_limit_ms // 1000,
            allow_undo=self.allow_undo,
            allow_hints=self.allow_hints,
            guild_id=self.guild_id if private else None,
            context=self.context if private else None,
            require_winnable=self.require_winnable,
            solver_help=self.solver_help,
            winnable=self.winnable,  # type: ignore[arg-type]
            ranked=self.ranked,
        )


@dataclass
class Race:
    """A race's authoritative state inside one server process."""

    race_id: int
    creator_id: int
    settings: RaceSettings
    seed: int
    salt: str
    state: RaceState = RaceState.LOBBY
    starts_at: int | None = None
    ends_at: int | None = None
    end_reason: str | None = None
    racers: dict[int, Racer] = field(default_factory=dict)
    # The stored race's version: state changes are stored compare-and-set on it.
    version: int = 0
    # Progress is gathered and sent at most this often (0: after every change), so a
    # race of eight sends a few events a second, not one per move times eight.
    progress_interval_ms: int = 0
    changed: dict[int, None] = field(default_factory=dict)
    progress_sent_at: int = 0
    # In the lobby: when someone last joined or left (or the race was opened, or read
    # after a restart), from which it expires after ``lobby_idle_ms``; 0: not known yet.
    idle_since: int = 0
    lobby_idle_ms: int = LOBBY_IDLE_MS

    @classmethod
    def from_record(
        cls, record: RaceRecord, counters: dict[int, Counters], progress_interval_ms: int = 0
    ) -> Race:
        """The race as stored, its racers' progress read from their games (by game id)."""
        race = cls(
            race_id=record.race_id,
            creator_id=record.creator_id,
            settings=record.settings,
            seed=record.seed,
            salt=record.salt,
            state=record.state,
            starts_at=record.starts_at,
            ends_at=record.ends_at,
            end_reason=record.end_reason,
            progress_interval_ms=progress_interval_ms,
            version=record.version,
        )
        for entry in record.entries:
            progress = counters[entry.game_id]
            racer = Racer(
                player_id=entry.player_id,
                name=entry.name,
                user=entry.user,
                game_id=entry.game_id,
                foundation=progress.foundation,
                moves=progress.moves,
                score=progress.score,
                resigned=entry.status == "resigned",
            )
            if (
                entry.status == "won"
                and entry.finished_at is not None
                and race.starts_at is not None
            ):
                racer.time_ms = max(0, entry.finished_at - race.starts_at)
            race.racers.setdefault(entry.player_id, racer)
        return race

    def stored_state(self) -> StoredState:
        """The state to store after a change of state: compare-and-set over the version
        stored now, which the store's write then moves on by one, as this does."""
        state = StoredState(
            self.race_id, self.state, self.starts_at, self.ends_at, self.end_reason, self.version
        )
        self.version += 1
        return state

    def restore_progress(self, player_id: int, progress: Counters) -> None:
        """A racer's counters as stored, after a failed write left ours ahead."""
        racer = self.racers.get(player_id)
        if racer is not None and not racer.done:
            racer.foundation, racer.moves = progress.foundation, progress.moves
            racer.score = progress.score

    @property
    def commitment(self) -> str:
        """The published hash that binds the server to this race's seed."""
        return commitment(self.seed, self.salt)

    def _require(self, action: str, *states: RaceState) -> None:
        if self.state not in states:
            raise RaceError("wrong_state", state=self.state.value, action=action)

    def retold(self, untold: Iterable[p.RaceEvent]) -> list[p.RaceEvent]:
        """The events to tell, as the race now stands, for changes whose own events no
        owner numbered (made while its process's leases were in doubt, and reported to
        an owner that was nobody or read the race already changed): its lobby, its
        countdown, its start."""
        kinds = {type(event) for event in untold}
        events: list[p.RaceEvent] = []
        if p.LobbyEvent in kinds and self.state is RaceState.LOBBY:
            events.append(self._lobby())
        if p.CountdownEvent in kinds and self.state is RaceState.COUNTDOWN:
            events.append(p.CountdownEvent(starts_at=self.starts_at or 0))
        if kinds & {p.CountdownEvent, p.StartEvent} and self.state is RaceState.RUNNING:
            events.append(p.StartEvent(at=self.starts_at or 0, ends_at=self.ends_at))
        return events

    def _lobby(self) -> p.LobbyEvent:
        players = [p.PlayerInfo(id=r.player_id, name=r.name) for r in self.racers.values()]
        return p.LobbyEvent(
            players=players, max_players=self.settings.max_players, starter=self.starter
        )

    @property
    def starter(self) -> int | None:
        """Who may start the race: its creator, or once the creator left the lobby, the
        first to have joined of those in it (racers keep their joining order); None
        in an empty lobby (which only expires)."""
        if self.creator_id in self.racers:
            return self.creator_id
        return next(iter(self.racers), None)

    # ------------------------------------------------------------ membership

    def check_join(self, player_id: int) -> None:
        """Raise the error a join would raise, without changing anything.

        Raises:
            RaceError: ``wrong_state``, ``already_joined`` or ``race_full``.
        """
        joinable = [RaceState.LOBBY, RaceState.COUNTDOWN]
        if self.settings.start_mode == "now":
            joinable.append(RaceState.RUNNING)
        self._require("join", *joinable)
        if player_id in self.racers:
            raise RaceError("already_joined")
        if len(self.racers) >= self.settings.max_players:
            raise RaceError("race_full", max_players=self.settings.max_players)

    def join(
        self, player_id: int, name: str, user: str, game_id: int, now: int = 0
    ) -> list[p.RaceEvent]:
        """Add a player whose game (entry) already exists as ``game_id``."""
        self.check_join(player_id)
        self.racers[player_id] = Racer(player_id, name, user, game_id)
        self.idle_since = max(self.idle_since, now)
        return [self._lobby()]

    def leave(self, player_id: int, now: int) -> list[p.RaceEvent]:
        """Before the start a player is removed; once running, leaving is resigning.

        Raises:
            RaceError: ``not_in_race`` or ``wrong_state`` (finished).
        """
        self._require("leave", RaceState.LOBBY, RaceState.COUNTDOWN, RaceState.RUNNING)
        if player_id not in self.racers:
            raise RaceError("not_in_race")
        if self.state is RaceState.RUNNING:
            return self.resign(player_id, now)
        del self.racers[player_id]
        self.idle_since = max(self.idle_since, now)
        return [self._lobby()]

    # ------------------------------------------------------------ clock

    def start(self, player_id: int, now: int) -> list[p.RaceEvent]:
        """The starter (the creator, or who took the lobby over) starts the race: after
        ``countdown_ms``, or at once if that is 0.

        Raises:
            RaceError: ``not_creator`` or ``wrong_state``.
        """
        self._require("start", RaceState.LOBBY)
        if player_id != self.starter:
            raise RaceError("not_creator")
        return self.begin(now)

    def open(self, now: int) -> list[p.RaceEvent]:
        """At creation: run at once (start "now"), count down ("countdown"), or wait."""
        if self.settings.start_mode == "now":
            return self._run(now)
        if self.settings.start_mode == "countdown":
            return self.begin(now)
        self.idle_since = now
        return []

    def begin(self, now: int) -> list[p.RaceEvent]:
        """Enter the countdown, or run at once when there is none."""
        if self.settings.countdown_ms > 0:
            self.state = RaceState.COUNTDOWN
            self.starts_at = now + self.settings.countdown_ms
            return [p.CountdownEvent(starts_at=self.starts_at)]
        return self._run(now)

    def _run(self, now: int) -> list[p.RaceEvent]:
        self.state = RaceState.RUNNING
        self.starts_at = now
        if self.settings.time_limit_ms is not None:
            self.ends_at = now + self.settings.time_limit_ms
        return [p.StartEvent(at=now, ends_at=self.ends_at)]

    def deadline(self) -> int | None:
        """When ``tick`` next has something to do (server ms), or None."""
        if self.state is RaceState.LOBBY:
            return self.idle_since + self.lobby_idle_ms if self.idle_since else None
        if self.state is RaceState.COUNTDOWN:
            return self.starts_at
        if self.state is not RaceState.RUNNING:
            return None
        if self.changed:
            due = self.progress_sent_at + self.progress_interval_ms
            return due if self.ends_at is None else min(due, self.ends_at)
        return self.ends_at

    def tick(self, now: int) -> list[p.RaceEvent]:
        """Start a race whose countdown ran out, send due progress, end one out of time,
        expire a lobby left idle."""
        if self.state is RaceState.LOBBY and self.idle_since:
            if now >= self.idle_since + self.lobby_idle_ms:
                return self._end("expired", now)
        elif self.state is RaceState.COUNTDOWN and self.starts_at is not None:
            if now >= self.starts_at:
                return self._run(self.starts_at)
        elif self.state is RaceState.RUNNING:
            if self.ends_at is not None and now >= self.ends_at:
                return self._end("time_limit", now)
            if self.changed and now >= self.progress_sent_at + self.progress_interval_ms:
                return self._flush_progress(now)
        return []

    def _flush_progress(self, now: int) -> list[p.RaceEvent]:
        """One progress event with everyone whose counts changed since the last."""
        if not self.changed:
            return []
        standings = [self.racers[player].standing() for player in self.changed]
        self.changed.clear()
        self.progress_sent_at = now
        return [p.ProgressEvent(standings=standings, order=places(self.racers.values()))]

    # ------------------------------------------------------------ play

    def check_playing(self, player_id: int) -> Racer:
        """The player's racer, if they may move now.

        Raises:
            RaceError: ``not_started``, ``wrong_state`` or ``not_in_race``.
        """
        if self.state in (RaceState.LOBBY, RaceState.COUNTDOWN):
            raise RaceError("not_started")
        self._require("move", RaceState.RUNNING)
        racer = self.racers.get(player_id)
        if racer is None:
            raise RaceError("not_in_race")
        return racer

    def progress(
        self, player_id: int, *, foundation: int, moves: int, score: int, won: bool, now: int
    ) -> list[p.RaceEvent]:
        """Record a player's new counters after an acknowledged change."""
        racer = self.racers.get(player_id)
        if racer is None or self.state is not RaceState.RUNNING or racer.done:
            return []
        racer.foundation, racer.moves, racer.score = foundation, moves, score
        self.changed[player_id] = None
        if not won:
            if now >= self.progress_sent_at + self.progress_interval_ms:
                return self._flush_progress(now)
            return []  # sent with the next progress event (see ``tick``)
        started = now if self.starts_at is None else self.starts_at
        racer.time_ms = max(0, now - started)
        finish = p.FinishEvent(player=player_id, time_ms=racer.time_ms, moves=moves)
        return [*self._flush_progress(now), finish, *self._end_if_all_done(now)]

    def resign(self, player_id: int, now: int) -> list[p.RaceEvent]:
        """The player gives up; they are ranked among the unfinished.

        Raises:
            RaceError: ``not_in_race``, ``wrong_state``.
        """
        racer = self.check_playing(player_id)
        if racer.done:
            return []
        racer.resigned = True
        self.changed[player_id] = None
        return [*self._flush_progress(now), *self._end_if_all_done(now)]

    def end_if_all_done(self, now: int) -> list[p.RaceEvent]:
        """End a running race in which everyone is done: for a new owner, which may
        find the last finish stored but never announced (server/services/lease.py)."""
        if self.state is not RaceState.RUNNING:
            return []
        return [*self._flush_progress(now), *self._end_if_all_done(now)]

    def follow(self, standings: Iterable[p.Standing]) -> None:
        """Take the owner's standings into a copy of the race that another process owns."""
        for standing in standings:
            racer = self.racers.get(standing.player)
            if racer is not None:
                racer.foundation, racer.moves = standing.foundation, standing.moves
                racer.score, racer.time_ms = standing.score, standing.time_ms
                racer.resigned = standing.resigned

    def _end_if_all_done(self, now: int) -> list[p.RaceEvent]:
        if self.racers and all(r.done for r in self.racers.values()):
            return self._end("all_done", now)
        return []

    def _end(self, reason: str, now: int) -> list[p.RaceEvent]:
        last_progress = self._flush_progress(now)
        self.state = RaceState.FINISHED
        self.end_reason = reason
        self.ends_at = now
        return [
            *last_progress,
            p.EndEvent(
                reason=reason,  # type: ignore[arg-type]
                ranking=self.ranking(),
                seed=str(self.seed),
                salt=self.salt,
                commitment=self.commitment,
            ),
        ]

    def ranking(self) -> list[p.Ranked]:
        """The ranking as it stands (final once the race is finished; none for a lobby
        that expired, where nobody played)."""
        if self.end_reason == "expired":
            return []
        return rank(list(self.racers.values()))

    def info(self, seq: int, viewer: int | None) -> p.RaceInfo:
        """The state as ``viewer`` may see it: seed and salt only once the race is over,
        where it was opened only to its players and its creator (race ids can be
        enumerated, so what anyone may read holds nothing private)."""
        over = self.state is RaceState.FINISHED
        mine = self.racers.get(viewer) if viewer is not None else None
        private = mine is not None or viewer == self.creator_id
        return p.RaceInfo(
            race=self.race_id,
            state=self.state.value,
            seq=seq,
            creator=self.creator_id,
            starter=self.starter if self.state is RaceState.LOBBY else None,
            settings=self.settings.public(private),
            commitment=self.commitment,
            players=[r.standing() for r in self.racers.values()],
            your_game=mine.game_id if mine else None,
            starts_at=self.starts_at,
            ends_at=self.ends_at,
            ranking=self.ranking()
            if over and self.end_reason != "expired"
            else ([] if over else None),
            seed=str(self.seed) if over else None,
            salt=self.salt if over else None,
            order=places(self.racers.values()) if self.state is RaceState.RUNNING else None,
        )
