"""Leaderboards, statistics, race history and replays: the server's read side.

Daily boards rank a day's ranked attempts at a variant's deal: wins first, then
less time, then fewer moves; equal results share a rank, and every attempt not won
shares the place after the last win. The order lives in two generated columns of
``daily_entries`` (sql/0020_daily.sql) so that a page, a rank and "around me" are
each one range of the index ``daily_entries_board`` (or ``…_board_guild`` for one
guild). Practice attempts (not the player's first) are a separate board.

All-time figures per player and variant count ranked daily attempts that are over
and finished races; practice games count for nothing. A daily streak is a run of
consecutive UTC days with a won ranked daily of that variant; the current streak
is the run that ends today or yesterday (today's deal may still be unplayed).

The queries behind these are the store's (server/store/boards.py); the days are the
calendar's (server/core/calendar.py). Here are the rules: which board a request
names, pages, streaks, and who may see a replay when.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import date, timedelta

import engine
from server import protocol as p
from server.core.calendar import closes_at_ms, day_of, moment_iso, parse_day
from server.core.identity import Principal
from server.protocol.errors import DailyError, GameError, NotFoundError
from server.services.all_time import AllTimeBoards
from server.services.daily import check_variant
from server.services.solving import SolverHelp
from server.store.boards import BoardStore, ReplayGame
from server.store.daily_board import Board

SOLUTIONS_KEPT = 1024


def streaks(won_days: Sequence[date], today: date) -> tuple[int, int]:
    """(current, longest) run of consecutive days in ``won_days`` (any order, repeats ok).

    The current run must end today or yesterday: a streak is not broken before the
    day on which it could no longer be continued has begun.
    """
    days = sorted(set(won_days))
    longest = run = 0
    previous: date | None = None
    for day in days:
        run = run + 1 if previous is not None and day - previous == timedelta(days=1) else 1
        longest = max(longest, run)
        previous = day
    current = run if previous is not None and today - previous <= timedelta(days=1) else 0
    return current, longest


class Leaderboard:
    """Reads for boards, statistics, history and replays."""

    def __init__(
        self,
        store: BoardStore,
        clock: Callable[[], int],
        time_limit_ms: int,
        solver_help: SolverHelp | None = None,
    ) -> None:
        """``solver_help`` finds practice replays' winning lines (None: boards only)."""
        self.store = store
        self.clock = clock
        self.time_limit_ms = time_limit_ms
        self.solver_help = solver_help
        # The solver's win per practice deal (variant, options, seed), so stepping
        # through a replay (one request a step) searches once; bounded, cleared when full.
        # No win found is not kept: it may be a busy solver's, and the next ask may find one.
        self.solutions: dict[tuple[str, str, int], list[str]] = {}
        self.all_time_boards = AllTimeBoards(self.store, clock)

    def _board(
        self, variant: str, text: str | None, guild_id: str | None, ranked: bool = True
    ) -> Board:
        check_variant(variant)
        return Board(
            variant,
            parse_day(text, self.clock()),
            guild_id,
            ranked,
        )

    # ------------------------------------------------------------ daily boards

    async def page(self, board: Board, page: int, page_size: int) -> tuple[int, list[p.BoardLine]]:
        """The board's total and its ``page`` (from 1) of ``page_size`` lines."""
        return await self.store.lines(board, page_size, (page - 1) * page_size)

    async def around(
        self, board: Board, player_id: int, span: int
    ) -> tuple[int, p.BoardLine | None, list[p.BoardLine]]:
        """The board's total, the player's line, and ``span`` lines above and below it."""
        around = await self.store.around(board, player_id, span)
        return around.total, around.me, around.lines

    async def daily_board(self, who: Principal, message: p.DailyBoard) -> p.BoardReply:
        """Reply to daily_board."""
        board = self._board(message.variant, message.date, message.guild_id, message.ranked)
        total, lines = await self.page(board, message.page, message.page_size)
        return p.BoardReply(
            id=message.id,
            variant=board.variant,
            date=board.day.isoformat(),
            scope="global" if board.guild_id is None else "guild",
            ranked=board.ranked,
            total=total,
            lines=lines,
            page=message.page,
            page_size=message.page_size,
        )

    async def daily_around(self, who: Principal, message: p.DailyAround) -> p.BoardReply:
        """Reply to daily_around."""
        board = self._board(message.variant, message.date, message.guild_id)
        total, me, lines = await self.around(board, who.player_id, message.span)
        return p.BoardReply(
            id=message.id,
            variant=board.variant,
            date=board.day.isoformat(),
            scope="global" if board.guild_id is None else "guild",
            ranked=True,
            total=total,
            lines=lines,
            me=me,
        )

    # ------------------------------------------------------------ all-time figures

    async def stats(self, player_id: int, variant: str | None = None) -> list[p.VariantStats]:
        """A player's all-time figures per variant, with daily streaks (UTC days)."""
        figures = await self.store.figures(player_id, variant)
        today = day_of(self.clock())
        stats = []
        for totals in figures.totals:
            current, longest = streaks(figures.won_days.get(totals.variant, []), today)
            stats.append(
                p.VariantStats(
                    variant=totals.variant,
                    games=totals.games,
                    wins=totals.wins,
                    win_rate=round(totals.wins / totals.games, 4),
                    best_time_ms=totals.best_time_ms,
                    fewest_moves=totals.fewest_moves,
                    average_win_time_ms=totals.average_win_time_ms,
                    current_streak=current,
                    longest_streak=longest,
                )
            )
        return stats

    async def player_stats(self, who: Principal, message: p.PlayerStats) -> p.StatsReply:
        """Reply to player_stats."""
        player_id = who.player_id if message.player is None else message.player
        name = await self.store.player_name(player_id)
        if name is None:
            raise NotFoundError(what="player", ref=player_id)
        figures = await self.stats(player_id, message.variant)
        return p.StatsReply(id=message.id, player=player_id, name=name, variants=figures)

    # ------------------------------------------------------------ all-time boards

    async def all_time(self, who: Principal, message: p.AllTimeBoard) -> p.AllTimeReply:
        """Reply to leaderboard: a variant's all-time board (server/services/all_time.py)."""
        return await self.all_time_boards.reply(who.player_id, message)

    # ------------------------------------------------------------ races

    async def race_history(self, who: Principal, message: p.RaceHistory) -> p.RaceHistoryReply:
        """Reply to race_history: the player's finished races, newest first."""
        player_id = who.player_id if message.player is None else message.player
        races = await self.store.race_history(player_id, message.limit, message.before)
        return p.RaceHistoryReply(id=message.id, player=player_id, races=races)

    async def race_result(self, who: Principal, message: p.RaceResult) -> p.RaceResultReply:
        """Reply to race_result: a finished race's ranking, seed and salt.

        Raises:
            NotFoundError: no such race.
            DailyError: ``race_not_finished``.
        """
        race = await self.store.race(message.race)
        if race is None:
            raise NotFoundError(what="race", ref=message.race)
        if race.state != "finished":
            raise DailyError("race_not_finished", race=message.race)
        results = await self.store.race_results(message.race)
        ranking = [
            p.Ranked(
                rank=line.rank or 0,
                player=line.player_id,
                name=line.name,
                foundation=line.foundation,
                moves=line.moves,
                score=line.score,
                finished=line.finished,
                resigned=line.resigned,
                time_ms=line.time_ms,
            )
            for line in results
        ]
        return p.RaceResultReply(
            id=message.id,
            race=race.race_id,
            variant=race.variant,
            options=race.options,
            ended_at=race.ended_at,
            end_reason=race.end_reason,
            commitment=race.commitment,
            seed=str(race.seed),
            salt=race.salt,
            ranking=ranking,
            games={str(line.player_id): line.game_id for line in results},
        )

    # ------------------------------------------------------------ replays

    async def replay(self, who: Principal, message: p.GetReplay) -> p.ReplayReply:
        """Reply to replay: a finished game's record, and its view after ``step`` actions.

        Only once nobody can be spoiled by it: a race once finished, a practice game
        once it is over, a daily attempt once its day is closed, or before that once
        both it and the asker's own ranked attempt at that deal are over (another's
        moves would give the deal away to someone who may still play it for the board).
        Before its day closes a daily record leaves out the seed, which would show the
        face-down cards; the views at each ``step`` show only what the player saw.
        A practice game's record carries the solver's winning line from the deal.

        Raises:
            NotFoundError: no such game.
            DailyError: ``deal_live`` while the game or its deal is still being played;
                ``attempt_not_over`` for a daily attempt before its day closes while
                the asker's own ranked attempt is not over.
            GameError: ``invalid_options`` for a step outside the game.
        """
        game = await self.store.replay_game(message.game)
        if game is None:
            raise NotFoundError(what="game", ref=message.game)
        sealed = False
        if game.day is not None:
            closes = closes_at_ms(game.day, self.time_limit_ms)
            sealed = self.clock() < closes
            if sealed:
                await self._check_daily_spoiler(who, game, closes)
        elif game.race_id is not None:
            if game.race_state != "finished":
                raise DailyError("deal_live", game=message.game)
        elif game.status == "playing":
            raise DailyError("deal_live", game=message.game)
        actions = await self.store.actions(message.game)
        view = None
        if message.step is not None:
            if not 0 <= message.step <= len(actions):
                raise GameError(
                    "invalid_options",
                    reason=f"step must be from 0 to {len(actions)}.",
                )
            played = engine.replay(game.variant, game.seed, game.options, actions[: message.step])
            shown = played.view()
            if sealed:  # the deal's number would show the face-down cards
                del shown["seed"], shown["deal_code"]
            view = p.wire_view(shown)
        return p.ReplayReply(
            id=message.id,
            game=game.game_id,
            player=game.player_id,
            name=game.name,
            variant=game.variant,
            options=game.options,
            seed=None if sealed else str(game.seed),
            status=game.status,
            actions=actions,
            race=game.race_id,
            date=None if game.day is None else game.day.isoformat(),
            step=message.step,
            view=view,
            solution=await self._solution(game),
        )

    async def _check_daily_spoiler(self, who: Principal, game: ReplayGame, closes: int) -> None:
        """Before its day closes, a daily attempt is replayed only for a player whose own
        ranked attempt at the deal is over, and only once the attempt itself is over.

        Raises:
            DailyError: ``attempt_not_over`` or ``deal_live``.
        """
        assert game.day is not None
        now = self.clock()
        mine = await self.store.ranked_attempt(who.player_id, game.variant, game.day)
        if mine is None or not mine.daily_over(now):
            raise DailyError("attempt_not_over", opens_at=moment_iso(closes), game=game.game_id)
        if not game.daily_over(now):
            raise DailyError("deal_live", opens_at=moment_iso(closes), game=game.game_id)

    async def _solution(self, game: ReplayGame) -> list[str] | None:
        """For a practice game (no race, no daily), the solver's win from its deal."""
        if game.race_id is not None or game.day is not None or self.solver_help is None:
            return None
        key = (game.variant, json.dumps(game.options, sort_keys=True), game.seed)
        line = self.solutions.get(key)
        if line is None:
            deal = engine.replay(game.variant, game.seed, game.options, [])
            line = await self.solver_help.winning_line(deal)
            if line is not None:
                if len(self.solutions) >= SOLUTIONS_KEPT:
                    self.solutions.clear()
                self.solutions[key] = line
        return line
