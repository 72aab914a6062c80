"""The solver at the server's service: one pool of worker processes, and what runs in it.

The solver (engine.solver) is CPU-bound and can search for seconds, so it never runs
on the event loop: ``SolverPool`` hands pure top-level functions to a few spawned
worker processes, and every function carries its own time and node budget, so a
request waits a bounded time. The functions take plain data (variant, options, seed,
actions) because that is what crosses the process boundary cheaply, and a game
record is exactly that.

A verdict is ``winnable`` only with a solution in hand, ``lost`` only when the
solver's search was exhaustive, and ``unknown`` when the budget ran out.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import secrets
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, TypeVar

import engine
from engine.hints import hint_move, position_key
from engine.moves import Move
from engine.position import Position
from engine.rules import Rules
from engine.solver import Verdict, solve
from server.services.lifeline import end_with_parent, spawning_deaf_to_ctrl_c

SEED_LIMIT = 2**64
# Time a busy or just-spawned pool may add to a search before the server stops waiting.
POOL_GRACE_SECONDS = 5.0
T = TypeVar("T")


class SolverPool:
    """The server's solver workers: spawned on first use, shut down with the server."""

    def __init__(self, workers: int = 1) -> None:
        self.workers = max(1, workers)
        self._executor: ProcessPoolExecutor | None = None
        self.closed = False  # the server is stopping: no new workers, no new searches

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in a worker process; the event loop keeps serving.

        Raises:
            BrokenProcessPool: the pool was closed (the server is stopping), or a worker
                died; every caller takes it as "no answer".
        """
        if self.closed:
            raise BrokenProcessPool("the solver pool is closed: the server is stopping")
        loop = asyncio.get_running_loop()
        # The pool starts multiprocessing's resource tracker when it is made, and spawns
        # its workers as tasks come: both inside (server/services/lifeline.py).
        with spawning_deaf_to_ctrl_c():
            if self._executor is None:
                # spawn, not fork: a forked child would inherit the event loop and sockets.
                # Each worker ends with the server, even a killed one.
                context = multiprocessing.get_context("spawn")
                self._executor = ProcessPoolExecutor(
                    self.workers, mp_context=context, initializer=end_with_parent
                )
            answer = loop.run_in_executor(self._executor, function, *args)
        return await answer

    def close(self) -> None:
        """Stop the workers at once; searches queued or running are dropped.

        Nobody waits for their answers any more. ``shutdown(wait=False)`` alone asks each
        worker to finish, but can leave the executor's thread and a worker waiting on each
        other when the interpreter exits (CPython gh-83386; seen here as a server process
        that took until its front killed it to exit after Ctrl-C), so the workers are also
        terminated, which Python 3.14's ``terminate_workers()`` does. A search asked
        after this fails at once instead of spawning a new pool.
        """
        self.closed = True
        if self._executor is not None:
            workers = list(self._executor._processes.values())
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
            for worker in workers:
                if worker.is_alive():
                    worker.terminate()


# The compiled searches (engine/solver/native/) look at a million positions a second
# and more, so the server's budgets are set in seconds; this cap on positions only
# bounds a runaway search (the searches' own 1 GiB memory cap answers unknown first).
MAX_NODES = 100_000_000


@dataclass(frozen=True, slots=True)
class Budget:
    """How hard one search may try: positions and seconds, whichever runs out first."""

    max_nodes: int = MAX_NODES
    max_seconds: float = 1.0


@dataclass(frozen=True, slots=True)
class DealProof:
    """What the solver said about one deal."""

    seed: int
    winnable: bool
    solution_length: int
    nodes: int
    seconds: float


# ---------------------------------------------------------------- worker functions


def prove_deal(variant: str, options: Mapping[str, Any], seed: int, budget: Budget) -> DealProof:
    """Whether the solver finds a win from the deal of ``seed``; only a solution proves it."""
    rules = engine.rules_for(variant, options)
    result = solve(rules, rules.deal(seed), budget.max_nodes, budget.max_seconds)
    won = result.verdict is Verdict.WON
    return DealProof(seed, won, len(result.moves) if won else 0, result.nodes, result.seconds)


def find_winnable_seed(
    variant: str, options: Mapping[str, Any], max_tries: int, max_seconds: float, budget: Budget
) -> DealProof:
    """Draw seeds (``secrets``) until the solver proves one winnable, within bounds.

    At most ``max_tries`` seeds and about ``max_seconds`` in all (each search gets
    what is left of it). When none is proven, the last drawn seed comes back
    unproven: the race still gets a fair, unpredictable deal.
    """
    deadline = time.monotonic() + max_seconds
    proof = DealProof(secrets.randbelow(SEED_LIMIT), False, 0, 0, 0.0)
    for _ in range(max(1, max_tries)):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        seed = secrets.randbelow(SEED_LIMIT)
        proof = prove_deal(
            variant, options, seed, Budget(budget.max_nodes, min(budget.max_seconds, left))
        )
        if proof.winnable:
            break
    return proof


def _line_of_play(
    variant: str, options: Mapping[str, Any], seed: int, actions: list[str]
) -> tuple[engine.Game, list[Any]]:
    """The replayed game and its positions along the line of play (deal first).

    Undone moves are not on the line: position k is the one after the k-th move
    still standing.
    """
    game = engine.replay(variant, seed, options, actions)
    positions = [game.start]
    for move in game.moves:
        positions.append(game.rules.apply(positions[-1], move))
    return game, positions


def winnability(
    variant: str, options: Mapping[str, Any], seed: int, actions: list[str], budget: Budget
) -> str:
    """``winnable``, ``lost`` or ``unknown`` for the position a game record reaches."""
    game = engine.replay(variant, seed, options, actions)
    result = solve(game.rules, game.position, budget.max_nodes, budget.max_seconds)
    return _word(result.verdict)


def _word(verdict: Verdict) -> str:
    if verdict is Verdict.WON:
        return "winnable"
    if verdict is Verdict.UNWINNABLE:
        return "lost"
    return "unknown"


def last_winnable(
    variant: str, options: Mapping[str, Any], seed: int, actions: list[str], budget: Budget
) -> int | None:
    """How many moves of the line of play to keep to stand on a proven-winnable position.

    Winnability only falls along a line of play (a move never makes a lost position
    winnable again), so bisection finds the last winnable position with about
    log2(moves) searches. A position the budget leaves unknown counts as not
    proven, so the answer is always a position with a known win. None when not
    even the deal is proven winnable.
    """
    game, positions = _line_of_play(variant, options, seed, actions)

    def won(index: int) -> bool:
        result = solve(game.rules, positions[index], budget.max_nodes, budget.max_seconds)
        return result.verdict is Verdict.WON

    if not won(0):
        return None
    low, high = 0, len(positions)  # positions[low] is proven winnable; high is past it
    while high - low > 1:
        middle = (low + high) // 2
        if won(middle):
            low = middle
        else:
            high = middle
    return low


def winning_line(
    variant: str, options: Mapping[str, Any], seed: int, actions: list[str], budget: Budget
) -> list[str] | None:
    """The moves of a win from where the game stands, in canonical notation.

    None when the solver finds no win within the budget.
    """
    game = engine.replay(variant, seed, options, actions)
    result = solve(game.rules, game.position, budget.max_nodes, budget.max_seconds)
    if result.verdict is not Verdict.WON:
        return None
    return [str(move.notation()) for move in result.moves]


def hint_line(
    variant: str,
    options: Mapping[str, Any],
    seed: int,
    actions: list[str],
    budget: Budget,
    from_deal: bool = False,
) -> list[str] | None:
    """A whole line of play from the deal to a win for hints to follow, through where
    the game stands: the game keeps it and hints its moves while the player follows it
    (``GameSession.solver_hint``). In canonical notation; None when the solver finds
    no win in time.

    ``from_deal`` (a game hinted before that has no line: rebuilt from its record
    since): the deal's own win is searched first and kept when the game has followed it
    so far. The search is deterministic, so a game rebuilt mid-way gets back the very
    line it was following, whatever its last move was.

    Else the moves standing in the record, then a win from where the game stands that
    does not begin by taking the last move back (``_goes_back``: from the position a
    player's own move left, the solver's way often begins by going back; then the wins
    after each other first move are searched, ``_win_not_going_back``). No line ever
    returns to a position it passed (``without_detours``).
    """
    game = engine.replay(variant, seed, options, actions)
    rules, played = game.rules, game.moves
    if from_deal and played:
        dealt = solve(rules, game.start, budget.max_nodes, budget.max_seconds)
        if dealt.verdict is Verdict.WON:
            line = without_detours(rules, game.start, list(dealt.moves))
            if line[: len(played)] == played and len(line) > len(played):
                return [move.notation() for move in line]
    position = game.position
    result = solve(rules, position, budget.max_nodes, budget.max_seconds)
    if result.verdict is not Verdict.WON:
        return None
    win: list[Move] | None = without_detours(rules, position, list(result.moves))
    history = game.line()
    if history and win and _goes_back(rules, history[-1], position, win[0]):
        # What the first search left of two budgets (it mostly takes a fraction of one).
        left = Budget(2 * budget.max_nodes - result.nodes, 2 * budget.max_seconds - result.seconds)
        first = hint_move(rules, position, history)
        win = _win_not_going_back(rules, history[-1], position, win, first, left)
    if win is None:
        return None
    return [move.notation() for move in (*played, *win)]


def without_detours(rules: Rules, position: Position, win: list[Move]) -> list[Move]:
    """``win`` without detours back to a position it passed.

    The solver's wins can hold one (a card from a foundation onto a column and straight
    home again); cut out, the win stays a win, and no move of the line then takes back
    the one before it.
    """
    positions = [position]
    moves: list[Move] = []
    where = {_exact(position): 0}
    for move in win:
        after = rules.apply(positions[-1], move)
        back = where.get(_exact(after))
        if back is not None:  # a detour: drop it, and the positions it passed
            for dropped in positions[back + 1 :]:
                where.pop(_exact(dropped), None)
            del positions[back + 1 :], moves[back:]
            continue
        positions.append(after)
        moves.append(move)
        where[_exact(after)] = len(moves)
    return moves


def _exact(position: Position) -> Position:
    """The position without the counters a detour changes (moves, score, the fan)."""
    return position._replace(fan=0, moves=0, score=0)


def _goes_back(rules: Rules, last: tuple[Position, Move], position: Position, move: Move) -> bool:
    """Whether ``move`` takes back ``last`` (the position before it and the move): it
    brings back that position, or the same with the columns in another order.

    Cards carried back onto a card turned up meanwhile (a Spider classic) do not: the
    table has moved on.
    """
    before, _ = last
    return position_key(rules, rules.apply(position, move)) == position_key(rules, before)


def _win_not_going_back(
    rules: Rules,
    last: tuple[Position, Move],
    position: Position,
    win: list[Move],
    hinted: Move | None,
    budget: Budget,
) -> list[Move] | None:
    """A win from ``position`` whose first move does not take ``last`` back.

    First moves are tried in turn: the second move of ``win`` (it often needs nothing
    the first one did), the engine's hint (``hinted``: a move that gets somewhere),
    then every other legal move in the engine's order. Each search gets half of what
    is left of ``budget`` (the last one all of it): a winnable first move is usually
    found by the first searches, and they get the most time.
    """
    firsts = [m for m in rules.legal_moves(position) if not _goes_back(rules, last, position, m)]
    for preferred in (hinted, win[1] if len(win) > 1 else None):
        if preferred in firsts:
            firsts.remove(preferred)
            firsts.insert(0, preferred)
    deadline = time.monotonic() + budget.max_seconds
    nodes = budget.max_nodes
    for tried, first in enumerate(firsts):
        left = deadline - time.monotonic()
        if left <= 0 or nodes <= 0:
            break
        share = 1 if tried == len(firsts) - 1 else 2
        after = rules.apply(position, first)
        result = solve(rules, after, max(1, nodes // share), left / share)
        nodes -= result.nodes
        if result.verdict is Verdict.WON:
            # Straightened, a win can lose its first move (a detour out and back).
            win = without_detours(rules, position, [first, *result.moves])
            if win and not _goes_back(rules, last, position, win[0]):
                return win
    return None


# ---------------------------------------------------------------- on the event loop


async def winnable_race_seed(
    pool: SolverPool, variant: str, options: Mapping[str, Any], seconds: float
) -> tuple[int, bool]:
    """A seed for a race the server deals, and whether the solver proved it winnable.

    The search runs in the pool for about ``seconds``; should the pool not answer in
    time (all workers busy), the race gets a fresh unproven seed rather than waiting.
    """
    budget = Budget(max_seconds=min(1.0, seconds))
    search = pool.run(find_winnable_seed, variant, dict(options), 1000, seconds, budget)
    try:
        proof = await asyncio.wait_for(search, seconds + POOL_GRACE_SECONDS)
    except (TimeoutError, BrokenProcessPool):
        return secrets.randbelow(SEED_LIMIT), False
    return proof.seed, proof.winnable


class SolverHelp:
    """The solver's help in a game, asked from the event loop: hint, check, jump back,
    and the winning line a practice game's replay is shown beside.

    Each question replays the game's record in a worker with a budget of ``seconds``
    per search; when the pool does not answer in time the answer is "don't know"
    (no hint, ``unknown``, no move to go back to), never a wait without end.
    """

    def __init__(self, pool: SolverPool, seconds: float) -> None:
        self.pool = pool
        self.budget = Budget(max_seconds=seconds)

    async def _ask(
        self, function: Callable[..., T], game: engine.Game, searches: int, *more: Any
    ) -> T | None:
        record = (game.variant, game.options, game.seed, list(game.actions), self.budget, *more)
        wait = self.budget.max_seconds * searches + POOL_GRACE_SECONDS
        try:
            return await asyncio.wait_for(self.pool.run(function, *record), wait)
        except (TimeoutError, BrokenProcessPool):
            return None

    async def hint_line(self, game: engine.Game, from_deal: bool) -> list[str] | None:
        """A line of play through where ``game`` stands to a win, for hints to follow
        (``hint_line``), if the solver finds one."""
        return await self._ask(hint_line, game, 3, from_deal)

    async def winning_line(self, game: engine.Game) -> list[str] | None:
        """Every move of a win from where ``game`` stands, if the solver finds one."""
        return await self._ask(winning_line, game, 1)

    async def verdict(self, game: engine.Game) -> str:
        """``winnable``, ``lost`` or ``unknown`` for where ``game`` stands."""
        return await self._ask(winnability, game, 1) or "unknown"

    async def last_winnable(self, game: engine.Game) -> int | None:
        """How many moves of ``game``'s line of play lead to its last proven-winnable position."""
        searches = 2 + max(1, len(game.moves)).bit_length()
        return await self._ask(last_winnable, game, searches)
