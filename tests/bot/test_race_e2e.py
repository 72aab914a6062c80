"""A real race through the bot's command layer and server client against a real server.

Two simulated Discord users: Alice (English) opens a race in a channel, Bernd
(German) joins from the channel message; Alice starts it; both open their boards
from the channel message. Bernd plays a move with the buttons and resigns; Alice
plays a winning line by tapping sources and targets. The channel message ends
with the ranking and the revealed seed.
"""

from __future__ import annotations

from collections import Counter

from discord.app_commands import Choice
from discord_fakes import Bot, FakeChannel, FakeInteraction, FakeMessage, FakeUser, press, until
from press_line import play_line

import engine
from bot.cog import SolitaireCog

ALICE = FakeUser(501, "Alice")
OPEN_START = Choice(name="Open start (join any time)", value="now")
COUNTDOWN = Choice(name="Countdown", value="countdown")
BERND = FakeUser(502, "Bernd", locale="de")


def winning_line(variant: str) -> tuple[int, list[str]]:
    """A deal and the moves that win it, found by following the engine's hints (the
    test's oracle; the bot itself knows no rule)."""
    for seed in range(200):
        game = engine.new_game(variant, seed=seed)
        line: list[str] = []
        for _ in range(500):
            if game.can_finish:
                return seed, [*line, "finish"]
            hint = game.hint()
            if hint is None:
                break
            line.append(game.play(hint).notation())
    raise AssertionError("no deal won by hints")


async def test_two_users_race_to_a_finish(bot: Bot) -> None:
    seed, line = winning_line("klondike")
    channel = FakeChannel()

    def command(user: FakeUser) -> FakeInteraction:
        return FakeInteraction(bot.fake, user, channel=channel)

    opening = command(ALICE)
    await SolitaireCog.race.callback(  # type: ignore[arg-type]
        bot.cog,
        opening,
        variant=Choice(name="Klondike", value="klondike"),
        countdown=0,
        hints=True,
        deal=engine.deal_code(seed),
    )
    assert opening.response.deferred == {"ephemeral": False, "thinking": True}
    [lobby] = opening.sent
    assert not lobby.ephemeral
    assert "Alice" in lobby.content and lobby.labels() == ["Join", "Leave", "Start"]

    joined = await press(bot.fake, BERND, lobby, "Join", channel=channel)
    # A silent update: the lobby shows Bernd; no line of its own for the press.
    assert joined.calls == ["defer"] and joined.sent == []
    await until(lambda: "Alice, Bernd" in lobby.content, "Bernd shown in the lobby")

    refused = await press(bot.fake, BERND, lobby, "Start", channel=channel)
    assert refused.sent[0].ephemeral
    assert "Nur wer das Rennen erstellt hat" in refused.sent[0].content

    await press(bot.fake, ALICE, lobby, "Start", channel=channel)
    await until(lambda: lobby.labels() == ["Open my board", "Watch"], "the race runs")
    assert "Racing!" in lobby.content

    boards: dict[str, FakeMessage] = {}
    for user in (ALICE, BERND):
        opened = await press(bot.fake, user, lobby, "Open my board", channel=channel)
        [boards[user.name]] = opened.sent
        assert boards[user.name].ephemeral
    assert "Draw" in boards["Alice"].labels() and "Ziehen" in boards["Bernd"].labels()

    await press(bot.fake, BERND, boards["Bernd"], "Ziehen")
    assert "Züge 1" in boards["Bernd"].content
    await press(bot.fake, BERND, boards["Bernd"], "Aufgeben")
    assert "Wirklich aufgeben?" in boards["Bernd"].content
    await press(bot.fake, BERND, boards["Bernd"], "Aufgeben")
    assert "aufgegeben" in boards["Bernd"].content and not boards["Bernd"].items()

    alice = boards["Alice"]
    for move in line:
        if move == "finish":
            await press(bot.fake, ALICE, alice, "Finish")
        else:
            await play_line(bot.fake, ALICE, alice, (move,), Counter())
        assert "⚠️" not in alice.content, (move, alice.content)
    assert "Won!" in alice.content and alice.labels() == ["Share"]  # nothing else to tap

    await until(lambda: "Race over." in lobby.content, "the final ranking")
    ranking = [line for line in lobby.content.splitlines() if line.startswith(("🥇", "🥈"))]
    assert ranking[0].startswith("🥇1. Alice: 52 cards home") and "won in" in ranking[0]
    assert ranking[1].startswith("🥈2. Bernd") and ranking[1].endswith("resigned")
    code = engine.deal_code(seed)
    assert f"Deal **{code}**" in lobby.content and f"seed {seed}," in lobby.content
    assert lobby.labels() == ["Play this deal", "Rematch", "Share"]
    assert bot.desk.races == {}  # the race is over: the desk forgot it

    # Share: Alice's result to copy, the deal code and place, no card in it.
    shared = await press(bot.fake, ALICE, lobby, "Share", channel=channel)
    [line] = shared.sent
    assert line.ephemeral and "```" in line.content
    assert f"race #1 · Klondike · draw 1 · deal {code} · place 1 of 2 · won in" in line.content
    assert not any(mark in line.content for mark in "♠♣♡♢♥♦")
    # Bernd, in German, shares his place too.
    shared = await press(bot.fake, BERND, lobby, "Share", channel=channel)
    assert "Platz 2 von 2 · aufgegeben" in shared.sent[0].content

    # Play this deal: a practice game of the same deal, its code on the board.
    played = await press(bot.fake, BERND, lobby, "Play this deal", channel=channel)
    [practice] = played.sent
    assert practice.ephemeral and f"Spiel {code}" in practice.content
    assert "Ziehen" in practice.enabled()

    # Alice's won board shares too, spoiler-free.
    await press(bot.fake, ALICE, alice, "Share")
    assert "race #1" in alice.content.lower() and "won in" in alice.content


async def test_leaving_a_running_race_asks_first_and_its_creator_stays_in_the_lobby(
    bot: Bot,
) -> None:
    """An open-start race runs from its creation: one tap on Leave on the public message
    would resign, so it asks privately first. In a lobby its creator alone cannot leave
    (nobody else could start it); with another player there the creator leaves, and
    that player starts the race."""
    channel = FakeChannel()
    opening = FakeInteraction(bot.fake, ALICE, channel=channel)
    await SolitaireCog.race.callback(  # type: ignore[arg-type]
        bot.cog, opening, variant=Choice(name="Klondike", value="klondike")
    )
    [lobby] = opening.sent
    stays = await press(bot.fake, ALICE, lobby, "Leave", channel=channel)
    assert "only you can start it" in stays.sent[0].content and stays.sent[0].ephemeral
    assert "Alice" in lobby.content
    await press(bot.fake, BERND, lobby, "Join", channel=channel)
    await until(lambda: "Bernd" in lobby.content, "Bernd in the lobby")
    await press(bot.fake, ALICE, lobby, "Leave", channel=channel)
    await until(lambda: "Alice" not in lobby.content, "Alice gone")
    await press(bot.fake, BERND, lobby, "Start", channel=channel)
    await until(lambda: "Open my board" in lobby.labels(), "Bernd started it")

    opening = FakeInteraction(bot.fake, ALICE, channel=channel)
    await SolitaireCog.race.callback(  # type: ignore[arg-type]
        bot.cog, opening, variant=Choice(name="Klondike", value="klondike"), start=OPEN_START
    )
    [running] = opening.sent
    await press(bot.fake, BERND, running, "Join", channel=channel)
    await until(lambda: "Bernd" in running.content, "Bernd racing")
    asked = await press(bot.fake, BERND, running, "Leave", channel=channel)
    [question] = asked.sent
    assert question.ephemeral and "gibt sein Spiel auf" in question.content
    assert question.labels() == ["Verlassen und aufgeben"]
    assert "aufgegeben" not in running.content and "resigned" not in running.content
    await press(bot.fake, BERND, question, "Verlassen und aufgeben", channel=channel)
    await until(lambda: "resigned" in running.content, "Bernd resigned")


async def test_boards_open_in_the_countdown_go_live_at_the_start_and_racers_are_mentioned(
    bot: Bot,
) -> None:
    channel = FakeChannel()
    opening = FakeInteraction(bot.fake, ALICE, channel=channel)
    await SolitaireCog.race.callback(  # type: ignore[arg-type]
        bot.cog, opening, variant=Choice(name="Yukon", value="yukon"), countdown=2
    )
    [lobby] = opening.sent
    await press(bot.fake, BERND, lobby, "Join", channel=channel)
    await press(bot.fake, ALICE, lobby, "Start", channel=channel)
    await until(lambda: "Open my board" in lobby.labels(), "the countdown offers boards")
    assert lobby.labels() == ["Join", "Leave", "Open my board", "Watch"]

    boards: dict[str, FakeMessage] = {}
    for user in (ALICE, BERND):
        opened = await press(bot.fake, user, lobby, "Open my board", channel=channel)
        [boards[user.name]] = opened.sent
    for board in boards.values():
        # Face down until the start: the board's shape, no card, nothing to tap yet.
        assert not any(mark in board.content for mark in "♠♣♡♢")
        assert not board.enabled_piles()
    assert "The race starts <t:" in boards["Alice"].content
    assert "Das Rennen startet <t:" in boards["Bernd"].content

    # The start: both boards turn live by themselves, and the racers are mentioned.
    for board in boards.values():
        await until(
            lambda b=board: any(pile.isdigit() for pile in b.enabled_piles()),
            "a live board",
        )
        assert any(mark in board.content for mark in "♠♣♡♢")
    await until(lambda: bot.desk.mentions == 1, "the start's mention")
    [mention] = [m for m in channel.messages.values() if m is not lobby and "🏁" in m.content]
    assert f"<@{ALICE.id}>" in mention.content and f"<@{BERND.id}>" in mention.content
    assert mention.allowed_mentions is not None
    assert mention.allowed_mentions.users and not mention.allowed_mentions.everyone
    assert mention.labels() == ["Open my board"]
    # Its button opens the board again; it does not take the mention for the race message.
    again = await press(bot.fake, BERND, mention, "Open my board", channel=channel)
    assert again.sent[0].ephemeral and "⚠️" not in again.sent[0].content
    assert bot.desk.races[1].message is not mention

    # Both resign: the race ends; Rematch opens a new race with the same settings.
    for user, board, resign in (
        (ALICE, boards["Alice"], "Resign"),
        (BERND, boards["Bernd"], "Aufgeben"),
    ):
        await press(bot.fake, user, board, resign)
        await press(bot.fake, user, board, resign)
    await until(lambda: "Race over." in lobby.content, "the end")
    rematch = await press(bot.fake, BERND, lobby, "Rematch", channel=channel)
    assert rematch.calls[0] == "defer"  # Discord is answered before the server is asked
    [second] = rematch.sent
    assert not second.ephemeral and second is not lobby
    assert "Rennen #2: Yukon" in second.content and "Bernd" in second.content
    assert second.labels() == ["Mitmachen", "Verlassen", "Starten"]
    new = bot.desk.state(2)
    assert new is not None and new.info.settings.countdown_s == 2
    assert new.info.settings.variant == "yukon" and new.info.settings.ranked
    # Alice presses Rematch too: she joins that race, no second race is opened.
    again = await press(bot.fake, ALICE, lobby, "Rematch", channel=channel)
    [line] = again.sent
    assert not line.items() and line.content == "Alice joins the rematch, race #2."
    await until(lambda: "Bernd, Alice" in second.content, "Alice in the rematch's lobby")
    assert 3 not in bot.desk.races
    # Someone who did not race is told so, privately, and opens nothing.
    outsider = await press(bot.fake, FakeUser(503, "Cleo"), lobby, "Rematch", channel=channel)
    assert outsider.sent[0].ephemeral and "not in this race" in outsider.sent[0].content


async def test_a_countdown_race_waits_a_minute_for_others_unless_told(bot: Bot) -> None:
    """Start "Countdown" counts down from the race's creation: ten seconds left the
    creator racing alone, so it waits a minute unless the creator chose otherwise."""
    channel = FakeChannel()
    for chosen, expected in ((None, 60), (20, 20)):
        opening = FakeInteraction(bot.fake, ALICE, channel=channel)
        extra = {} if chosen is None else {"countdown": chosen}
        await SolitaireCog.race.callback(  # type: ignore[arg-type]
            bot.cog, opening, variant=Choice(name="Yukon", value="yukon"), start=COUNTDOWN, **extra
        )
        race = max(bot.desk.races)
        state = bot.desk.state(race)
        assert state is not None and state.info.settings.countdown_s == expected
        assert state.state == "countdown" and "Join" in opening.sent[0].labels()
