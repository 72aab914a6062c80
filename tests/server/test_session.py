"""The server's own rules of a game (server/core/session.py), without sockets or a database."""

from __future__ import annotations

import pytest

import engine
from engine.solver import solve
from server.core.race import RaceSettings
from server.core.session import GameSession, MoveRow, check_game_settings
from server.protocol.errors import GameError, IdentityError, RaceError

NOW = 1_773_490_500_000


def session(**fields: object) -> GameSession:
    settings = {
        "game_id": 7,
        "race_id": None,
        "player_id": 1,
        "game": engine.new_game("klondike", seed=5),
        "status": "playing",
        "seed_public": False,
        "move_ids": {},
        "started_at": NOW,
    }
    settings.update(fields)
    return GameSession(**settings)  # type: ignore[arg-type]


def race(**fields: object) -> RaceSettings:
    return RaceSettings(variant="klondike", options={}, **fields)  # type: ignore[arg-type]


class TestWhoAndWhen:
    def test_only_the_owner_may_touch_a_game(self) -> None:
        game = session()
        game.check_owner(1)
        with pytest.raises(IdentityError) as refused:
            game.check_owner(2)
        assert refused.value.code == "forbidden"

    def test_a_game_over_or_out_of_time_takes_no_change(self) -> None:
        game = session(play_until=NOW + 1000)
        game.check_change(NOW + 1000)
        with pytest.raises(GameError, match="time") as late:
            game.check_change(NOW + 1001)
        assert late.value.code == "time_up"
        game.status = "won"
        with pytest.raises(GameError) as over:
            game.check_change(NOW)
        assert over.value.code == "game_over"

    def test_an_acknowledged_move_id_is_answered_not_played_again(self) -> None:
        game = session()
        before = game.seq
        game.play("d", None)
        rows = game.logged_since(before, "m-1")
        game.acknowledged(rows, "m-1", NOW, game.won)
        assert game.answered("m-1")
        assert not game.answered("m-2")
        assert not game.answered(None)


class TestWhatARaceAllows:
    def test_undo_follows_the_race_setting(self) -> None:
        game = session()
        game.play("d", None)
        with pytest.raises(RaceError) as refused:
            game.undo(race(allow_undo=False))
        assert refused.value.code == "undo_disabled"
        assert game.undo(race(allow_undo=True)) == ["undo"]
        with pytest.raises(GameError) as nothing:
            game.undo(None)
        assert nothing.value.code == "nothing_to_undo"

    def test_undo_typed_as_a_move_is_an_undo_with_the_same_permission(self) -> None:
        game = session()
        game.play("d", None)
        with pytest.raises(RaceError):
            game.play("undo", race(allow_undo=False))
        assert game.play("undo", None) == ["undo"]

    def test_the_solver_helps_in_practice_and_helped_races_never_in_a_daily(self) -> None:
        assert session().solver_may_help(None)
        assert not session(sealed_until=NOW).solver_may_help(None)  # a daily attempt
        assert session().solver_may_help(race(solver_help=True))
        assert not session().solver_may_help(race())


class TestTheSeed:
    def test_a_practice_seed_shows_once_the_game_is_over(self) -> None:
        game = session()
        assert not game.reveals_seed(NOW, None)
        game.status = "resigned"
        assert game.reveals_seed(NOW, None)

    def test_a_race_seed_shows_once_the_race_is_over(self) -> None:
        game = session(status="won")
        assert not game.reveals_seed(NOW, False)
        assert game.reveals_seed(NOW, True)

    def test_a_daily_seed_stays_sealed_until_its_day_closes(self) -> None:
        game = session(status="won", sealed_until=NOW + 1)
        assert not game.reveals_seed(NOW, None)
        assert game.reveals_seed(NOW + 1, None)

    def test_the_view_leaves_out_what_would_give_the_deal_away(self) -> None:
        game = session()
        hidden = game.view(reveal_seed=False)
        assert "seed" not in hidden and "deal_code" not in hidden  # type: ignore[operator]
        shown = game.view(reveal_seed=True)
        assert shown["seed"] == 5  # type: ignore[index]
        assert session(seed_public=True).view(reveal_seed=False)["seed"] == 5  # type: ignore[index]


class TestTheLog:
    def test_rows_number_on_from_the_log_and_the_last_carries_the_move_id(self) -> None:
        game = session()
        game.play("d", None)
        before = game.seq
        game.play("d", None)
        game.play("d", None)
        assert game.logged_since(before, "m-9") == [
            MoveRow(7, 1, "d", None),
            MoveRow(7, 2, "d", "m-9"),
        ]

    def test_jump_back_undoes_down_to_the_moves_kept(self) -> None:
        game = session()
        for _ in range(4):
            game.play("d", None)
        assert game.jump_back(1) == ["undo", "undo", "undo"]
        assert len(game.game.moves) == 1

    def test_a_win_becomes_a_won_game_once_acknowledged(self) -> None:
        game = session(game=engine.new_game("yukon", seed=3))
        with pytest.raises(GameError) as refused:
            game.finish()
        assert refused.value.code == "cannot_finish"
        line = solve(game.game.rules, game.game.position, max_seconds=30).moves
        assert line, "the solver wins Yukon seed 3"
        for move in line[:-1]:
            game.play(move.notation(), None)
        assert not game.won
        before = game.seq
        game.play(line[-1].notation(), None)
        assert game.won and game.status == "playing"  # nothing is won before its commit
        game.acknowledged(game.logged_since(before, None), None, NOW + 5, game.won)
        assert (game.status, game.finished_at) == ("won", NOW + 5)
        assert game.view(reveal_seed=False)["finished_at"] == NOW + 5  # type: ignore[index]


def test_game_settings_are_checked_before_anything_is_stored() -> None:
    check_game_settings("klondike", {}, 0)
    for variant, options, seed in [
        ("poker", {}, None),
        ("klondike", {}, 2**64),
        ("klondike", {}, -1),
        ("klondike", {"passes": "many"}, None),
    ]:
        with pytest.raises(GameError) as refused:
            check_game_settings(variant, options, seed)
        assert refused.value.code == "invalid_options"


class TestTheSolversLine:
    """Hints with the solver's help follow one line of play to a win (issue 37)."""

    def line(self, game: GameSession) -> list[str]:
        won = solve(game.game.rules, game.game.position)
        return [move.notation() for move in (*game.game.moves, *won.moves)]

    def test_hints_follow_the_kept_line_to_the_win(self) -> None:
        game = session(game=engine.new_game("yukon", seed=1))
        line = self.line(game)
        game.keep_solver_line(line)
        for expected in line:
            assert game.hint(True) == (expected, "solver")
            game.play(expected, None)
        assert game.won and game.game.hints == len(line)

    def test_an_undo_along_the_line_still_follows_it(self) -> None:
        game = session(game=engine.new_game("yukon", seed=1))
        line = self.line(game)
        game.keep_solver_line(line)
        game.play(line[0], None)
        game.play(line[1], None)
        game.undo(None)
        assert game.solver_hint() == line[1]

    def test_a_move_off_the_line_leaves_it(self) -> None:
        game = session(game=engine.new_game("yukon", seed=1))
        line = self.line(game)
        game.keep_solver_line(line)
        other = next(m for m in game.game.legal_moves if m.notation() != line[0])
        game.play(other.notation(), None)
        assert game.solver_hint() is None
        move, source = game.hint(True)  # the engine's, until the caller asks the solver
        assert source == "engine" and move == game.game.suggestion().notation()  # type: ignore[union-attr]

    def test_without_solver_help_the_line_is_not_used(self) -> None:
        game = session(game=engine.new_game("yukon", seed=1))
        game.keep_solver_line(self.line(game))
        assert game.hint(False)[1] == "engine"

    def test_a_game_rebuilt_from_its_record_has_no_line(self) -> None:
        game = session(game=engine.new_game("yukon", seed=1))
        game.keep_solver_line(self.line(game))
        rebuilt = session(game=engine.replay("yukon", 1, {}, game.game.actions))
        assert rebuilt.solver_line is None and rebuilt.solver_hint() is None
