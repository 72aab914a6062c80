"""The rating arithmetic (server/core/ratings.py), without a database."""

from __future__ import annotations

import math

import pytest

from server.core import ratings
from server.core.ratings import NEW, Finish, Skill


def line(
    player: int,
    *,
    finished: bool = False,
    resigned: bool = False,
    time_ms: int | None = None,
    foundation: int = 0,
    user: str | None = None,
) -> Finish:
    return Finish(
        player_id=player,
        user=user or f"discord:{1000 + player}",
        finished=finished,
        resigned=resigned,
        time_ms=time_ms,
        foundation=foundation,
    )


class TestScale:
    def test_a_new_player_is_1500_with_a_deviation_of_246(self) -> None:
        assert NEW.rating == 1500
        assert NEW.deviation == 246
        assert NEW.provisional

    def test_400_points_between_players_of_known_skill_are_odds_of_10_to_1(self) -> None:
        # Plackett–Luce's chance that the first of two finishes ahead is
        # e^(µ1/c) / (e^(µ1/c) + e^(µ2/c)), with c² = Σ(σ² + β²): √2·β once σ is 0.
        gap = 400 / ratings.SCALE
        c = math.sqrt(2 * (ratings.BETA**2 + 0.0))
        ahead = math.exp(gap / c) / (math.exp(gap / c) + 1)
        assert ahead == pytest.approx(10 / 11)
        assert ratings.display(ratings.MU + gap) == 1900
        assert ratings.display(ratings.MU - gap) == 1100

    def test_conservative_is_mu_minus_three_sigma(self) -> None:
        assert Skill(30.0, 2.0).conservative == 24.0
        assert not Skill(30.0, ratings.PROVISIONAL_SIGMA - 0.01).provisional
        assert Skill(30.0, ratings.PROVISIONAL_SIGMA).provisional


class TestPlaces:
    def test_finishers_by_time_then_the_unfinished_by_cards_home_then_resigners(self) -> None:
        placed = ratings.places(
            [
                line(1, resigned=True, foundation=40),
                line(2, foundation=20),
                line(3, finished=True, time_ms=90_000, foundation=52),
                line(4, foundation=30),
                line(5, finished=True, time_ms=60_000, foundation=52),
            ]
        )
        assert placed == {5: 1, 3: 2, 4: 3, 2: 4, 1: 5}

    def test_equal_results_share_a_place_and_the_next_place_skips(self) -> None:
        placed = ratings.places(
            [
                line(1, foundation=10),
                line(2, foundation=10),
                line(3, finished=True, time_ms=5000),
                line(4, resigned=True),
                line(5, resigned=True, foundation=30),
            ]
        )
        assert placed == {3: 1, 1: 2, 2: 2, 4: 4, 5: 4}

    def test_only_signed_in_players_are_placed(self) -> None:
        placed = ratings.places(
            [
                line(1, finished=True, time_ms=1000, user="guest:abc"),
                line(2, finished=True, time_ms=2000),
                line(3, foundation=3),
            ]
        )
        assert placed == {2: 1, 3: 2}

    def test_signed_in_means_a_discord_principal(self) -> None:
        assert ratings.signed_in("discord:123456789")
        assert not ratings.signed_in("guest:123")


class TestRate:
    def test_the_winner_gains_what_the_last_loses_and_every_sigma_falls(self) -> None:
        after = ratings.rate_race({}, {10: 1, 11: 2, 12: 3})
        assert after[10].mu > ratings.MU > after[12].mu
        assert after[10].rating > 1500 > after[12].rating
        assert all(skill.sigma < ratings.SIGMA for skill in after.values())

    def test_players_who_share_a_place_change_alike(self) -> None:
        after = ratings.rate_race({}, {1: 1, 2: 2, 3: 2, 4: 4})
        assert after[2] == after[3]
        assert after[1].mu > after[2].mu > after[4].mu

    def test_the_same_inputs_give_the_same_floats(self) -> None:
        before = {1: Skill(27.5, 6.1), 2: Skill(22.0, 7.9), 3: NEW}
        first = ratings.rate_race(before, {1: 2, 2: 1, 3: 3})
        again = ratings.rate_race(dict(before), {3: 3, 2: 1, 1: 2})
        assert first == again

    def test_an_upset_moves_more_than_the_expected_result(self) -> None:
        strong, weak = Skill(35.0, 4.0), Skill(20.0, 4.0)
        expected = ratings.rate_race({1: strong, 2: weak}, {1: 1, 2: 2})
        upset = ratings.rate_race({1: strong, 2: weak}, {1: 2, 2: 1})
        assert strong.mu - upset[1].mu > expected[1].mu - strong.mu > 0

    def test_a_game_needs_two_sides(self) -> None:
        with pytest.raises(ValueError, match="two sides"):
            ratings.rate_race({}, {1: 1})
        with pytest.raises(ValueError, match="two sides"):
            ratings.rate([NEW, NEW], [1])

    def test_about_ten_races_leave_provisional(self) -> None:
        skill = NEW
        races = 0
        while skill.provisional:
            # one race of four, finishing in the middle each time
            after = ratings.rate_race({1: skill}, {1: 2, 2: 1, 3: 3, 4: 4})
            skill = after[1]
            races += 1
        assert 8 <= races <= 20

    def test_solo_win_raises_the_player_and_lowers_the_deal(self) -> None:
        player, deal = ratings.rate_solo(NEW, Skill(30.0, 5.0), won=True)
        assert player.mu > ratings.MU and deal.mu < 30.0
        player, deal = ratings.rate_solo(NEW, Skill(30.0, 5.0), won=False)
        assert player.mu < ratings.MU and deal.mu > 30.0


class TestPools:
    def test_default_options_are_filled_in(self) -> None:
        assert ratings.pool_options("klondike", {}) == ratings.pool_options(
            "klondike", {"passes": 0}
        )
        assert ratings.pool_options("klondike", {"passes": 3}) == '{"passes":3}'

    def test_bad_options_are_refused(self) -> None:
        with pytest.raises(ValueError):
            ratings.pool_options("klondike", {"passes": "many"})
        with pytest.raises(ValueError):
            ratings.pool_options("no-such-game", {})
