"""The table: where Discord interactions become server requests and boards come back.

Commands, buttons and DM messages all end up here. Each handler answers Discord
first (a defer, so no interaction ever times out while the server thinks), asks
the server acting for the user who pressed (so nobody can act for another), and
redraws the board from the server's reply. Every ``ServerError`` becomes a short
message in the user's language; any other failure is logged and shown as a
generic apology, never as a traceback.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import discord

import engine
from bot.client import Actor, ArenaClient, ServerError
from bot.desk import RaceDesk
from bot.figures import render_all_time, render_leaderboard, render_stats
from bot.i18n import error_text, locale_of, text
from bot.races import render_race
from bot.render import TEXT_SUITS, render_board
from bot.views import board_view, race_view, split_selection

log = logging.getLogger(__name__)

Interaction = Any  # discord.Interaction, or a test's small fake with the same surface
# Redraws one board message in place: edit(content, view).
BoardEdit = Callable[[str, Any], Awaitable[Any]]
MAX_BOARDS = 10_000  # boards remembered for unasked redraws (a bot's active games)


def parse_deal(deal: str) -> int | None:
    """The seed behind a deal code (as boards show it), None when it is not one."""
    try:
        return engine.seed_from_code(deal.strip())
    except ValueError:
        return None


def wall_ms() -> int:
    """The bot's clock: milliseconds since the epoch, comparable with server times."""
    return time.time_ns() // 1_000_000


def new_move_id() -> str:
    """A fresh id that makes a retransmitted move apply only once."""
    return uuid.uuid4().hex[:16]


class RaceMessageHandle:
    """A race message, edited through its channel, or through the interaction that sent
    it when the bot may not see the channel (that works for 15 minutes only)."""

    def __init__(self, channel_message: Any, interaction_message: Any) -> None:
        self.channel_message = channel_message
        self.interaction_message = interaction_message

    async def edit(self, *, content: str, view: Any) -> Any:
        if self.channel_message is not None:
            try:
                return await self.channel_message.edit(content=content, view=view)
            except discord.Forbidden:
                if self.interaction_message is None:
                    raise
                self.channel_message = None
        return await self.interaction_message.edit(content=content, view=view)


class Table:
    """Plays every Discord user's games and races through one server client."""

    def __init__(
        self, client: ArenaClient, desk: RaceDesk, clock: Callable[[], int] = wall_ms
    ) -> None:
        self.client = client
        self.desk = desk
        self.clock = clock  # server epoch ms, for the time shown on boards
        self.games: dict[int, int] = {}  # Discord user → the game they play now
        self.locales: dict[int, str] = {}  # Discord user → their last locale (for DMs)
        # Each game's last board message, for redrawing it when the server says
        # something unasked; and the games the server proved lost where they stand.
        self.boards: dict[int, tuple[Actor, BoardEdit]] = {}
        self.lost: set[int] = set()
        # How boards write the suits: the application's card emoji once installed
        # (bot/card_emoji.py), else the text marks.
        self.suits: Mapping[str, str] = TEXT_SUITS
        self._redraws: set[asyncio.Task[None]] = set()
        client.on_notice = self.on_notice

    # ------------------------------------------------------------ who and how to answer

    def actor(self, interaction: Interaction) -> Actor:
        """The Discord user of ``interaction`` as the server's principal."""
        user = interaction.user
        locale = locale_of(interaction.locale)
        self.locales[user.id] = locale
        return Actor(user.id, getattr(user, "display_name", None) or user.name, locale)

    async def send(
        self, interaction: Interaction, content: str, *, view: Any = None, ephemeral: bool = True
    ) -> Any:
        """Answer ``interaction`` whether or not it was deferred already."""
        extra = {"view": view} if view is not None else {}
        if interaction.response.is_done():
            return await interaction.followup.send(content, ephemeral=ephemeral, wait=True, **extra)
        await interaction.response.send_message(content, ephemeral=ephemeral, **extra)
        return None

    async def fail(self, interaction: Interaction, error: ServerError) -> None:
        """Tell the user what went wrong, in their language."""
        locale = locale_of(interaction.locale)
        await self.send(interaction, "⚠️ " + error_text(locale, error.code, error.message))

    async def guarded(self, interaction: Interaction, work: Any) -> None:
        """Run ``work`` (a coroutine); turn any failure into a message for the user."""
        try:
            await work
            return
        except ServerError as err:
            error = err
        except Exception:
            log.exception("interaction failed")
            error = ServerError("bot_error")
        try:
            await self.fail(interaction, error)
        except Exception:  # Discord itself failed us; nothing more to tell the user
            log.exception("could not report %s to the user", error.code)

    # ------------------------------------------------------------ boards

    def board(
        self,
        game: int,
        reply: Mapping[str, Any],
        locale: str,
        *,
        sel: str = "",
        notice: str | None = None,
        confirm_resign: bool = False,
        target: str | None = None,
    ) -> tuple[str, discord.ui.View | None]:
        """The board message (text and buttons) from a server reply carrying a view;
        ``target``: a column the selected source reaches with several cards, whose
        card the player picks next."""
        if reply.get("played"):
            self.lost.discard(game)  # a new position: the old verdict is void
        lost = game in self.lost
        if lost and notice is None:
            notice = text(locale, "lost_notice")
        view = reply["view"]
        race = self.desk.state(reply["race"]) if reply.get("race") else None
        now = self.clock()
        elapsed = None
        if race is not None and race.state == "running" and race.starts_at is not None:
            elapsed = now - race.starts_at
        source, size = split_selection(sel)
        # A race's clock runs only while the race does; elsewhere the game's own clock.
        content = render_board(
            view,
            locale,
            selected=source,
            size=size,
            notice=notice,
            elapsed_ms=elapsed,
            now_ms=now if race is None else None,
            suits=self.suits,
        )
        buttons = board_view(
            game,
            view,
            locale,
            sel=sel,
            confirm_resign=confirm_resign,
            allow_undo=race.allow_undo if race else True,
            allow_hints=race.allow_hints if race else True,
            lost=lost,
            target=target,
        )
        return content, buttons

    def _remember(self, game: int, actor: Actor, edit: BoardEdit) -> None:
        if game not in self.boards and len(self.boards) >= MAX_BOARDS:
            self.boards.clear()  # forgetting costs only an unasked redraw
        self.boards[game] = (actor, edit)

    def on_notice(self, message: Mapping[str, Any]) -> None:
        """The server's unasked word about a game: the solver proved it lost where it
        stands (a practice game). Its board is redrawn with the offer to undo, jump
        back or resign."""
        if message.get("type") != "winnability" or message.get("verdict") != "lost":
            return
        game = message["game"]
        self.lost.add(game)
        known = self.boards.get(game)
        if known is None:
            return
        task = asyncio.get_running_loop().create_task(self._redraw(game, *known))
        self._redraws.add(task)
        task.add_done_callback(self._redrawn)

    async def _redraw(self, game: int, actor: Actor, edit: BoardEdit) -> None:
        reply = await self.client.request("get_view", actor, game=game)
        content, view = self.board(game, reply, actor.locale)
        await edit(content, view)

    def _redrawn(self, task: asyncio.Task[None]) -> None:
        self._redraws.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("could not redraw a board: %r", task.exception())

    async def show_board(
        self,
        interaction: Interaction,
        game: int,
        reply: Mapping[str, Any] | None = None,
        notice: str | None = None,
    ) -> None:
        """Send ``game``'s board as a new private message."""
        actor = self.actor(interaction)
        if reply is None:
            reply = await self.client.request("get_view", actor, game=game)
        self.games[actor.user_id] = game
        content, view = self.board(game, reply, actor.locale, notice=notice)
        message = await self.send(interaction, content, view=view)
        if message is not None:
            self._remember(game, actor, lambda c, v: message.edit(content=c, view=v))

    async def board_press(
        self, interaction: Interaction, game: int, op: str, arg: str, sel: str
    ) -> None:
        """A tap on a board: select a source, play a move, draw, undo, hint, finish, resign.

        The board message is redrawn in place from the server's reply.
        """
        await interaction.response.defer()
        actor = self.actor(interaction)
        self.games[actor.user_id] = game
        new_sel, notice, confirm, target = "", None, False, None
        try:
            if op == "s":
                reply = await self.client.request("get_view", actor, game=game)
                new_sel = sel or arg
                source, _ = split_selection(new_sel)
                notice = text(actor.locale, "selected", source=source)
            elif op == "t" and arg.startswith("?"):
                # Several cards of the source reach the target: the menu offers them.
                # (A bare "?" comes from a board drawn before targets carried their pile.)
                reply = await self.client.request("get_view", actor, game=game)
                new_sel, target = sel, arg[1:] or None
                notice = (
                    text(actor.locale, "pick_card_to", target=target)
                    if target
                    else text(actor.locale, "pick_card")
                )
            elif op == "t" or op == "d":
                move = arg if op == "t" else "d"
                reply = await self.client.request(
                    "move", actor, game=game, text=move, move_id=new_move_id()
                )
            elif op == "u":
                reply = await self.client.request("undo", actor, game=game, move_id=new_move_id())
            elif op == "j":
                reply = await self.client.request(
                    "jump_back", actor, game=game, move_id=new_move_id()
                )
            elif op == "h":
                reply = await self.client.request("hint", actor, game=game)
                hint = reply.get("hint")
                notice = (
                    text(actor.locale, "hint_is", move=hint)
                    if hint
                    else text(actor.locale, "no_hint")
                )
            elif op == "x":
                reply = await self.client.request("auto_finish", actor, game=game)
            elif op == "r":
                reply = await self.client.request("get_view", actor, game=game)
                confirm, notice = True, text(actor.locale, "confirm_resign")
            elif op == "R":
                reply = await self.client.request("resign", actor, game=game)
            else:  # "c": cancel the selection
                reply = await self.client.request("get_view", actor, game=game)
        except ServerError as err:
            notice = "⚠️ " + error_text(actor.locale, err.code, err.message)
            if err.view is not None:
                reply = {"view": err.view, "game": game}
            else:
                try:
                    reply = await self.client.request("get_view", actor, game=game)
                except ServerError:
                    await self.send(interaction, notice)
                    return
        content, view = self.board(
            game,
            reply,
            actor.locale,
            sel=new_sel,
            notice=notice,
            confirm_resign=confirm,
            target=target,
        )
        await interaction.edit_original_response(content=content, view=view)
        self._remember(
            game, actor, lambda c, v: interaction.edit_original_response(content=c, view=v)
        )

    async def practice(
        self,
        interaction: Interaction,
        variant: str,
        deal: str | None,
        options: dict[str, Any] | None = None,
    ) -> None:
        """Start a practice game of ``variant`` (on a chosen deal code or seed)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        actor = self.actor(interaction)
        fields: dict[str, Any] = {"variant": variant, "options": options or {}}
        if deal:
            seed = parse_deal(deal)
            if seed is None:
                await self.send(interaction, text(actor.locale, "bad_deal_code", code=deal[:40]))
                return
            fields["seed"] = seed
        if interaction.guild_id is not None:
            fields["guild_id"] = str(interaction.guild_id)
        reply = await self.client.request("practice", actor, **fields)
        await self.show_board(interaction, reply["game"], reply)

    async def daily(self, interaction: Interaction, variant: str) -> None:
        """Start an attempt at today's deal of ``variant`` (the first one is ranked)."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        actor = self.actor(interaction)
        fields: dict[str, Any] = {"variant": variant}
        if interaction.guild_id is not None:
            fields["guild_id"] = str(interaction.guild_id)
        # The first request of a day may wait for the solver to prove the day's deal.
        reply = await self.client.request("daily_start", actor, timeout=120, **fields)
        notice = text(
            actor.locale,
            "daily_started",
            date=reply["date"],
            ranked=text(actor.locale, "daily_ranked" if reply["ranked"] else "daily_practice"),
            deadline=f"<t:{reply['deadline'] // 1000}:R>",
        )
        await self.show_board(interaction, reply["game"], reply, notice)

    async def current_game(self, interaction: Interaction) -> int | None:
        """The game the user of ``interaction`` plays now: the one the bot remembers, else
        (after a restart) the newest game the server says they are still playing."""
        game = self.games.get(interaction.user.id)
        if game is None:
            game = await self.find_game(self.actor(interaction))
        return game

    async def find_game(self, actor: Actor) -> int | None:
        """Ask the server for the newest game ``actor`` is still playing (and remember it)."""
        reply = await self.client.request("my_games", actor, limit=1)
        if not reply["games"]:
            return None
        game = int(reply["games"][0]["game"])
        self.games[actor.user_id] = game
        return game

    async def board_command(self, interaction: Interaction) -> None:
        """/solitaire board: show my board again."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        game = await self.current_game(interaction)
        if game is None:
            await self.send(interaction, text(locale_of(interaction.locale), "no_game"))
            return
        await self.show_board(interaction, game)

    async def typed_move(self, interaction: Interaction, move: str) -> None:
        """/solitaire move: play a move typed in the engine's notation."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        game = await self.current_game(interaction)
        if game is None:
            await self.send(interaction, text(locale_of(interaction.locale), "no_game"))
            return
        actor = self.actor(interaction)
        reply = await self.client.request(
            "move", actor, game=game, text=move[:100], move_id=new_move_id()
        )
        await self.show_board(interaction, game, reply)

    async def game_command(self, interaction: Interaction, kind: str) -> None:
        """/solitaire undo, hint or resign on my current game."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        game = await self.current_game(interaction)
        if game is None:
            await self.send(interaction, text(locale_of(interaction.locale), "no_game"))
            return
        actor = self.actor(interaction)
        fields: dict[str, Any] = {"game": game}
        if kind == "undo":
            fields["move_id"] = new_move_id()
        reply = await self.client.request(kind, actor, **fields)
        notice = None
        if kind == "hint":
            hint = reply.get("hint")
            notice = (
                text(actor.locale, "hint_is", move=hint) if hint else text(actor.locale, "no_hint")
            )
        await self.show_board(interaction, game, reply, notice)

    async def move_choices(self, interaction: Interaction, current: str) -> list[str]:
        """My legal moves in canonical notation that start with ``current``.

        Discord gives autocomplete 3 seconds and no way to defer, so a slow server
        means an empty list rather than a failed interaction.
        """
        try:
            async with asyncio.timeout(2.5):
                game = await self.current_game(interaction)
                if game is None:
                    return []
                reply = await self.client.request("get_view", self.actor(interaction), game=game)
        except (ServerError, TimeoutError):
            return []
        moves = [m for group in reply["view"].get("legal_moves", {}).values() for m in group]
        typed = current.strip().lower()
        matching = [m for m in moves if m.startswith(typed)] if typed else moves
        return matching[:25]

    async def dm_move(self, message: Any) -> None:
        """A plain message in a DM: a move (or undo) for the author's current game."""
        author = message.author
        locale = self.locales.get(author.id, "en")
        actor = Actor(author.id, getattr(author, "display_name", None) or author.name, locale)
        game = self.games.get(author.id)
        if game is None:
            game = await self.find_game(actor)
        if game is None:
            await message.channel.send(text(locale, "no_game"))
            return
        notice = None
        try:
            reply = await self.client.request(
                "move",
                actor,
                game=game,
                text=message.content.strip()[:100],
                move_id=new_move_id(),
            )
        except ServerError as err:
            notice = "⚠️ " + error_text(locale, err.code, err.message)
            try:
                reply = await self.client.request("get_view", actor, game=game)
            except ServerError:
                await message.channel.send(notice)
                return
        content, view = self.board(game, reply, locale, notice=notice)
        await message.channel.send(content, **({"view": view} if view else {}))

    # ------------------------------------------------------------ races

    async def create_race(
        self, interaction: Interaction, deal: str | None = None, **settings: Any
    ) -> None:
        """/solitaire race: open a race in this channel; the reply is the race message."""
        locale = locale_of(getattr(interaction, "guild_locale", None) or interaction.locale)
        if interaction.guild_id is None or interaction.channel is None:
            await self.send(interaction, text(locale, "no_guild"))
            return
        await interaction.response.defer(thinking=True)
        actor = self.actor(interaction)
        if deal:
            seed = parse_deal(deal)
            if seed is None:
                await self.send(interaction, text(actor.locale, "bad_deal_code", code=deal[:40]))
                return
            settings["seed"] = seed
        # The deferred ("thinking") response becomes the race message: its id goes into the
        # race's context, so the bot finds the message again after a restart.
        original = await interaction.original_response()
        settings["guild_id"] = str(interaction.guild_id)
        settings["context"] = {
            "channel_id": str(interaction.channel.id),
            "message_id": str(original.id),
            "locale": locale,
        }
        reply = await self.client.request("create_race", actor, **settings)
        info = reply["race"]
        self.desk.on_race(info)
        state = self.desk.state(info["race"])
        assert state is not None
        sent = await interaction.edit_original_response(
            content=render_race(state, locale),
            view=race_view(state.race, state.state, locale, state.start_mode),
        )
        self.desk.attach(info["race"], self._editable(interaction.channel, sent), locale)

    async def reattach_races(self, guild_ids: list[int], channel_of: Any) -> int:
        """After a start: follow again every open race this bot opened in ``guild_ids`` and
        edit its message; returns how many. ``channel_of(id)`` is the cached channel or
        None. Races whose message the bot cannot reach are adopted on their next button
        press instead (``race_press``)."""
        attached = 0
        for guild_id in guild_ids:
            reply = await self.client.request("open_races", None, guild_id=str(guild_id))
            for race in reply["races"]:
                context = race.get("context") or {}
                if race["race"] in self.desk.races or "message_id" not in context:
                    continue
                channel = channel_of(int(context.get("channel_id", 0)))
                if channel is None or not hasattr(channel, "get_partial_message"):
                    continue
                creator = race["creator"]
                user_id = int(creator["user"].removeprefix("discord:"))
                actor = Actor(user_id, creator["name"], introduce=False)
                info = (await self.client.request("get_race", actor, race=race["race"]))["race"]
                self.desk.on_race(info)
                message = channel.get_partial_message(int(context["message_id"]))
                locale = locale_of(context.get("locale"))
                self.desk.attach(race["race"], RaceMessageHandle(message, None), locale)
                attached += 1
        return attached

    @staticmethod
    def _editable(channel: Any, message: Any) -> RaceMessageHandle:
        """Edit through the channel (no 15-minute limit of interaction webhooks) when possible."""
        partial = None
        if hasattr(channel, "get_partial_message") and hasattr(message, "id"):
            partial = channel.get_partial_message(message.id)
        return RaceMessageHandle(partial, message)

    async def race_press(self, interaction: Interaction, race: int, op: str) -> None:
        """Join, Leave, Start or Open my board on a race message."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        actor = self.actor(interaction)
        if self.desk.state(race) is None and interaction.message is not None:
            info = (await self.client.request("get_race", actor, race=race))["race"]
            self.desk.on_race(info)  # adopt a race message from before a restart
            if info["state"] != "finished":
                locale = locale_of(getattr(interaction, "guild_locale", None) or actor.locale)
                self.desk.attach(
                    race, self._editable(interaction.channel, interaction.message), locale
                )
        if op == "board":
            info = (await self.client.request("get_race", actor, race=race))["race"]
            if info.get("your_game") is None:
                await self.send(interaction, text(actor.locale, "not_racing"))
                return
            await self.show_board(interaction, info["your_game"])
            return
        kind = {"join": "join_race", "leave": "leave_race", "start": "start_race"}[op]
        await self.client.request(kind, actor, race=race)
        key = {"join": "joined", "leave": "left", "start": "started"}[op]
        await self.send(interaction, text(actor.locale, key, race=race))

    # ------------------------------------------------------------ figures

    async def leaderboard(
        self, interaction: Interaction, variant: str, period: str, scope: str, around: bool
    ) -> None:
        """/solitaire leaderboard: today's (or all-time) ranking, global or this server."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        actor = self.actor(interaction)
        fields: dict[str, Any] = {"variant": variant}
        if scope == "server" and interaction.guild_id is not None:
            fields["guild_id"] = str(interaction.guild_id)
        if period == "all_time":
            reply = await self.client.request("leaderboard", actor, around_me=around, **fields)
            await self.send(interaction, render_all_time(reply, actor.locale, scope))
            return
        kind = "daily_around" if around else "daily_board"
        reply = await self.client.request(kind, actor, **fields)
        await self.send(interaction, render_leaderboard(reply, actor.locale, scope))

    async def stats(self, interaction: Interaction) -> None:
        """/solitaire stats: my all-time figures per variant."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        actor = self.actor(interaction)
        reply = await self.client.request("player_stats", actor)
        await self.send(interaction, render_stats(reply, actor.locale))
