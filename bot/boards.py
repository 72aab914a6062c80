"""A player's board: drawn from the server's view, redrawn in place on every press.

``Boards`` holds what the bot remembers of its players (the game each plays, their
language, each game's last board message) and draws boards from the server's replies.
A press on a board names a ``BoardOp`` (bot/views.py); ``PRESSES`` (bot/presses.py)
maps each op to the one request it makes and the board it leads to, so a press is: ask
the server
acting for the user who pressed (so nobody can act for another), then answer Discord
once with the redrawn board (a defer first only when the server is slow). A refused
move redraws the board with the server's reason above it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import discord

from bot.answers import ErrorHook, Interaction, answering, send
from bot.client import Actor, ArenaClient, ServerError
from bot.daily_card import ended, post_daily_card
from bot.desk import RaceDesk
from bot.fair_use import Cooldown
from bot.i18n import error_text, locale_of, text
from bot.layout import board_layout
from bot.move_menu import MoveMenu
from bot.moves_text import safe_home_moves
from bot.presses import (
    PRESSES,
    Prefs,
    Pressed,
    new_move_id,
    top_card,
    typed_text,
    undo_arg,
    view_of,
)
from bot.render import TEXT_SUITS, board_reply, board_text, card_text
from bot.views import BoardOp, MoveModal, board_buttons, face_down, split_selection
from server import protocol as p

log = logging.getLogger(__name__)

# Redraws one board message in place: edit(layout).
BoardEdit = Callable[[discord.ui.LayoutView], Awaitable[Any]]
MAX_BOARDS = 10_000  # boards remembered for unasked redraws (a bot's active games)
# Seconds a board message stays editable through its interaction (Discord: 15 minutes).
EDIT_LIFETIME = 14 * 60.0
# Seconds a press waits for the server before it defers: Discord wants the first
# response within 3 s of the press, and the edit after a defer costs a second call.
ANSWER_BUDGET = 2.0


def protocol_locale(actor: Actor) -> p.Locale:
    """The actor's language as the protocol names it ("de" or "en")."""
    return "de" if actor.locale == "de" else "en"


def wall_ms() -> int:
    """The bot's clock: milliseconds since the epoch, comparable with server times."""
    return time.time_ns() // 1_000_000


class Boards:
    """Every Discord user's boards, played through one server client."""

    def __init__(
        self,
        client: ArenaClient,
        desk: RaceDesk,
        clock: Callable[[], int] = wall_ms,
        *,
        cooldown: Cooldown | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.desk = desk
        self.clock = clock  # server epoch ms, for the time shown on boards
        self.errors = ErrorHook()
        self.cooldown = cooldown or Cooldown()
        self.monotonic = monotonic  # the cooldown's clock (seconds)
        self.answer_budget = ANSWER_BUDGET
        self.games: dict[int, int] = {}  # Discord user → the game they play now
        self.locales: dict[int, str] = {}  # Discord user → their last locale (for DMs)
        # Each game's last board message, for redrawing it when the server says
        # something unasked; and the games the server proved lost where they stand.
        self.edits: dict[int, tuple[Actor, BoardEdit]] = {}
        self.board_until: dict[int, float] = {}  # game → until when its board is editable
        self.lost: set[int] = set()
        self.race_of: dict[int, int] = {}  # game → its race, to redraw boards at the start
        self.dailies: dict[int, str] = {}  # game → the day of its daily deal, for Share
        # game → whether its daily attempt ranks, until its end posts its card
        self.daily_cards: dict[int, bool] = {}
        # game → cards the auto-home option sent home after its last move, which
        # ``/solitaire undo`` takes back with the move (the board's Undo carries them).
        self.sent_home: dict[int, int] = {}
        # Discord user → board options, as the server keeps them (asked once a run).
        self.prefs: dict[int, Prefs] = {}
        # How boards write the suits: the application's card emoji once installed
        # (bot/card_emoji.py), else the text marks.
        self.suits: Mapping[str, str] = TEXT_SUITS
        self._redraws: set[asyncio.Task[None]] = set()
        client.on_notice = self.on_notice
        desk.on_start = self.race_started

    def actor(self, interaction: Interaction) -> Actor:
        """The Discord user of ``interaction`` as the server's principal."""
        user = interaction.user
        locale = locale_of(interaction.locale)
        self.locales[user.id] = locale
        return Actor(user.id, getattr(user, "display_name", None) or user.name, locale)

    async def turned_away(self, interaction: Interaction) -> bool:
        """Whether the user of ``interaction`` is over their fair share of requests; if
        so they are told to slow down (privately) and nothing goes to the server."""
        if self.cooldown.allow(interaction.user.id, self.monotonic()):
            return False
        await send(interaction, text(locale_of(interaction.locale), "slow_down"))
        return True

    async def guarded(self, interaction: Interaction, work: Awaitable[Any]) -> None:
        """Run ``work`` under the error hook (for work that is not an ``@answering``
        entry point of its own)."""
        await self.errors.guard(interaction, work)

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
        hint: str | None = None,
        undo_to: str = "",
        user: int | None = None,
    ) -> discord.ui.LayoutView:
        """The board message (a Components V2 layout: text and buttons) from a server
        reply carrying a view;
        ``target``: a column the selected source reaches with several cards, whose
        card the player picks next."""
        if reply.get("played"):
            self.lost.discard(game)  # a new position: the old verdict is void
        lost = game in self.lost
        if lost and notice is None:
            notice = text(locale, "lost_notice")
        view = reply["view"]
        if reply.get("race"):
            if game not in self.race_of and len(self.race_of) >= MAX_BOARDS:
                self.race_of.clear()
            self.race_of[game] = reply["race"]
        race = self.desk.state(reply["race"]) if reply.get("race") else None
        now = self.clock()
        elapsed = None
        if race is not None and race.state == "running" and race.starts_at is not None:
            elapsed = now - race.starts_at
        if notice is None and race is not None and face_down(view) and race.starts_at:
            when = f"<t:{race.starts_at // 1000}:R>"
            notice = text(locale, "board_before_start", when=when)
        source, size = split_selection(sel)
        # A race's clock runs only while the race does; elsewhere the game's own clock.
        shown = board_text(
            view,
            locale,
            selected=source,
            size=size,
            notice=notice,
            elapsed_ms=elapsed,
            now_ms=now if race is None else None,
            suits=self.suits,
        )
        buttons = board_buttons(
            game,
            view,
            locale,
            sel=sel,
            confirm_resign=confirm_resign,
            allow_undo=race.allow_undo if race else True,
            allow_hints=race.allow_hints if race else True,
            lost=lost,
            target=target,
            daily=self.dailies.get(game),
            # One tap plays at once only where Undo can put a wrong guess right.
            one_tap=self.prefs_of(user).one_tap and (race.allow_undo if race else True),
            hint=hint,
            undo_to=undo_to,
        )
        if buttons is not None and not sel and buttons.piles and not face_down(view):
            buttons.moves = MoveMenu.make(game, view, locale)
        return board_layout(shown, buttons, self.suits)

    def prefs_of(self, user: int | None) -> Prefs:
        """The board options of Discord user ``user`` (the defaults for nobody)."""
        return self.prefs.get(user, Prefs()) if user is not None else Prefs()

    async def set_prefs(self, actor: Actor, one_tap: bool | None, auto_home: bool | None) -> Prefs:
        """Change the options of ``actor`` that are given, kept by the server (and the
        language they read the bot in); returns the options now."""
        change = p.SetPreferences(
            one_tap=one_tap, auto_home=auto_home, locale=protocol_locale(actor)
        )
        reply = await self.client.expect(change, actor, p.PreferencesReply)
        return self._keep_prefs(actor.user_id, reply.preferences)

    async def load_prefs(self, actor: Actor) -> Prefs:
        """The options of ``actor``: from the cache, else from the server (once a run).
        A user at hand whose language is not the one kept is kept in theirs, so the
        bot's DMs speak it after a restart too."""
        known = self.prefs.get(actor.user_id)
        if known is not None:
            return known
        reply = await self.client.expect(p.GetPreferences(), actor, p.PreferencesReply)
        stored = reply.preferences
        if actor.introduce and stored.locale != actor.locale:
            change = p.SetPreferences(locale=protocol_locale(actor))
            stored = (await self.client.expect(change, actor, p.PreferencesReply)).preferences
        return self._keep_prefs(actor.user_id, stored)

    def _keep_prefs(self, user: int, stored: p.Preferences) -> Prefs:
        if user not in self.prefs and len(self.prefs) >= MAX_BOARDS:
            self.prefs.clear()  # forgetting costs one request when they come back
        prefs = self.prefs[user] = Prefs(stored.one_tap, stored.auto_home)
        if stored.locale:
            self.locales.setdefault(user, stored.locale)
        return prefs

    def draw(self, game: int, pressed: Pressed, actor: Actor) -> discord.ui.LayoutView:
        """The board a press led to, for the user who pressed."""
        return self.board(
            game,
            pressed.reply,
            actor.locale,
            sel=pressed.sel,
            notice=pressed.notice,
            confirm_resign=pressed.confirm_resign,
            target=pressed.target,
            hint=pressed.hint,
            undo_to=undo_arg(pressed.undo_to, pressed.sent_home),
            user=actor.user_id,
        )

    def remember(
        self, game: int, actor: Actor, edit: BoardEdit, lasts: float = EDIT_LIFETIME
    ) -> None:
        """Keep how to edit ``game``'s last board, for ``lasts`` seconds (an interaction's
        message can be edited for 15 minutes, a DM message always)."""
        if game not in self.edits and len(self.edits) >= MAX_BOARDS:
            self.edits.clear()  # forgetting costs only an unasked redraw
            self.board_until.clear()
        self.edits[game] = (actor, edit)
        self.board_until[game] = self.monotonic() + lasts

    async def edit_board(self, game: int, layout: discord.ui.LayoutView) -> bool:
        """Edit ``game``'s last board in place; False when there is none the bot may still
        edit (then the caller posts a new one)."""
        known = self.edits.get(game)
        if known is None or self.board_until.get(game, 0.0) <= self.monotonic():
            return False
        try:
            await known[1](layout)
        except discord.HTTPException as err:
            log.info("board of game %s no longer editable: %s", game, err)
            return False
        return True

    def on_notice(self, message: p.ServerMessage) -> None:
        """The server's unasked word about a game: the solver proved it lost where it
        stands (a practice game). Its board is redrawn with the offer to undo, jump
        back or resign."""
        if not isinstance(message, p.WinnabilityReply) or message.verdict != "lost":
            return
        game = message.game
        self.lost.add(game)
        self._schedule_redraw(game)

    def race_started(self, race: int) -> None:
        """``race`` started: boards its racers opened in the countdown (face down) are
        redrawn live, so the first tap is already a move."""
        for game in [g for g, r in self.race_of.items() if r == race]:
            self._schedule_redraw(game)

    def _schedule_redraw(self, game: int) -> None:
        known = self.edits.get(game)
        if known is None:
            return
        task = asyncio.get_running_loop().create_task(self._redraw(game, *known))
        self._redraws.add(task)
        task.add_done_callback(self._redrawn)

    async def _redraw(self, game: int, actor: Actor, edit: BoardEdit) -> None:
        reply = await view_of(self.client, actor, game)
        await edit(self.board(game, reply, actor.locale, user=actor.user_id))

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
        await self.load_prefs(actor)
        if reply is None:
            reply = await view_of(self.client, actor, game)
        self.games[actor.user_id] = game
        layout = self.board(game, reply, actor.locale, notice=notice, user=actor.user_id)
        message = await send(interaction, None, view=layout)
        if message is not None:
            self.remember(game, actor, lambda v: message.edit(content=None, view=v))

    @answering
    async def board_press(
        self, interaction: Interaction, game: int, op: BoardOp, arg: str, sel: str
    ) -> None:
        """A tap on a board: select a source, play a move, draw, undo, hint, finish, resign.

        One round trip when the server answers within ``answer_budget``: the press's
        only response is the redrawn board (``response.edit_message``). A slower server
        gets a defer first (Discord allows 3 s for the first response), then the edit.
        """
        actor = self.actor(interaction)
        self.games[actor.user_id] = game
        if op is BoardOp.TYPE:  # the form's answer edits this board (``modal_move``)
            await interaction.response.send_modal(MoveModal(game, actor.locale))
            return
        await self._answer(interaction, actor, game, op, arg, sel)

    @answering
    async def modal_move(self, interaction: Interaction, game: int, move: str) -> None:
        """A move typed in the board's form: played, and the board it came from edited
        in the form's one response (a defer first only when the server is slow)."""
        actor = self.actor(interaction)
        self.games[actor.user_id] = game
        await self._answer(interaction, actor, game, BoardOp.TARGET, typed_text(move), "")

    async def _answer(
        self, interaction: Interaction, actor: Actor, game: int, op: BoardOp, arg: str, sel: str
    ) -> None:
        """Do the press and redraw the pressed board in one response when the server
        answers within ``answer_budget``; else defer first (Discord allows 3 s), then edit."""
        pressing = asyncio.ensure_future(self.press(actor, game, op, arg, sel))
        try:
            done, _ = await asyncio.wait({pressing}, timeout=self.answer_budget)
            if not done:
                await interaction.response.defer()
            pressed = await pressing
        finally:
            pressing.cancel()  # a no-op once done; else nobody waits for it any more
        # content=None: a plain board posted before Components V2 loses its text.
        layout = self.draw(game, pressed, actor)
        if interaction.response.is_done():
            await interaction.edit_original_response(content=None, view=layout)
        else:
            await interaction.response.edit_message(content=None, view=layout)
        self.remember(
            game, actor, lambda v: interaction.edit_original_response(content=None, view=v)
        )
        await self.daily_over(interaction, actor, game, pressed.reply)

    async def daily_over(
        self, interaction: Interaction, actor: Actor, game: int, reply: Mapping[str, Any]
    ) -> None:
        """A daily attempt that ``reply`` shows ended: its result card, once, for
        everyone where the player is (bot/daily_card.py)."""
        if game not in self.daily_cards or not ended(reply["view"]):
            return
        ranked = self.daily_cards.pop(game)
        date = self.dailies.get(game, "")
        await post_daily_card(self.client, interaction, actor, date, reply["view"], ranked)

    async def press(self, actor: Actor, game: int, op: BoardOp, arg: str, sel: str) -> Pressed:
        """The server's answer to a press of ``op``; a refusal is the board as it stands
        with the reason above it (the refusal itself escapes only when even the board
        cannot be had)."""
        if op is BoardOp.UNDO and "+" not in arg:
            arg = undo_arg(arg, self.sent_home.get(game, 0))
        try:
            self.sent_home.pop(game, None)
            await self.load_prefs(actor)
            pressed = await PRESSES[op](self.client, actor, game, arg, sel)
            # Only after a move of the player's: after an Undo the card it took back
            # would go straight home again, and the move before it could never be undone.
            moved = op in (BoardOp.TARGET, BoardOp.DRAW)
            if moved and self.prefs_of(actor.user_id).auto_home and pressed.reply.get("played"):
                await self.send_home(actor, game, pressed)
                if pressed.sent_home:
                    if len(self.sent_home) >= MAX_BOARDS:
                        self.sent_home.clear()  # forgetting costs only a second Undo
                    self.sent_home[game] = pressed.sent_home
            return pressed
        except ServerError as err:
            notice = "⚠️ " + error_text(actor.locale, err.code, err.message)
            if err.view is not None:
                return Pressed({"view": err.view, "game": game}, notice=notice)
            try:
                reply = await view_of(self.client, actor, game)
            except ServerError:
                raise err from None
            return Pressed(reply, notice=notice)

    async def send_home(self, actor: Actor, game: int, pressed: Pressed) -> None:
        """Play the safe foundation moves one by one (the player's option), so ``pressed``
        ends on the position after them, with a notice naming the cards sent home."""
        cards: list[str] = []
        for _ in range(52):
            view = pressed.reply["view"]
            if view.get("status", "playing") != "playing":
                break
            safe = safe_home_moves(view)
            if not safe:
                break
            source = safe[0].split(">")[0]
            card = top_card(view, source)
            move = p.Move(game=game, text=safe[0], move_id=new_move_id())
            try:
                reply = await self.client.expect(move, actor, p.ViewReply)
            except ServerError:
                break  # the server said no: the board shows where it stands
            pressed.reply = board_reply(reply)
            pressed.sent_home += 1
            if card:
                cards.append(card_text(card, locale=actor.locale))
        if cards:
            sent = text(actor.locale, "sent_home", cards=" ".join(cards))
            pressed.notice = f"{pressed.notice}\n{sent}" if pressed.notice else sent
            pressed.sel, pressed.hint = "", None

    async def current_game(self, interaction: Interaction) -> int | None:
        """The game the user of ``interaction`` plays now: the one the bot remembers, else
        (after a restart) the newest game the server says they are still playing."""
        game = self.games.get(interaction.user.id)
        if game is None:
            game = await self.find_game(self.actor(interaction))
        return game

    async def find_game(self, actor: Actor) -> int | None:
        """Ask the server for the newest game ``actor`` is still playing (and remember it)."""
        reply = await self.client.expect(p.MyGames(limit=1), actor, p.MyGamesReply)
        if not reply.games:
            return None
        game = reply.games[0].game
        self.games[actor.user_id] = game
        return game
