"""Properties of arena pairing and scoring, without a database: random arenas played out.

Pairing never seats anyone twice at once, races hold 2 to ``race_size`` players, a lone
waiter waits, and every score is the documented rule (docs/arena.md, "Scoring") over the
player's races in the order they were paired.
"""

from __future__ import annotations

from arena_cases import START, running
from hypothesis import given, settings, strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from server.core.arena_rules import RaceLine, Seat, group_sizes, score_seat
from server.core.arena_values import Paired, Paused, Status, Withdrawn
from server.protocol.errors import TournamentError


@given(waiting=st.integers(0, 300), race_size=st.integers(2, 8))
def test_group_sizes_cover_everyone_in_even_races_of_two_to_the_size(
    waiting: int, race_size: int
) -> None:
    sizes = group_sizes(waiting, race_size)
    seated = waiting - waiting % 2 if race_size == 2 else waiting  # duels: the odd one waits
    if seated < 2:
        assert sizes == []
        return
    assert sum(sizes) == seated
    assert all(2 <= size <= race_size for size in sizes)
    assert max(sizes) - min(sizes) <= 1
    assert len(sizes) == -(-seated // race_size)


def reference_score(ranks: list[tuple[int, int, int]]) -> tuple[int, int]:
    """The documented rule, folded over (rank, racers, moves) in order: score, streak."""
    score = streak = 0
    for rank, racers, moves in ranks:
        if moves == 0:
            streak = 0
            continue
        won = rank == 1 and racers >= 2
        score += (racers - rank) * (2 if streak >= 2 else 1)
        streak = streak + 1 if won else 0
    return score, streak


race_outcome = st.integers(2, 8).flatmap(
    lambda n: st.tuples(st.integers(1, n), st.just(n), st.integers(0, 3))
)


@given(st.lists(race_outcome, max_size=30))
def test_scores_follow_the_documented_rule(outcomes: list[tuple[int, int, int]]) -> None:
    score = streak = 0
    for pairing, (rank, racers, moves) in enumerate(outcomes):
        seat = Seat(pairing, 0, pairing, True, rank=rank, racers=racers, moves=moves)
        points, _, won = score_seat(seat, streak)
        score += points
        streak = streak + 1 if won else 0
    assert (score, streak) == reference_score(outcomes)


class ArenaMachine(RuleBasedStateMachine):
    """Random joins, pauses, leaves, pairing rounds, races created or not, players done
    and races ended: the pairing never seats anyone twice, races are 2–8, a lone waiter
    waits, and every score is the documented rule over the player's races in order."""

    @initialize(race_size=st.integers(2, 8), players=st.integers(0, 12))
    def start(self, race_size: int, players: int) -> None:
        self.arena = running(players, race_size=race_size)
        self.now = START
        self.next_player = players + 1
        self.next_race = 1
        self.races: dict[int, list[int]] = {}  # open race → players
        self.pending: dict[int, Paired] = {}
        self.outcomes: dict[int, dict[int, tuple[int, int, int]]] = {}  # race → player → …
        self.race_order: dict[int, list[int]] = {}  # player → races in pairing order

    @rule(rating=st.integers(800, 2500))
    def join(self, rating: int) -> None:
        player = self.next_player
        self.next_player += 1
        self.arena.join(player, f"P{player}", rating, self.now)

    @precondition(lambda self: self.arena.players)
    @rule(data=st.data())
    def rejoin_or_pause_or_leave(self, data: st.DataObject) -> None:
        player = data.draw(st.sampled_from(sorted(self.arena.players)))
        action = data.draw(st.sampled_from(["join", "pause", "leave"]))
        try:
            if action == "join":
                self.arena.join(player, "again", 1500, self.now)
            elif action == "pause":
                self.arena.pause(player, self.now)
            else:
                for decision in self.arena.leave(player, self.now):
                    assert isinstance(decision, Withdrawn | Paused)
        except TournamentError as err:
            assert err.code == "arena_joined"

    @rule()
    def pairing_round(self) -> None:
        waiting = [p for p in self.arena.players.values() if p.status is Status.WAITING]
        order = sorted(waiting, key=lambda p: (-p.score, -p.rating, p.joined_at, p.player_id))
        pairings = self.arena.pair(self.now)
        seated = [player for pairing in pairings for player in pairing.players]
        assert len(seated) == len(set(seated))
        assert seated == [p.player_id for p in order][: len(seated)]
        size = self.arena.settings.race_size
        if len(waiting) >= 2:
            # Everyone, but the odd player out of races of two (the last in order).
            assert len(seated) == len(waiting) - (len(waiting) % 2 if size == 2 else 0)
        else:
            assert pairings == []  # a lone waiter waits
        for pairing in pairings:
            assert 2 <= len(pairing.players) <= self.arena.settings.race_size
            self.pending[pairing.pairing] = pairing

    @precondition(lambda self: self.pending)
    @rule(data=st.data(), created=st.sampled_from([True, True, True, False]))
    def race_created(self, data: st.DataObject, created: bool) -> None:
        number = data.draw(st.sampled_from(sorted(self.pending)))
        pairing = self.pending.pop(number)
        if not created:
            self.arena.unplaced(number, self.now)
            return
        race_id = self.next_race
        self.next_race += 1
        self.arena.placed(number, race_id, self.now)
        self.races[race_id] = list(pairing.players)
        for player in pairing.players:
            self.race_order.setdefault(player, []).append(race_id)

    @precondition(lambda self: self.races)
    @rule(data=st.data())
    def one_gives_up(self, data: st.DataObject) -> None:
        race_id = data.draw(st.sampled_from(sorted(self.races)))
        player = data.draw(st.sampled_from(self.races[race_id]))
        self.arena.racer_done(race_id, player, moves=1, now=self.now)

    @precondition(lambda self: self.races)
    @rule(data=st.data())
    def race_ends(self, data: st.DataObject) -> None:
        race_id = data.draw(st.sampled_from(sorted(self.races)))
        players = self.races.pop(race_id)
        order = data.draw(st.permutations(players))
        moves = data.draw(st.lists(st.integers(0, 2), min_size=len(order), max_size=len(order)))
        lines = [RaceLine(p, r, m) for r, (p, m) in enumerate(zip(order, moves, strict=True), 1)]
        # The documented rule: players with no move count after those who moved.
        moved = [line for line in lines if line.moves]
        idle = [line for line in lines if not line.moves]
        self.outcomes[race_id] = {
            line.player_id: (rank, len(lines), line.moves)
            for rank, line in enumerate(moved + idle, start=1)
        }
        self.arena.race_ended(race_id, lines, self.now)

    @rule(ms=st.integers(1, 5000))
    def time_passes(self, ms: int) -> None:
        self.now += ms
        self.arena.tick(self.now)

    @invariant()
    def nobody_is_in_two_races_at_once(self) -> None:
        for player in self.arena.players.values():
            current = [seat for seat in player.seats if not seat.done]
            if player.status in (Status.PAIRED, Status.RACING):
                assert len(current) == 1, player
            else:
                assert current == [], player
            if player.status is Status.PAIRED:
                assert current[0].race_id is None
            if player.status is Status.RACING:
                assert current[0].race_id is not None

    @invariant()
    def scores_are_the_rule_over_races_in_the_order_they_were_paired(self) -> None:
        for player in self.arena.players.values():
            outcomes: list[tuple[int, int, int]] = []
            for race_id in self.race_order.get(player.player_id, []):
                if race_id not in self.outcomes:
                    break  # a race still running holds back the later ones
                outcomes.append(self.outcomes[race_id][player.player_id])
            assert (player.score, player.streak) == reference_score(outcomes)
            assert player.races == len(outcomes)


ArenaMachine.TestCase.settings = settings(max_examples=200, stateful_step_count=50)
TestArenaMachine = ArenaMachine.TestCase
