"""The live places of a race: the server ranks while the race runs, by the one rule the
final ranking uses, so no client needs a ranking of its own."""

from __future__ import annotations

from server import protocol as p
from server.core.race import Race, RaceSettings


def running_race() -> Race:
    race = Race(
        race_id=1,
        creator_id=10,
        settings=RaceSettings(variant="klondike", options={}, countdown_ms=0),
        seed=99,
        salt="ab",
    )
    for player in (10, 20, 30):
        race.join(player, f"P{player}", f"guest:{player}", game_id=player * 100)
    race.start(10, now=1_000)
    return race


def progress(race: Race, player: int, foundation: int, moves: int, now: int) -> p.ProgressEvent:
    (event,) = race.progress(
        player, foundation=foundation, moves=moves, score=0, won=False, now=now
    )
    assert isinstance(event, p.ProgressEvent)
    return event


class TestLivePlaces:
    def test_progress_gives_every_place_even_of_players_who_did_not_move(self) -> None:
        race = running_race()
        first = progress(race, 10, foundation=3, moves=5, now=2_000)
        assert first.order == [10, 20, 30]
        passed = progress(race, 30, foundation=4, moves=9, now=3_000)
        assert [s.player for s in passed.standings] == [30]
        assert passed.order == [30, 10, 20]  # P10 lost a place without moving

    def test_fewer_moves_break_a_tie_in_cards_home(self) -> None:
        race = running_race()
        progress(race, 10, foundation=2, moves=8, now=2_000)
        event = progress(race, 20, foundation=2, moves=6, now=2_100)
        assert event.order == [20, 10, 30]

    def test_a_resigned_player_keeps_the_place_their_cards_earn(self) -> None:
        race = running_race()
        progress(race, 20, foundation=6, moves=20, now=2_000)
        (event,) = race.resign(20, now=2_500)
        assert isinstance(event, p.ProgressEvent)
        assert event.order == [20, 10, 30]

    def test_the_live_order_is_the_final_rankings_order(self) -> None:
        race = running_race()
        progress(race, 30, foundation=7, moves=30, now=2_000)
        events = race.progress(20, foundation=52, moves=90, score=0, won=True, now=9_000)
        before_finish = events[0]
        assert isinstance(before_finish, p.ProgressEvent)
        assert before_finish.order == [20, 30, 10]
        events = race.resign(10, now=9_500) + race.resign(30, now=9_600)
        end = events[-1]
        assert isinstance(end, p.EndEvent)
        assert [line.player for line in end.ranking] == [20, 30, 10]

    def test_the_full_state_carries_the_order_only_while_the_race_runs(self) -> None:
        lobby = Race(
            race_id=2,
            creator_id=10,
            settings=RaceSettings(variant="klondike", options={}),
            seed=1,
            salt="cd",
        )
        lobby.join(10, "P10", "guest:10", game_id=1)
        assert lobby.info(seq=1, viewer=None).order is None
        race = running_race()
        progress(race, 20, foundation=1, moves=1, now=2_000)
        assert race.info(seq=5, viewer=10).order == [20, 10, 30]
        race.resign(10, now=3_000)
        race.resign(20, now=3_000)
        race.resign(30, now=3_000)
        finished = race.info(seq=9, viewer=None)
        assert finished.order is None and finished.ranking is not None
