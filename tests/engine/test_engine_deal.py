"""Deals from seeds: SplitMix64 against its published vectors, the shuffle, the deal
code, and the golden deals checked in under tests/engine/golden/ (design.md "engine/")."""

from __future__ import annotations

import os
from collections import Counter

import pytest
from engine_golden import GOLDEN_CASES, GOLDEN_SEEDS, SEPARATOR, golden_path, write_golden
from hypothesis import given, strategies as st

from engine import VARIANTS, deal_code, new_game, seed_from_code
from engine.deal import SplitMix64, shuffled
from engine.position_text import parse_position

SEEDS = st.integers(min_value=0, max_value=2**64 - 1)


class TestSplitMix64:
    def test_seed_0_gives_the_published_first_outputs(self):
        # The reference splitmix64.c (Vigna), seeded with 0.
        rng = SplitMix64(0)
        assert rng.next() == 0xE220A8397B1DCDAF
        assert [rng.next() for _ in range(3)] == [
            0x6E789E6AA1B965F4,
            0x06C45D188009454F,
            0xF88BB8A8724C81EC,
        ]

    def test_seed_1234567_gives_the_published_outputs(self):
        # Rosetta Code, "Pseudo-random numbers/Splitmix64".
        rng = SplitMix64(1234567)
        assert [rng.next() for _ in range(5)] == [
            6457827717110365317,
            3203168211198807973,
            9817491932198370423,
            4593380528125082431,
            16408922859458223821,
        ]

    @pytest.mark.parametrize("seed", [-1, 2**64])
    def test_a_seed_outside_64_bits_is_refused(self, seed):
        with pytest.raises(ValueError, match="unsigned 64-bit"):
            SplitMix64(seed)
        with pytest.raises(ValueError):
            new_game("klondike", seed)

    @given(seed=SEEDS, bound=st.integers(1, 2**64))
    def test_below_stays_below_its_bound(self, seed, bound):
        rng = SplitMix64(seed)
        assert all(0 <= rng.below(bound) < bound for _ in range(5))


class TestShuffle:
    @given(seed=SEEDS)
    def test_the_shuffle_is_a_permutation_and_repeats_for_a_seed(self, seed):
        deck = list(range(52))
        once = shuffled(deck, seed)
        assert sorted(once) == deck
        assert shuffled(deck, seed) == once
        assert deck == list(range(52))

    def test_fisher_yates_from_the_last_position_down(self):
        # docs/deals.md: for i from n-1 down to 1, swap i with below(i + 1).
        rng = SplitMix64(42)
        expected = list("abcdefgh")
        for i in range(len(expected) - 1, 0, -1):
            j = rng.below(i + 1)
            expected[i], expected[j] = expected[j], expected[i]
        assert shuffled(list("abcdefgh"), 42) == expected

    def test_different_seeds_deal_differently(self):
        deals = {tuple(shuffled(range(52), seed)) for seed in range(50)}
        assert len(deals) == 50


class TestDealCode:
    @given(seed=SEEDS)
    def test_the_code_round_trips(self, seed):
        code = deal_code(seed)
        assert seed_from_code(code) == seed
        assert seed_from_code(code.lower().replace("-", " ")) == seed

    @pytest.mark.parametrize(
        ("seed", "code"),
        [(0, "0"), (42, "1A"), (2**63 + 5, "8-0000-0000-0005"), (2**64 - 1, "F-ZZZZ-ZZZZ-ZZZZ")],
    )
    def test_known_codes_in_groups_of_four(self, seed, code):
        assert deal_code(seed) == code

    def test_letters_that_look_like_digits_read_as_digits(self):
        assert seed_from_code("1o") == seed_from_code("10") == 32
        assert seed_from_code("iL") == seed_from_code("11") == 33

    @pytest.mark.parametrize("code", ["", "U", "1-2-3!", "G-0000-0000-0000"])
    def test_a_bad_code_is_refused(self, code):
        with pytest.raises(ValueError):
            seed_from_code(code)

    def test_the_view_shows_the_deal_code(self):
        assert new_game("yukon", 42).view()["deal_code"] == "1A"


@pytest.fixture(scope="module")
def golden_files():
    """The golden files, written afresh first when REGENERATE_GOLDEN=1."""
    if os.environ.get("REGENERATE_GOLDEN") == "1":
        write_golden()


class TestGoldenDeals:
    """For seeds 0, 1, 2, 42, 2**63+5, 2**64-1 the dealt layout of every variant is
    checked in, so a change of the deal algorithm cannot go unnoticed. To change the
    deal on purpose: REGENERATE_GOLDEN=1, then review the diff of tests/engine/golden/."""

    def test_every_variant_has_a_golden_file(self):
        assert {variant for _, variant, _ in GOLDEN_CASES} == set(VARIANTS)

    @pytest.mark.parametrize(("name", "variant", "options"), GOLDEN_CASES)
    def test_the_deal_matches_its_golden_file(self, golden_files, name, variant, options):
        blocks = golden_path(name).read_text(encoding="utf-8").strip().split(SEPARATOR)
        assert len(blocks) == len(GOLDEN_SEEDS)
        for seed, block in zip(GOLDEN_SEEDS, blocks, strict=True):
            header, text = block.split("\n", 1)
            assert header == f"# seed {seed} code {deal_code(seed)}"
            rules, pos = parse_position(text)
            game = new_game(variant, seed, options)
            assert (rules.name, rules.options) == (variant, game.rules.options)
            assert pos == game.position, f"{variant} seed {seed} no longer deals as before"

    def test_klondike_deals_the_same_for_draw_one_and_draw_three(self):
        for seed in GOLDEN_SEEDS:
            one, three = new_game("klondike", seed), new_game("klondike-3", seed)
            assert one.position == three.position

    def test_spider_difficulties_shuffle_their_own_decks(self):
        counts = {v: Counter(new_game(v, 0).position.cards()) for v in VARIANTS if "spider" in v}
        assert len({frozenset(c.items()) for c in counts.values()}) == 3
