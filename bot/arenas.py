"""Arenas on Discord: ``/solitaire arena`` opens one in a channel, whose message keeps its
standings current; Join puts a player in, and each race the server pairs them into
brings them their private board; at the end a podium line is posted.

The server decides everything (pairing, scoring, the standings' order: docs/arena.md);
the bot shows what it pushes. The channel message is edited by the race desk
(bot/desk.py) under the same budgets as race messages: at most once per interval, and
within the channel's five edits per five seconds, which it shares with the races there.
A player's board comes through their Join press's own followup while Discord keeps it
(15 minutes); after that, a mention in the channel with the button that opens the board.
The bot follows each arena race the way a race of its own is followed (``get_race``
acting for the player), so a board drawn face down in the countdown turns up at the
start by itself (``Boards.race_started``).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.answers import Interaction, answering, send
from bot.arena import ArenaState, render_arena, render_place, render_podium, render_scored
from bot.arena_buttons import arena_view
from bot.boards import Boards
from bot.client import Actor, ServerError
from bot.desk import Herald
from bot.i18n import locale_of, text
from bot.part import Part
from bot.race_buttons import start_view
from bot.race_messages import Herald as FollowupHerald, RaceMessageHandle, channel_id, editable
from bot.races import plain_name
from bot.render import board_reply
from server import protocol as p

log = logging.getLogger(__name__)

# Seconds a Join press's followup is trusted to reach its player (Discord: 15 minutes).
FOLLOWUP_LIFETIME = 14 * 60.0


@dataclass
class Joiner:
    """A player who joined an arena through this bot, and how to reach them: their Join
    press's followup while it lasts, else a mention in the arena's channel."""

    actor: Actor
    followup: Any
    since: float
    channel: Any

    def fresh(self, now: float) -> bool:
        return now - self.since < FOLLOWUP_LIFETIME


@dataclass
class ArenaEntry:
    """An arena shown in a channel: its state, message, language and players here."""

    state: ArenaState
    locale: str
    message: RaceMessageHandle
    post: Herald  # posts the podium where everyone sees it
    joiners: dict[int, Joiner] = field(default_factory=dict)  # server player id → joiner


class Arenas(Part):
    """``/solitaire arena``, the arena message's buttons, and what arenas push."""

    def __init__(self, boards: Boards) -> None:
        super().__init__(boards)
        self.arenas: dict[int, ArenaEntry] = {}
        self._arena_work: set[asyncio.Task[None]] = set()
        self.client.on_arena = self.on_arena

    @answering
    async def open_arena(
        self,
        interaction: Interaction,
        variant: str,
        minutes: int,
        starts_in: int = 0,
        title: str | None = None,
    ) -> None:
        """/solitaire arena: open an arena in this channel (its creator joins it); the
        command's reply becomes the arena's message."""
        locale = locale_of(getattr(interaction, "guild_locale", None) or interaction.locale)
        if interaction.guild_id is None or interaction.channel is None:
            await send(interaction, text(locale, "no_guild"))
            return
        await interaction.response.defer(thinking=True)
        actor = self.actor(interaction)
        create = p.CreateArena(
            variant=variant,
            minutes=minutes,
            starts_in_s=starts_in * 60,
            title=title.strip()[:64] if title and title.strip() else None,
        )
        info = await self._arena(create, actor)
        state = ArenaState(info)
        sent = await interaction.edit_original_response(
            content=render_arena(state, locale), view=arena_view(info.arena, info.state, locale)
        )
        entry = self._follow(info, interaction, editable(interaction.channel, sent), locale)
        if info.you is not None:
            self._join(entry, info.you.player, actor, interaction)
            await send(interaction, text(actor.locale, "arena_in", arena=info.arena))

    def _follow(
        self, info: p.ArenaInfo, interaction: Interaction, message: RaceMessageHandle, locale: str
    ) -> ArenaEntry:
        """Show ``info``'s arena in ``message`` from now on, edited by the desk."""
        entry = ArenaEntry(ArenaState(info), locale, message, FollowupHerald(interaction))
        self.arenas[info.arena] = entry
        redraw = functools.partial(self._redraw_arena, info.arena)
        self.desk.keep(("arena", info.arena), channel_id(interaction), redraw)
        return entry

    def _join(self, entry: ArenaEntry, player: int, actor: Actor, interaction: Interaction) -> None:
        entry.joiners[player] = Joiner(
            actor, interaction.followup, self.monotonic(), interaction.channel
        )

    @answering
    async def arena_press(self, interaction: Interaction, arena: int, op: str) -> None:
        """A button of an arena message: Join (or come back), My place, Pause, Leave;
        each answered privately."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        actor = self.actor(interaction)
        if op == "join":
            try:
                info = (
                    await self.client.expect(p.JoinArena(arena=arena), actor, p.ArenaReply)
                ).arena
            except ServerError as err:
                if err.code != "arena_joined":
                    raise
                # In already (before a restart, or twice): followed again from here.
                info = (
                    await self.client.expect(p.GetArena(arena=arena), actor, p.ArenaReply)
                ).arena
            entry = self._adopt(info, interaction)
            if entry is not None and info.you is not None:
                self._join(entry, info.you.player, actor, interaction)
            await send(interaction, text(actor.locale, "arena_in", arena=arena))
            return
        if op == "place":
            info = await self._arena(p.GetArena(arena=arena), actor)
            self._adopt(info, interaction)
            if info.you is None:
                await send(interaction, text(actor.locale, "arena_not_joined"))
            else:
                await send(interaction, render_place(info, actor.locale))
            return
        if op == "pause":
            await self.client.ask(p.PauseArena(arena=arena), actor)
            await send(interaction, text(actor.locale, "arena_paused"))
            return
        await self.client.ask(p.LeaveArena(arena=arena), actor)
        await send(interaction, text(actor.locale, "arena_left"))

    async def _arena(self, request: p.ClientMessage, actor: Actor) -> p.ArenaInfo:
        """The arena the server's ``arena`` reply to ``request`` carries."""
        return (await self.client.expect(request, actor, p.ArenaReply)).arena

    def _adopt(self, info: p.ArenaInfo, interaction: Interaction) -> ArenaEntry | None:
        """The arena's entry; an arena message from before a restart is followed again
        from its next press (the press's message is the arena's)."""
        entry = self.arenas.get(info.arena)
        if entry is not None or interaction.message is None or info.state == "finished":
            return entry
        locale = locale_of(getattr(interaction, "guild_locale", None) or interaction.locale)
        message = editable(interaction.channel, interaction.message)
        return self._follow(info, interaction, message, locale)

    # ------------------------------------------------------------ pushed

    def on_arena(self, event: p.ArenaEvent) -> None:
        """What an arena followed here pushed: the standings and its state change the
        message; a player's next race brings their board; a scored race is told them."""
        entry = self.arenas.get(event.arena)
        if entry is None:
            return
        body = event.event
        if entry.state.apply(body):
            self.desk.touch(("arena", event.arena))
        joiner = entry.joiners.get(event.player) if event.player is not None else None
        if joiner is None:
            return
        if isinstance(body, p.ArenaNextRaceEvent):
            self._spawn(self._next_race(entry, joiner, body))
        elif isinstance(body, p.ArenaScoredEvent) and joiner.fresh(self.monotonic()):
            line = render_scored(body, joiner.actor.locale)
            self._spawn(joiner.followup.send(line, ephemeral=True))

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._arena_work.add(task)
        task.add_done_callback(self._arena_done)

    def _arena_done(self, task: asyncio.Task[None]) -> None:
        self._arena_work.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("arena work failed: %r", task.exception())

    async def _next_race(
        self, entry: ArenaEntry, joiner: Joiner, body: p.ArenaNextRaceEvent
    ) -> None:
        """A player's next race: followed, and their board sent to them (through their
        Join's followup while it lasts, else the channel mentions them with the button
        that opens it)."""
        actor = joiner.actor
        reply = await self.client.expect(p.GetRace(race=body.race), actor, p.RaceReply)
        if reply.race.your_game is None:
            return
        game = reply.race.your_game
        arena = entry.state.arena
        if not joiner.fresh(self.monotonic()):
            ping = text(
                entry.locale, "arena_next_ping", user=actor.user_id, arena=arena, race=body.race
            )
            mentions = discord.AllowedMentions(everyone=False, roles=False, users=True)
            await joiner.channel.send(
                ping, view=start_view(body.race, entry.locale), allowed_mentions=mentions
            )
            return
        players = ", ".join(plain_name(q.name) for q in body.players)
        notice = text(actor.locale, "arena_next", arena=arena, race=body.race, players=players)
        await self.boards.load_prefs(actor)
        view = await self.client.expect(p.GetView(game=game), actor, p.ViewReply)
        self.boards.games[actor.user_id] = game
        layout = self.boards.board(
            game, board_reply(view), actor.locale, notice=notice, user=actor.user_id
        )
        message = await joiner.followup.send(view=layout, ephemeral=True, wait=True)
        self.boards.remember(game, actor, lambda v: message.edit(content=None, view=v))

    async def _redraw_arena(self, arena: int) -> bool:
        """Edit the arena's message to its latest state; at the end, post the podium once
        and forget the arena (True)."""
        entry = self.arenas.get(arena)
        if entry is None:
            return True
        state = entry.state
        await entry.message.edit(
            content=render_arena(state, entry.locale),
            view=arena_view(arena, state.info.state, entry.locale),
        )
        if not state.finished:
            return False
        del self.arenas[arena]
        try:
            await entry.post(render_podium(state, entry.locale), None)
        except (discord.HTTPException, LookupError) as err:
            log.warning("cannot post the podium of arena %s: %s", arena, err)
        return True
