"""Cards, the variant registry, the Game API, the player's view and the position text
reader (rules.md "Cards"; design.md "engine/"; docs/positions.md)."""

from __future__ import annotations

import random

import pytest
from engine_tables import table, table_text

from engine import (
    VARIANTS,
    Card,
    IllegalMoveError,
    Move,
    Outcome,
    Termination,
    new_game,
    parse_card,
    replay,
    rules_for,
)
from engine.cards import CARDS
from engine.moves import DRAW
from engine.position_text import game_from_text, game_text, parse_position


class TestCards:
    # rules.md "Cards": 52 cards; hearts and diamonds red, spades and clubs black;
    # ranks A, 2-10, J, Q, K (German Ass, Bube, Dame, König).
    def test_52_cards_in_four_suits_of_thirteen_ranks(self):
        assert len({str(c) for c in CARDS}) == 52
        assert sorted(c.rank for c in CARDS) == sorted(list(range(1, 14)) * 4)

    @pytest.mark.parametrize(("text", "red"), [("9h", True), ("9d", True), ("9s", False)])
    def test_hearts_and_diamonds_are_red_spades_and_clubs_black(self, text, red):
        card = parse_card(text)
        assert card is not None and card.red is red
        assert parse_card("9c") is not None and not parse_card("9c").red

    @pytest.mark.parametrize(
        ("text", "code"),
        [
            ("9h", "9h"),
            ("9♥", "9h"),
            ("♥9", "9h"),
            ("10d", "10d"),
            ("Td", "10d"),
            ("K♠", "Ks"),
            ("Bh", "Jh"),  # Bube
            ("D♣", "Qc"),  # Dame
            ("A♦", "Ad"),
            ("Q♡", "Qh"),
        ],
    )
    def test_a_card_is_read_as_people_write_it(self, text, code):
        assert str(parse_card(text)) == code

    @pytest.mark.parametrize("text", ["", "9", "h", "1h", "14s", "Xh", "9x"])
    def test_a_non_card_reads_as_none(self, text):
        assert parse_card(text) is None

    def test_a_card_shows_its_suit_first_as_the_seeds_do(self):
        card = parse_card("9s")
        assert card is not None and card.symbol == "♠9" and repr(card) == "Card('9s')"
        assert isinstance(card, Card) and isinstance(card, int)


class TestRegistry:
    def test_every_variant_is_found_by_its_name(self):
        assert list(VARIANTS) == [
            "klondike",
            "klondike-3",
            "spider-1",
            "spider-2",
            "spider-4",
            "yukon",
            "russian",
            "alaska",
        ]
        for name in VARIANTS:
            assert rules_for(name).name == name
            assert new_game(name, 1).variant == name

    @pytest.mark.parametrize(
        ("variant", "options", "message"),
        [
            ("nope", {}, "unknown variant 'nope'"),
            ("klondike", {"passes": -1}, "option passes must be 0"),
            ("klondike", {"passes": "2"}, "must be int"),
            ("klondike", {"passes": True}, "must be int"),
            ("klondike", {"layout": "digital"}, "klondike has no option layout"),
            ("spider-1", {"layout": "wide"}, "option layout must be one of seed, digital"),
            ("yukon", {"passes": 1}, "yukon has no option passes"),
        ],
    )
    def test_an_unknown_variant_or_a_bad_option_is_refused(self, variant, options, message):
        with pytest.raises(ValueError, match=message):
            new_game(variant, 1, options)

    def test_options_have_defaults_and_travel_with_the_game(self):
        assert new_game("klondike", 1).options == {"passes": 0}
        assert new_game("spider-4", 1).options == {"layout": "seed"}
        assert new_game("klondike-3", 1, {"passes": 3}).view()["options"] == {"passes": 3}


class TestGame:
    def test_an_illegal_move_changes_nothing(self):
        game = new_game("klondike", 3)
        before = game.position
        with pytest.raises(IllegalMoveError):
            game.play(Move(6, 2, 1))
        assert game.position is before and game.actions == [] and game.moves == []

    def test_undo_without_a_move_says_so(self):
        with pytest.raises(IllegalMoveError) as error:
            new_game("yukon", 3).undo()
        assert error.value.en == "There is no move to take back."
        assert error.value.de == "Es gibt keinen Zug zum Zurücknehmen."

    def test_actions_record_canonical_moves_undos_and_hints(self):
        game = new_game("klondike", 3)
        game.play("draw")
        game.hint()
        game.undo()
        game.play("6 f")
        assert game.actions == ["d", "hint", "undo", "6>f"]
        assert game.moves == [Move.from_notation("6>f")]

    def test_replay_refuses_an_action_that_is_not_legal_or_not_canonical(self):
        with pytest.raises(IllegalMoveError):
            replay("klondike", 3, None, ["7>3"])
        with pytest.raises(ValueError, match="canonical"):
            replay("klondike", 3, None, ["7 3"])
        with pytest.raises(IllegalMoveError):
            replay("klondike", 3, None, ["undo"])

    def test_legal_moves_support_in_bool_and_count(self):
        game = new_game("klondike", 3)
        legal = game.legal_moves
        assert DRAW in legal and bool(legal)
        assert legal.count() == len(legal) == len(list(legal)) == 4

    def test_a_copy_without_the_stack_keeps_only_the_position(self):
        game = new_game("klondike", 3)
        game.play("d")
        search = game.copy(stack=False)
        assert search.position == game.position and search.moves == []
        with pytest.raises(IllegalMoveError):
            search.undo()
        full = game.copy()
        full.undo()
        assert game.position.moves == 1 and full.position == new_game("klondike", 3).position

    def test_the_outcome_is_data(self):
        assert Outcome(Termination.WON).won
        assert not Outcome(Termination.NO_MOVES).won
        assert new_game("spider-4", 3).outcome is None


class TestView:
    # design.md: the view never holds a face-down card or the stock; legal moves are
    # listed by source so a client can light up targets without knowing the rules.
    def test_columns_show_only_their_face_up_cards_and_the_stock_only_its_size(self):
        game = new_game("klondike-3", 3)
        game.play("d")
        view = game.view()
        assert view["tableau"][6] == {"down": 6, "up": ["8s"]}
        assert view["stock"] == 21
        assert view["waste"] == {"count": 3, "visible": ["9c", "3s", "9d"]}
        assert view["legal_moves"] == {"1": ["1>f", "1>3"], "6": ["6>f"], "d": ["d"]}
        assert view["counters"] == {"moves": 1, "undos": 0, "hints": 0, "score": 0}
        assert view["deal_code"] == "3" and view["seed"] == 3

    def test_spider_shows_runs_removed_and_deals_left(self):
        view = new_game("spider-2", 3).view()
        assert view["runs_removed"] == 0 and view["deals_left"] == 6
        assert view["waste"] is None and view["foundations"] == []

    def test_a_written_position_has_no_seed(self):
        view = table("yukon", {1: "*"}).view()
        assert view["seed"] is None and view["deal_code"] is None

    @pytest.mark.parametrize("variant", sorted(VARIANTS))
    def test_a_view_is_the_replayed_games_view_and_shares_nothing(self, variant):
        # Along random play (undo included) a view equals the view of the same game
        # replayed from its record, and no two views share a pile's entry, so a caller
        # changing one view could not change another.
        rng = random.Random(variant)
        game = new_game(variant, 11)
        last = game.view()
        for _ in range(150):
            moves = game.legal_list()
            if game.outcome is not None or not moves:
                break
            if game.actions and rng.random() < 0.1:
                game.undo()
            else:
                game.play(rng.choice(moves).notation())
            view = game.view()
            assert view == replay(variant, 11, game.options, game.actions).view()
            shared = [a for a, b in zip(view["tableau"], last["tableau"], strict=True) if a is b]
            assert not shared
            last = view


class TestPositionText:
    # docs/positions.md: a text form of any position that round-trips exactly.
    def test_the_text_of_a_deal_reads_back_to_it(self):
        game = new_game("klondike-3", 9, {"passes": 3})
        text = game_text(game)
        assert text.splitlines()[0] == "klondike-3 passes=3"
        assert game_from_text(text).position == game.position

    @pytest.mark.parametrize(
        ("change", "message"),
        [
            (lambda t: "\n".join(t.splitlines()[:4]), "a position needs"),
            (lambda t: t.replace("moves=0 ", ""), "moves, score, redeals and fan"),
            (lambda t: t.replace("stock:", "stack:"), "expected a line starting with 'stock:'"),
            (lambda t: t + "\n8: | Kd", "has 7 columns"),
            (lambda t: t.replace("7: | Kd", "7: | Kd Kd"), "not exactly the deck"),
            (lambda t: t.replace("7: | Kd", "7: | Kx"), "'Kx' is not a card"),
            (lambda t: t.replace("7: | Kd", "7: Kd |"), "a column's top card is always face up"),
            (lambda t: t.replace("7: | Kd", "7: Kd"), "needs a '|'"),
            (lambda t: t.replace("klondike", "solitaire"), "unknown variant"),
        ],
    )
    def test_a_malformed_text_is_refused(self, change, message):
        text = table_text("klondike", {7: "Kd"}, stock="*")
        assert game_from_text(text).position.tableau[6] == (parse_card("Kd"),)
        with pytest.raises(ValueError, match=message):
            parse_position(change(text))
