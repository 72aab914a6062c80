"""Quick match's grouping (server/core/matchmaking.py), without a database."""

from __future__ import annotations

from server.core.matchmaking import Policy, PoolKey, Seeker, compatible, gather

RATED = PoolKey("klondike", '{"passes":0}', rated=True, difficulty=None)
CASUAL = PoolKey("klondike", '{"passes":0}', rated=False, difficulty=None)
POLICY = Policy()


def seeker(player: int, rating: int = 1500, joined_at: int = 0, pool: PoolKey = RATED) -> Seeker:
    return Seeker(player_id=player, pool=pool, rating=rating, joined_at=joined_at)


def ids(groups: list[list[Seeker]]) -> list[list[int]]:
    return [[s.player_id for s in group] for group in groups]


class TestWindow:
    def test_it_widens_as_a_player_waits(self) -> None:
        fresh = seeker(1, joined_at=0)
        assert POLICY.window_of(fresh, now=0) == 150
        assert POLICY.window_of(fresh, now=30_000) == 450

    def test_both_windows_must_cover_the_gap(self) -> None:
        patient = seeker(1, rating=1500, joined_at=0)
        newcomer = seeker(2, rating=1800, joined_at=29_000)
        # Player 1 accepts 300 points after 15 s, player 2 only 160 after 1 s.
        assert not compatible(patient, newcomer, now=30_000, policy=POLICY)
        assert compatible(patient, newcomer, now=45_000, policy=POLICY)

    def test_unrated_players_ignore_ratings_and_pools_never_mix(self) -> None:
        assert compatible(
            seeker(1, 900, pool=CASUAL), seeker(2, 2400, pool=CASUAL), now=0, policy=POLICY
        )
        assert not compatible(seeker(1, pool=CASUAL), seeker(2, pool=RATED), 0, POLICY)
        hard = PoolKey("klondike", '{"passes":0}', rated=True, difficulty="hard")
        assert not compatible(seeker(1), seeker(2, pool=hard), now=0, policy=POLICY)


class TestGather:
    def test_eight_close_players_start_at_once(self) -> None:
        waiting = [seeker(p, rating=1500 + 10 * p, joined_at=1000 + p) for p in range(1, 11)]
        (group,) = gather(waiting, now=2_000, policy=POLICY)
        assert len(group) == 8 and group[0].player_id == 1
        assert [s.player_id for s in group] == [1, 2, 3, 4, 5, 6, 7, 8]

    def test_fewer_than_eight_wait_until_the_anchor_has_waited_long_enough(self) -> None:
        waiting = [seeker(1, joined_at=0), seeker(2, joined_at=5_000), seeker(3, joined_at=6_000)]
        assert gather(waiting, now=19_999, policy=POLICY) == []
        assert ids(gather(waiting, now=20_000, policy=POLICY)) == [[1, 2, 3]]

    def test_a_lone_player_keeps_waiting(self) -> None:
        assert gather([seeker(1, joined_at=0)], now=600_000, policy=POLICY) == []

    def test_far_ratings_wait_for_their_windows(self) -> None:
        waiting = [seeker(1, rating=1200, joined_at=0), seeker(2, rating=1900, joined_at=0)]
        assert gather(waiting, now=20_000, policy=POLICY) == []  # windows 350: too narrow
        assert ids(gather(waiting, now=56_000, policy=POLICY)) == [[1, 2]]  # 710 ≥ 700

    def test_the_nearest_ratings_join_and_every_member_must_accept_the_others(self) -> None:
        waiting = [
            seeker(1, rating=1500, joined_at=0),
            seeker(2, rating=1640, joined_at=19_000),  # 140 from the anchor
            seeker(3, rating=1360, joined_at=19_000),  # 140 from the anchor, 280 from 2
            seeker(4, rating=1550, joined_at=19_000),
        ]
        (group,) = gather(waiting, now=20_000, policy=POLICY)
        assert [s.player_id for s in group] == [1, 4, 2]  # 3 is too far from 2

    def test_groups_do_not_share_players_and_pools_stay_apart(self) -> None:
        casual = [seeker(10 + p, rating=1000 * p, joined_at=0, pool=CASUAL) for p in range(1, 4)]
        rated = [seeker(p, rating=1500, joined_at=100) for p in range(1, 4)]
        groups = gather([*rated, *casual], now=20_100, policy=POLICY)
        assert sorted(ids(groups)) == [[1, 2, 3], [11, 12, 13]]

    def test_more_than_eight_make_a_full_group_and_the_rest_wait(self) -> None:
        waiting = [seeker(p, joined_at=p) for p in range(1, 12)]
        groups = gather(waiting, now=1_000, policy=POLICY)
        assert ids(groups) == [[1, 2, 3, 4, 5, 6, 7, 8]]
        later = gather(waiting[8:], now=20_100, policy=POLICY)
        assert ids(later) == [[9, 10, 11]]
