"""A real race through the bot's command layer and server client against a real server.

Two simulated Discord users: Alice (English) opens a race in a channel, Bernd
(German) joins from the channel message; Alice starts it; both open their boards
from the channel message. Bernd plays a move with the buttons and resigns; Alice
plays a winning line by tapping sources and targets. The channel message ends
with the ranking and the revealed seed.
"""

from __future__ import annotations

from discord.app_commands import Choice
from discord_fakes import Bot, FakeChannel, FakeInteraction, FakeMessage, FakeUser, press, until

import engine
from bot.cog import SolitaireCog

ALICE = FakeUser(501, "Alice")
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


def button_for(pile: str) -> str:
    """The label of the board button for a source or target in notation."""
    if pile == "w":
        return "Waste"
    if pile == "f":
        return "→ Foundation"
    return pile.upper() if pile.startswith("f") else pile


async def play_with_buttons(bot: Bot, user: FakeUser, board: FakeMessage, move: str) -> None:
    """Play ``move`` the way a player does: tap the source, maybe pick the card, tap the target."""
    if move == "d":
        await press(bot.fake, user, board, "Draw")
        return
    source, target = move.split(">")
    pile, _, size = source.partition(":")
    await press(bot.fake, user, board, button_for(pile))
    if any(item.item.custom_id.startswith("sa|k|") for item in board.items()):
        await press(bot.fake, user, board, "select", value=size or "1")
    await press(bot.fake, user, board, button_for(target))


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
    assert joined.sent[0].ephemeral and "dabei" in joined.sent[0].content
    await until(lambda: "Alice, Bernd" in lobby.content, "Bernd shown in the lobby")

    refused = await press(bot.fake, BERND, lobby, "Start", channel=channel)
    assert refused.sent[0].ephemeral
    assert "Nur wer das Rennen erstellt hat" in refused.sent[0].content

    await press(bot.fake, ALICE, lobby, "Start", channel=channel)
    await until(lambda: lobby.labels() == ["Open my board"], "the race runs")
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
    assert "aufgegeben" in boards["Bernd"].content and boards["Bernd"].view is None

    alice = boards["Alice"]
    for move in line:
        if move == "finish":
            await press(bot.fake, ALICE, alice, "Finish")
        else:
            await play_with_buttons(bot, ALICE, alice, move)
        assert "⚠️" not in alice.content, (move, alice.content)
    assert "Won!" in alice.content and alice.view is None

    await until(lambda: "Race over." in lobby.content, "the final ranking")
    ranking = [line for line in lobby.content.splitlines() if line.startswith(("🥇", "🥈"))]
    assert ranking[0].startswith("🥇1. Alice: 52 cards home") and "won in" in ranking[0]
    assert ranking[1].startswith("🥈2. Bernd") and ranking[1].endswith("resigned")
    assert f"Seed {seed} " in lobby.content
    assert lobby.view is None
    assert bot.desk.races == {}  # the race is over: the desk forgot it
