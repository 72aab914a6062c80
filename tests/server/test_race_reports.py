"""What a race's owner makes of its mirrors' reports, without sockets or clocks."""

from __future__ import annotations

from dataclasses import replace

from server import protocol as p
from server.core.race import Race, RaceSettings, RaceState
from server.core.race_records import EntryLine, RaceRecord
from server.core.reports import Report, apply_report, reconcile, reports_of

SETTINGS = RaceSettings(variant="klondike", options={}, countdown_ms=0)


def owner_copy(interval: int = 250) -> Race:
    race = Race(1, 10, SETTINGS, seed=99, salt="ab", progress_interval_ms=interval)
    for player in (10, 20):
        race.join(player, f"P{player}", f"guest:{player}", game_id=player * 100)
    return race


def record_of(race: Race, players: tuple[int, ...], **changes: object) -> RaceRecord:
    entries = [
        EntryLine(player * 100, player, f"P{player}", f"guest:{player}", "playing", None)
        for player in players
    ]
    stored = RaceRecord(
        race.race_id,
        race.creator_id,
        race.settings,
        race.seed,
        race.salt,
        race.state,
        race.starts_at,
        race.ends_at,
        None,
        entries,
        last_seq=3,
        version=race.version,
    )
    return replace(stored, **changes)  # type: ignore[arg-type]


def test_a_mirrors_progress_becomes_standings_reports_and_membership_a_reread() -> None:
    mirror = owner_copy(interval=0)
    joined = mirror.join(30, "P30", "guest:30", game_id=3000)
    assert reports_of(1, joined) == [Report(race=1, reread=True)]
    mirror.start(10, now=1_000)
    events = mirror.progress(20, foundation=3, moves=7, score=5, won=False, now=2_000)
    assert reports_of(1, events) == [Report(1, player=20, foundation=3, moves=7, score=5)]


def test_the_owner_gathers_reported_progress_at_its_own_pace() -> None:
    race = owner_copy()
    race.start(10, now=1_000)
    first = apply_report(race, Report(1, player=20, moves=1), now=1_300)
    assert first is not None and [type(e) for e in first] == [p.ProgressEvent]
    # Within the interval the next reports wait for the owner's clock (``tick``).
    assert apply_report(race, Report(1, player=10, moves=1), now=1_400) == []
    assert apply_report(race, Report(1, player=20, moves=2), now=1_450) == []
    (later,) = race.tick(1_550)
    assert isinstance(later, p.ProgressEvent)
    assert {s.player: s.moves for s in later.standings} == {10: 1, 20: 2}


def test_a_reported_win_counts_at_its_own_time_and_the_last_one_ends_the_race() -> None:
    race = owner_copy()
    race.start(10, now=1_000)
    won = apply_report(race, Report(1, player=20, foundation=52, moves=90, time_ms=60_000), 62_000)
    assert won is not None
    finish = next(e for e in won if isinstance(e, p.FinishEvent))
    assert finish.player == 20 and finish.time_ms == 60_000
    resigned = apply_report(race, Report(1, player=10, moves=4, resigned=True), 63_000)
    assert resigned is not None and isinstance(resigned[-1], p.EndEvent)
    assert [line.player for line in resigned[-1].ranking] == [20, 10]
    assert race.state is RaceState.FINISHED
    # A report that comes after the end changes nothing.
    assert apply_report(race, Report(1, player=10, moves=5), 64_000) == []


def test_a_player_the_owner_does_not_know_asks_for_a_reread() -> None:
    race = owner_copy()
    race.start(10, now=1_000)
    assert apply_report(race, Report(1, player=30, moves=1), now=1_300) is None


def test_the_owner_announces_members_and_a_start_it_rereads() -> None:
    race = owner_copy()
    events = reconcile(race, record_of(race, (10, 20, 30)))
    assert [type(e) for e in events] == [p.LobbyEvent]
    assert sorted(race.racers) == [10, 20, 30]
    left = reconcile(race, record_of(race, (10, 30)))
    assert isinstance(left[0], p.LobbyEvent) and [i.id for i in left[0].players] == [10, 30]
    # Started by a mirror (stored compare-and-set, one version on): the owner says so.
    started = reconcile(
        race,
        record_of(race, (10, 30), state=RaceState.COUNTDOWN, starts_at=5_000, version=1),
    )
    assert started == [p.CountdownEvent(starts_at=5_000)]
    assert race.state is RaceState.COUNTDOWN and race.version == 1
    assert reconcile(race, record_of(race, (10, 30), state=RaceState.COUNTDOWN)) == []
