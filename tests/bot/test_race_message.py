"""The race message: the server's race state and events, shown with the server's places.

The events come from the server's own race core (server/core/race.py), the way the
server makes them, so these tests hold the bot to what the server really sends.
"""

from __future__ import annotations

import discord
import msgspec
from discord_fakes import FakeChannel, FakeInteraction, FakeUser
from discord_rules import utf16_units

import engine
from bot.race_messages import Herald
from bot.races import RaceState, live_places, render_race
from bot.result_card import result_png, share_grid
from server import protocol as p
from server.core.race import Race, RaceSettings


class Feed:
    """A race in the server's core and the bot's state of it, fed the core's events."""

    def __init__(self, start_mode: str = "manual", time_limit_ms: int | None = None) -> None:
        self.core = Race(
            race_id=7,
            creator_id=1,
            settings=RaceSettings(
                variant="klondike",
                options={},
                start_mode=start_mode,
                countdown_ms=0,
                time_limit_ms=time_limit_ms,
            ),
            seed=4242,
            salt="cd",
        )
        self.seq = 0
        for player, name in ((1, "Ann"), (2, "Bob"), (3, "Cy")):
            self.core.join(player, name, f"guest:{player}", game_id=player)
        self.core.start(1, now=1_000)
        self.state = RaceState(self.core.info(seq=0, viewer=None))

    def send(self, events: list[p.RaceEvent], now: int) -> None:
        for body in events:
            self.seq += 1
            assert self.state.apply(p.Event(race=7, seq=self.seq, time=now, event=body))

    def move(self, player: int, foundation: int, moves: int, now: int) -> None:
        self.send(
            self.core.progress(
                player, foundation=foundation, moves=moves, score=0, won=False, now=now
            ),
            now,
        )

    def lines(self) -> list[str]:
        return [line for line in render_race(self.state, "en").splitlines() if ". " in line]


class TestLivePlaces:
    def test_a_player_who_did_not_move_is_shown_in_the_place_the_server_gives(self) -> None:
        feed = Feed()
        feed.move(1, foundation=3, moves=5, now=2_000)
        assert feed.lines()[0].startswith("🥇1. Ann: 3 cards home")
        feed.move(3, foundation=4, moves=9, now=3_000)  # Cy passes Ann; only Cy moved
        assert feed.lines() == [
            "🥇1. Cy: 4 cards home, 9 moves",
            "🥈2. Ann: 3 cards home, 5 moves",
            "🥉3. Bob: 0 cards home, 0 moves",
        ]

    def test_a_resigned_player_keeps_the_place_the_server_ranks_them_in(self) -> None:
        feed = Feed()
        feed.move(2, foundation=9, moves=40, now=2_000)
        feed.move(1, foundation=5, moves=20, now=2_100)
        feed.send(feed.core.resign(2, now=2_500), now=2_500)
        # The server ranks the unfinished by cards home, resigned or not: Bob stays first.
        assert feed.lines()[:2] == [
            "🥇1. Bob: 9 cards home, 40 moves · resigned",
            "🥈2. Ann: 5 cards home, 20 moves",
        ]

    def test_a_winner_leads_from_the_progress_sent_with_the_finish(self) -> None:
        feed = Feed()
        feed.move(3, foundation=30, moves=80, now=2_000)
        won = feed.core.progress(1, foundation=52, moves=120, score=0, won=True, now=61_000)
        feed.send(won, now=61_000)
        assert feed.lines()[:2] == [
            "🥇1. Ann: 52 cards home, 120 moves · won in 1:00",
            "🥈2. Cy: 30 cards home, 80 moves",
        ]

    def test_a_player_joining_a_running_race_has_no_place_until_the_server_gives_one(
        self,
    ) -> None:
        feed = Feed(start_mode="now")
        feed.move(2, foundation=1, moves=2, now=2_000)
        feed.send(feed.core.join(4, "Dee", "guest:4", game_id=4), now=2_100)
        assert feed.lines()[-1] == "–. Dee: 0 cards home, 0 moves"
        feed.move(1, foundation=2, moves=3, now=2_200)
        assert [place for place, _ in live_places(feed.state.info)] == [1, 2, 3, 4]

    def test_an_event_stored_before_places_existed_shows_no_places(self) -> None:
        feed = Feed()
        feed.move(1, foundation=3, moves=5, now=2_000)
        old = p.ProgressEvent(standings=[p.Standing(player=2, name="Bob", foundation=6)])
        feed.send([old], now=2_500)
        assert all(line.startswith("–. ") for line in feed.lines())


class TestRaceState:
    def test_the_final_ranking_and_seed_are_the_servers(self) -> None:
        feed = Feed(time_limit_ms=60_000)
        feed.move(2, foundation=7, moves=30, now=2_000)
        feed.send(feed.core.tick(now=61_000), now=61_000)
        text = render_race(feed.state, "en")
        assert "Race over: time is up." in text
        assert feed.lines()[0] == "🥇1. Bob: 7 cards home, 30 moves"
        assert f"Deal **{engine.deal_code(4242)}**" in text and "seed 4242," in text
        assert feed.state.state == "finished" and feed.state.info.order is None

    def test_old_news_changes_nothing(self) -> None:
        feed = Feed()
        feed.move(1, foundation=3, moves=5, now=2_000)
        before = feed.state.info
        again = p.Event(race=7, seq=feed.seq, time=0, event=p.CountdownEvent(starts_at=1))
        assert not feed.state.apply(again)
        assert feed.state.info == before

    def test_the_state_reads_the_protocols_structs(self) -> None:
        feed = Feed()
        feed.move(3, foundation=2, moves=4, now=2_000)
        info = feed.core.info(seq=feed.seq, viewer=None)
        typed = RaceState(info)
        events = feed.core.progress(1, foundation=5, moves=9, score=0, won=False, now=3_000)
        event = p.Event(race=7, seq=feed.seq + 1, time=3_000, event=events[0])
        assert typed.apply(event) and typed.seq == feed.seq + 1
        assert [s.foundation for s in typed.info.players if s.player == 1] == [5]
        assert (typed.start_mode, typed.allow_undo, typed.allow_hints) == ("manual", True, False)


def test_an_unranked_race_says_so_in_every_state() -> None:
    """A chosen deal or the solver's help: lobby, standings and results all say unranked."""
    settings = p.RaceSettings(
        variant="klondike",
        options={},
        max_players=4,
        start="now",
        countdown_s=0,
        time_limit_s=None,
        allow_undo=True,
        allow_hints=False,
        ranked=False,
    )
    for state in ("lobby", "running", "finished"):
        info = p.RaceInfo(
            race=3,
            state=state,
            seq=1,
            creator=1,
            settings=settings,
            commitment="ab" * 32,
            players=[],
            ranking=[] if state == "finished" else None,
        )
        assert "unranked" in render_race(RaceState(info), "en")
        assert "ohne Wertung" in render_race(RaceState(info), "de")
    ranked = p.RaceInfo(
        race=3,
        state="lobby",
        seq=1,
        creator=1,
        settings=msgspec.structs.replace(settings, ranked=True),
        commitment="ab" * 32,
        players=[],
    )
    assert "unranked" not in render_race(RaceState(ranked), "en")


def crowded_race(state: str) -> RaceState:
    """A 25-player German race of long names with markdown in them, everyone far along."""
    settings = p.RaceSettings(
        variant="spider-4",
        options={},
        max_players=25,
        start="manual",
        countdown_s=0,
        time_limit_s=3600,
        allow_undo=True,
        allow_hints=False,
    )
    names = [f"Größenwahnsinnige_*Ölfüßler*_Nr{n:02}" for n in range(25)]
    players = [
        p.Standing(player=n, name=name, foundation=96, moves=1234, finished=True, time_ms=3_599_000)
        for n, name in enumerate(names)
    ]
    ranking = [p.Ranked(rank=n + 1, **msgspec.structs.asdict(s)) for n, s in enumerate(players)]
    over = state == "finished"
    info = p.RaceInfo(
        race=123456,
        state=state,
        seq=9,
        creator=0,
        settings=settings,
        commitment="ab" * 32,
        players=players,
        starts_at=1_000,
        ends_at=3_601_000,
        order=None if over else [s.player for s in players],
        ranking=ranking if over else None,
        seed=str(2**64 - 1) if over else None,
    )
    return RaceState(info)


def test_crowded_standings_fit_discord_and_keep_the_deal_line() -> None:
    for state in ("running", "finished"):
        text = render_race(crowded_race(state), "de")
        assert utf16_units(text) <= 2000, (state, utf16_units(text))
        lines = text.splitlines()
        assert lines[0] == "**Rennen #123456: Spider · 4 Farben**"
        cut = [line for line in lines if line.startswith("… und ")]
        assert len(cut) == 1 and cut[0].endswith("weitere")
        shown = [line for line in lines if "Ölfüßler" in line]
        assert int(cut[0].split()[2]) == 25 - len(shown)  # every player shown or counted
        if state == "finished":
            code = engine.deal_code(2**64 - 1)
            assert lines[-1].startswith(f"Spiel **{code}**")  # whole, and last
            assert f"Seed {2**64 - 1}," in lines[-1]


def test_short_standings_are_not_cut() -> None:
    feed = Feed()
    assert not any(line.startswith("…") for line in render_race(feed.state, "en").splitlines())


async def test_the_start_mention_goes_through_the_channel_once_the_interaction_is_old() -> None:
    """An interaction's followup works for 15 minutes; a start later than that (a lobby
    left open) is posted in the channel itself."""
    now = [0.0]
    allowed = discord.Permissions(view_channel=True, send_messages=True)
    channel = FakeChannel(permissions=allowed)
    interaction = FakeInteraction(None, FakeUser(1, "Ann"), channel=channel)
    await interaction.response.defer()
    herald = Herald(interaction, clock=lambda: now[0])
    fresh = await herald("🏁 <@1>", None)
    assert interaction.calls == ["defer", "followup.send"] and not fresh.ephemeral
    now[0] = 15 * 60.0
    late = await herald("🏁 <@1>", None)
    assert interaction.calls == ["defer", "followup.send"]  # not the expired webhook
    assert channel.messages[late.id] is late and late.allowed_mentions is not None
    assert late.allowed_mentions.users and not late.allowed_mentions.roles


def test_the_share_grid_shows_cards_home_and_nothing_of_the_cards() -> None:
    """Ten squares a racer: 52 home is all green, 31 of 52 is five green and one part
    (5.96 tenths), none home all black; the picture is a PNG of the same standings."""
    settings = p.RaceSettings(
        variant="klondike",
        options={},
        max_players=8,
        start="manual",
        countdown_s=10,
        time_limit_s=None,
        allow_undo=True,
        allow_hints=False,
    )
    ranking = [
        p.Ranked(
            player=1, name="Ann", foundation=52, moves=99, finished=True, time_ms=60_000, rank=1
        ),
        p.Ranked(player=2, name="Bo", foundation=31, moves=80, rank=2),
        p.Ranked(player=3, name="Cy", foundation=0, moves=3, resigned=True, rank=3),
    ]
    info = p.RaceInfo(
        race=5,
        state="finished",
        seq=3,
        creator=1,
        settings=settings,
        commitment="ab",
        players=[],
        seed="43",
        ranking=ranking,
    )
    race = RaceState(info)
    grid = share_grid(race, "de").splitlines()
    assert grid == [
        "Solitaire Arena · Rennen #5 · Klondike · 1 Karte ziehen · Spiel 1B",
        "🥇 " + "🟩" * 10,
        "🥈 " + "🟩" * 5 + "🟨" + "⬛" * 4,
        "🥉 " + "⬛" * 10,
    ]
    assert result_png(race, "de").startswith(b"\x89PNG")


def test_a_lobby_left_idle_says_it_closed_and_shows_no_ranking() -> None:
    """The server ends a lobby nobody joined or left for its idle time (``expired``):
    the race message says nobody started it, with no standings, and the deal."""
    core = Race(
        race_id=8,
        creator_id=1,
        settings=RaceSettings(variant="klondike", options={}),
        seed=99,
        salt="ab",
    )
    core.open(now=1_000)
    core.join(1, "Ann", "guest:1", game_id=1, now=2_000)
    state = RaceState(core.info(seq=0, viewer=None))
    assert core.deadline() == 2_000 + core.lobby_idle_ms
    assert core.tick(now=1_000 + core.lobby_idle_ms) == []  # idle time counts from the join
    [end] = core.tick(now=2_000 + core.lobby_idle_ms)
    assert isinstance(end, p.EndEvent) and end.reason == "expired" and end.ranking == []
    assert state.apply(p.Event(race=8, seq=1, time=2_000 + core.lobby_idle_ms, event=end))
    shown = render_race(state, "en")
    assert "Nobody started this race" in shown and "🥇" not in shown
    assert f"Deal **{engine.deal_code(99)}**" in shown
