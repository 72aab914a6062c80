"""A deal's difficulty from the solver's work (server/core/deals.py), without a database."""

from __future__ import annotations

import pytest

import engine
from server.core import deals
from server.core.ratings import MU, Skill


class TestEstimate:
    def test_more_search_is_harder_and_undecided_is_hardest(self) -> None:
        easy = deals.estimate("winnable", 30)
        harder = deals.estimate("winnable", 3000)
        assert deals.LOW <= easy < harder <= deals.HIGH
        assert deals.estimate("lost", 10) == deals.estimate("unknown", 10) == deals.UNDECIDED
        assert deals.estimate("winnable", 10**9) == deals.HIGH
        assert deals.estimate("winnable", 0) == deals.LOW

    def test_the_first_rating_follows_the_expected_win_share(self) -> None:
        shares = [deals.expected_win_share(e) for e in (1.25, 1.5, 2.0, 3.0, deals.UNDECIDED)]
        assert shares == sorted(shares, reverse=True)
        assert shares[0] == pytest.approx(0.9)
        for estimate in (1.3, 1.8, 2.6, deals.UNDECIDED):
            first = deals.prior(estimate)
            assert deals.win_chance(first) == pytest.approx(deals.expected_win_share(estimate))
            assert first.sigma == deals.PRIOR_SIGMA

    def test_bands_split_at_the_documented_chances(self) -> None:
        assert deals.band(Skill(MU, 1.0)) == "easy"  # an even deal: 50%
        assert deals.band(deals.prior(deals.UNDECIDED)) == "hard"
        for band in deals.BANDS:
            low, high = deals.mu_range(band)
            inside = [mu for mu in (low + 0.01, (low + high) / 2, high - 0.01) if abs(mu) < 1e6]
            assert inside and all(deals.band(Skill(mu, 1.0)) == band for mu in inside)
        _, easy_top = deals.mu_range("easy")
        assert deals.win_chance(Skill(easy_top, 1.0)) == pytest.approx(deals.EASY_ABOVE)


class TestDraw:
    def test_a_drawn_deal_of_the_wanted_band_is_winnable_and_as_rated(self) -> None:
        drawn = deals.draw_deals("klondike", {}, "medium", max_seconds=20.0, budget=1.0)
        last = drawn[-1]
        assert last.verdict == "winnable" and deals.band(last.skill) == "medium"
        assert len({d.seed for d in drawn}) == len(drawn)
        rules = engine.rules_for("klondike")
        assert rules.deal(last.seed) is not None

    def test_closest_prefers_a_winnable_deal_nearest_the_band(self) -> None:
        nodes_for = {"easy": 20, "hard": 5000}
        drawn = [
            deals.Drawn(1, "lost", 10),
            deals.Drawn(2, "winnable", nodes_for["hard"]),
            deals.Drawn(3, "winnable", nodes_for["easy"]),
        ]
        assert deals.closest(drawn, "easy").seed == 3
        assert deals.closest(drawn, "hard").seed == 2
        assert deals.closest([deals.Drawn(9, "unknown", 0)], "easy").seed == 9
