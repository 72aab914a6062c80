"""What a race's owner makes of what other processes did: data in, events out.

Only the process that holds a race's lease (server/services/lease.py) numbers the race's
events and runs its clock. Another process whose players move in the race (a *mirror*)
commits their moves, then reports each player's new standing to the owner; a mirror that
changed who is in the race, or started it, reports that the owner must reread the race.
The owner turns both into the race's events, as if the change had been its own:

    mirror: move committed ──report(standing)──▶ owner: Race.progress ──▶ progress event
    mirror: join / leave / start committed ──report(reread)──▶ owner: reconcile ──▶ event
"""

from __future__ import annotations

import msgspec

from server import protocol as p
from server.core.race import Race, RaceState
from server.core.race_records import RaceRecord
from server.core.racers import Racer


class Report(msgspec.Struct, frozen=True, array_like=True):
    """A player's standing after a change a mirror committed, or (``reread``) a sign
    that the race's entries or state changed in the database, or (neither: no
    ``player``) only that a game's log grew through the race's owner, for mirrors that
    may hold an older copy of that game."""

    race: int
    reread: bool = False
    player: int = 0
    foundation: int = 0
    moves: int = 0
    score: int = 0
    time_ms: int | None = None  # set once the player has won
    resigned: bool = False
    # The player's game and the length of its log after the change: a process with an
    # older copy of that game cached drops it (server/services/races.py).
    game: int = 0
    logged: int = 0

    @property
    def game_only(self) -> bool:
        """The report tells only of a game's log, not of a standing or the race."""
        return not self.reread and not self.player


def reports_of(race_id: int, events: list[p.RaceEvent]) -> list[Report]:
    """The reports that stand for the events a mirror's copy of the race produced.

    Progress carries the standings; a change of members or state asks for a reread;
    a finish or end the mirror saw is the owner's to decide, from the standings.
    """
    reports: list[Report] = []
    for event in events:
        if isinstance(event, p.ProgressEvent):
            reports += [
                Report(
                    race=race_id,
                    player=s.player,
                    foundation=s.foundation,
                    moves=s.moves,
                    score=s.score,
                    time_ms=s.time_ms,
                    resigned=s.resigned,
                )
                for s in event.standings
            ]
        elif isinstance(event, p.LobbyEvent | p.CountdownEvent | p.StartEvent):
            reports.append(Report(race=race_id, reread=True))
    return reports


def apply_report(race: Race, report: Report, now: int) -> list[p.RaceEvent] | None:
    """The owner's events for a player's reported standing; None when the player is
    not in the owner's copy (it must reread the race first)."""
    racer = race.racers.get(report.player)
    if racer is None:
        return None
    if race.state is not RaceState.RUNNING or racer.done:
        return []
    if report.resigned:
        return race.resign(report.player, now)
    won = report.time_ms is not None
    started = race.starts_at if race.starts_at is not None else now
    return race.progress(
        report.player,
        foundation=report.foundation,
        moves=report.moves,
        score=report.score,
        won=won,
        # A win counts at the time the mirror committed it, not when the report came.
        now=started + report.time_ms if report.time_ms is not None else now,
    )


def reconcile(race: Race, record: RaceRecord) -> list[p.RaceEvent]:
    """Bring the owner's copy up to the stored race (members, state) and return the
    events that tell watchers what changed."""
    events: list[p.RaceEvent] = []
    stored = {entry.player_id: entry for entry in record.entries}
    members_changed = False
    for player, entry in stored.items():
        if player not in race.racers:
            race.racers[player] = Racer(player, entry.name, entry.user, entry.game_id)
            members_changed = True
    if race.state in (RaceState.LOBBY, RaceState.COUNTDOWN):
        for player in [player for player in race.racers if player not in stored]:
            del race.racers[player]  # left the lobby
            members_changed = True
    if members_changed:
        players = [p.PlayerInfo(id=r.player_id, name=r.name) for r in race.racers.values()]
        events.append(p.LobbyEvent(players=players, max_players=race.settings.max_players))
    if record.version > race.version:
        if race.state is RaceState.LOBBY and record.state is RaceState.COUNTDOWN:
            race.state, race.starts_at = RaceState.COUNTDOWN, record.starts_at
            events.append(p.CountdownEvent(starts_at=record.starts_at or 0))
        elif race.state in (RaceState.LOBBY, RaceState.COUNTDOWN) and (
            record.state is RaceState.RUNNING
        ):
            race.state, race.starts_at, race.ends_at = (
                RaceState.RUNNING,
                record.starts_at,
                record.ends_at,
            )
            events.append(p.StartEvent(at=record.starts_at or 0, ends_at=record.ends_at))
        race.version = record.version
    return events
