"""Race messages: opening a race in a channel, its buttons, and finding it again.

A race message is posted by ``/solitaire race`` and kept current by the race desk
(bot/desk.py); its buttons (join, leave, start, open my board) land here. After a
restart the bot re-attaches the messages of open races it can reach, and adopts any
other on its next button press.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import discord

import engine
from bot.answers import Interaction, answering, send
from bot.client import Actor
from bot.i18n import error_text, locale_of, text, variant_name
from bot.part import Part
from bot.presses import shared
from bot.race_buttons import quit_view
from bot.races import RaceState, plain_name, render_race
from bot.render import board_reply, format_time
from bot.watch_buttons import watched_race_view
from server import protocol as p


def parse_deal(deal: str) -> int | None:
    """The seed behind a deal code (as boards show it), None when it is not one."""
    try:
        return engine.seed_from_code(deal.strip())
    except ValueError:
        return None


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


def channel_id(interaction: Interaction) -> int | None:
    """The id of the channel an interaction came from (its race messages' edit budget)."""
    return getattr(interaction.channel, "id", None)


def editable(channel: Any, message: Any) -> RaceMessageHandle:
    """Edit through the channel (no 15-minute limit of interaction webhooks) when possible."""
    partial = None
    if hasattr(channel, "get_partial_message") and hasattr(message, "id"):
        partial = channel.get_partial_message(message.id)
    return RaceMessageHandle(partial, message)


class Herald:
    """Posts a new message in a race's channel (the start's mention): through the freshest
    interaction on the race (its followup webhook needs no permission, for 15 minutes),
    else through the channel (that needs Send Messages)."""

    LIFETIME = 14 * 60.0  # seconds an interaction's followup is trusted (Discord: 15 min)

    def __init__(self, interaction: Interaction, clock: Any = time.monotonic) -> None:
        self.followup = interaction.followup
        self.channel = interaction.channel
        self.clock = clock
        self.since = clock()

    async def __call__(self, content: str, view: Any, file: Any = None) -> Any:
        mentions = discord.AllowedMentions(everyone=False, roles=False, users=True)
        extra = _extras(view, file)
        if self.clock() - self.since < self.LIFETIME:
            return await self.followup.send(
                content, ephemeral=False, wait=True, allowed_mentions=mentions, **extra
            )
        send = getattr(self.channel, "send", None)
        if send is None:
            raise LookupError("no channel to post in")
        return await send(content, allowed_mentions=mentions, **extra)


def _extras(view: Any, file: Any) -> dict[str, Any]:
    """The view and file of a post, left out when there are none (discord.py's sends
    take no None for either)."""
    extra: dict[str, Any] = {}
    if view is not None:
        extra["view"] = view
    if file is not None:
        extra["file"] = file
    return extra


class ChannelPost:
    """Posts in a race's channel itself (needs Send Messages): the start's mention of a
    race found again after a restart, which no interaction of this bot has touched yet."""

    def __init__(self, channel: Any) -> None:
        self.channel = channel

    async def __call__(self, content: str, view: Any, file: Any = None) -> Any:
        mentions = discord.AllowedMentions(everyone=False, roles=False, users=True)
        extra = _extras(view, file)
        return await self.channel.send(content, allowed_mentions=mentions, **extra)


# What a race's thread needs of the bot in the race's channel, beyond View Channels.
THREAD_PERMISSIONS = ("create_public_threads", "send_messages_in_threads")
THREAD_ARCHIVE_MINUTES = 1440  # a quiet day hides the thread: longer than any race


class ThreadPost:
    """Posts in a race's thread (Send Messages in Threads, checked when it was opened):
    the start's mention, which also adds the racers to the thread, and the result."""

    def __init__(self, thread: Any) -> None:
        self.thread = thread

    async def __call__(self, content: str, view: Any, file: Any = None) -> Any:
        mentions = discord.AllowedMentions(everyone=False, roles=False, users=True)
        extra = _extras(view, file)
        return await self.thread.send(content, allowed_mentions=mentions, **extra)


def share_line(info: p.RaceInfo, mine: p.Ranked, locale: str) -> str:
    """A racer's result, spoiler-free (no card): race, deal code, place, time or counts."""
    if mine.finished and mine.time_ms is not None:
        result = text(locale, "share_won", time=format_time(mine.time_ms), moves=mine.moves)
    elif mine.resigned:
        result = text(locale, "standing_resigned")
    else:
        result = text(locale, "share_unfinished", foundation=mine.foundation, moves=mine.moves)
    return text(
        locale,
        "share_race",
        race=info.race,
        variant=variant_name(locale, info.settings.variant),
        code=engine.deal_code(int(info.seed or 0)),
        place=mine.rank,
        count=len(info.ranking or []),
        result=result,
    )


def my_line(ranking: list[p.Ranked], name: str, counters: Mapping[str, int]) -> p.Ranked | None:
    """The presser's line of a final ranking. The ranking names no Discord user, so it is
    the line whose counts are those of the presser's own game, by their name when
    several match."""
    moves = counters.get("moves")
    fits = [line for line in ranking if line.moves == moves]
    named = [line for line in fits if line.name == name]
    if len(named) == 1 or len(fits) != 1:
        return named[0] if len(named) == 1 else None
    return fits[0]


class RaceMessages(Part):
    """The race commands and race buttons (boards of racers are ``Boards``' own)."""

    @answering
    async def create_race(
        self,
        interaction: Interaction,
        /,
        deal: str | None = None,
        thread: bool | None = None,
        **settings: Any,
    ) -> None:
        """/solitaire race: open a race in this channel; the reply is the race message
        (with a thread of its own on it when ``thread`` is asked)."""
        if interaction.guild_id is None or interaction.channel is None:
            locale = locale_of(getattr(interaction, "guild_locale", None) or interaction.locale)
            await send(interaction, text(locale, "no_guild"))
            return
        if deal:
            seed = parse_deal(deal)
            if seed is None:
                await send(
                    interaction,
                    text(locale_of(interaction.locale), "bad_deal_code", code=deal[:40]),
                )
                return
            settings["seed"] = seed
        await self.open_race(interaction, settings, thread=thread)

    async def open_race(
        self, interaction: Interaction, settings: dict[str, Any], *, thread: bool | None = None
    ) -> None:
        """Create a race with ``settings``; the interaction's public response becomes the
        race message (a command's reply, or a new message under a Rematch press). A race
        has a thread of its own unless ``thread`` is False; only one asked for by name
        (True) tells its creator when it cannot have one."""
        locale = locale_of(getattr(interaction, "guild_locale", None) or interaction.locale)
        await interaction.response.defer(thinking=True)
        actor = self.actor(interaction)
        # The deferred ("thinking") response becomes the race message: its id goes into the
        # race's context, so the bot finds the message again after a restart.
        wanted = thread is not False
        settings.update(await self._message_context(interaction, locale, thread=wanted))
        create = p.CreateRace(**settings)
        info = (await self.client.expect(create, actor, p.RaceReply)).race
        self.desk.on_race(info)
        state = self.desk.state(info.race)
        assert state is not None
        sent = await interaction.edit_original_response(
            content=render_race(state, locale),
            view=watched_race_view(state.race, state.state, locale, state.start_mode),
        )
        if wanted:  # before the desk has the message: nothing is posted there until then
            await self._open_thread(interaction, state, sent, locale, quiet=thread is None)
        self.desk.attach(
            info.race, editable(interaction.channel, sent), locale, channel_id(interaction)
        )
        if info.your_game is not None:
            self.desk.racer(info.race, actor.user_id, racing=True)
        self.desk.herald(info.race, Herald(interaction))

    async def _open_thread(
        self,
        interaction: Interaction,
        state: RaceState,
        sent: Any,
        locale: str,
        *,
        quiet: bool = False,
    ) -> None:
        """Open the race's own thread on its message, where its start's mention and its
        result go. Without the permissions for it (or when Discord refuses), the race
        runs on without one and, unless ``quiet`` (the thread was not asked for by name),
        its creator is told why in one private line."""
        own = locale_of(interaction.locale)
        allowed = interaction.app_permissions
        missing = [name for name in THREAD_PERMISSIONS if not getattr(allowed, name)]
        if missing and quiet:
            return
        if missing:
            names = f" {text(own, 'and')} ".join(text(own, f"perm_{name}") for name in missing)
            await send(interaction, text(own, "thread_missing", permissions=names))
            return
        variant = variant_name(locale, state.info.settings.variant)
        name = text(locale, "race_thread_name", race=state.race, variant=variant)[:100]
        starter = editable(interaction.channel, sent).channel_message or sent
        try:
            made = await starter.create_thread(
                name=name, auto_archive_duration=THREAD_ARCHIVE_MINUTES
            )
        except discord.HTTPException as err:
            if not quiet:
                reason = err.text or err.status
                await send(interaction, text(own, "thread_failed", reason=reason))
            return
        self.desk.thread(state.race, ThreadPost(made))

    async def _message_context(
        self, interaction: Interaction, locale: str, *, thread: bool = False
    ) -> dict[str, Any]:
        """The guild and ``context`` of a race whose message is this deferred interaction's
        response."""
        original = await interaction.original_response()
        return self._context_of(interaction, original, locale, thread=thread)

    def _context_of(
        self, interaction: Interaction, message: Any, locale: str, *, thread: bool = False
    ) -> dict[str, Any]:
        """The guild and ``context`` of a race shown in ``message``: stored with the race,
        so the bot finds the message after a restart (and its thread, which has the
        message's id, when one was asked for)."""
        context: dict[str, Any] = {
            "channel_id": str(interaction.channel.id),
            "message_id": str(message.id),
            "locale": locale,
            "by": str(interaction.user.id),  # who opened it: the one who can start it
        }
        if thread:
            context["thread"] = True
        fields: dict[str, Any] = {"context": context}
        if interaction.guild_id is not None:
            fields["guild_id"] = str(interaction.guild_id)
        return fields

    async def reattach_races(self, guild_ids: list[int], channel_of: Any) -> int:
        """After a start: follow again every open race this bot opened in ``guild_ids`` and
        edit its message; returns how many. ``channel_of(id)`` is the cached channel or
        None. Races whose message the bot cannot reach are adopted on their next button
        press instead (``race_press``)."""
        attached = 0
        still_open: set[int] = set()
        for guild_id in guild_ids:
            listed = p.OpenRaces(guild_id=str(guild_id))
            races = (await self.client.expect(listed, None, p.OpenRacesReply)).races
            still_open.update(race.race for race in races)
            for race in races:
                context = race.context or {}
                if race.race in self.desk.races or "message_id" not in context:
                    continue
                channel = channel_of(int(context.get("channel_id", 0)))
                if channel is None or not hasattr(channel, "get_partial_message"):
                    continue
                creator = race.creator
                user_id = int((creator.user or "").removeprefix("discord:") or 0)
                actor = Actor(user_id, creator.name, introduce=False)
                got = await self.client.expect(p.GetRace(race=race.race), actor, p.RaceReply)
                self.desk.on_race(got.race)
                message = channel.get_partial_message(int(context["message_id"]))
                locale = locale_of(context.get("locale"))
                self.desk.attach(race.race, RaceMessageHandle(message, None), locale, channel.id)
                self.desk.herald(race.race, ChannelPost(channel))
                thread = context.get("thread") and channel.get_thread(int(context["message_id"]))
                if thread:  # Discord gives a thread started on a message the message's id
                    self.desk.thread(race.race, ThreadPost(thread))
                attached += 1
        self.desk.forget_racers(lambda race: race not in still_open)
        return attached

    @answering
    async def race_press(self, interaction: Interaction, race: int, op: str) -> None:
        """A button of a race message: Join, Leave, Start, Open my board; at the end
        Play this deal, Rematch, Share; ``quit``: Leave confirmed in a running race.

        Join, Leave and Start answer with a silent update: the race message itself shows
        who is in (a line of one's own for each press would only add noise); refusals
        are said privately."""
        if op == "rematch":
            await self.rematch(interaction, race)
            return
        if op in ("board", "open", "play", "share"):
            await interaction.response.defer(ephemeral=True, thinking=True)
            actor = self.actor(interaction)
            info = await self._race_info(interaction, race)
            await RACE_PRESSES[op](self, interaction, actor, info)
            return
        await interaction.response.defer()
        actor = self.actor(interaction)
        info = await self._race_info(interaction, race)
        if op == "leave" and info.your_game is not None:
            refusal = self._leave_refusal(info, actor)
            if refusal is not None:
                await send(interaction, refusal[0], view=refusal[1])
                return
        request = RACE_REQUESTS.get(op, p.StartRace)
        await self.client.ask(request(race=race), actor)
        if op != "start":
            self.desk.racer(race, actor.user_id, racing=op == "join")
        self.desk.herald(race, Herald(interaction))  # answered: its followups are free now

    def _leave_refusal(self, info: p.RaceInfo, actor: Actor) -> tuple[str, Any] | None:
        """Why a tap on Leave does not leave at once: in a running race leaving resigns,
        so it asks first (a button to confirm); the creator alone in the lobby stays (with
        others there, the first of them to have joined may start it once the creator
        leaves: docs/protocol.md). None: leave."""
        if info.state == "running":
            return text(actor.locale, "leave_resigns"), quit_view(info.race, actor.locale)
        opener = (info.settings.context or {}).get("by")
        alone = len(info.players) <= 1
        if info.state == "lobby" and opener == str(actor.user_id) and alone:
            return text(actor.locale, "creator_stays"), None
        return None

    async def rematch(self, interaction: Interaction, race: int) -> None:
        """Rematch: the server's ``rematch`` (same settings, a new deal): the first racer
        to press opens it, and a message the press posts becomes its race message; a
        racer pressing later joins that race, and their message says so in one line.

        Discord is answered first (a silent update, well within its 3 seconds); the
        server is asked after."""
        await interaction.response.defer()
        info = await self._race_info(interaction, race)
        if info.your_game is None:  # only its racers may ask (the server agrees)
            await send(interaction, text(locale_of(interaction.locale), "not_racing"))
            return
        locale = locale_of(getattr(interaction, "guild_locale", None) or interaction.locale)
        actor = self.actor(interaction)
        # The message this press posts becomes the rematch's message if it opens the
        # rematch: its id goes to the server, never the old race's (a press joining it is
        # ignored). A race that asked for a thread has a rematch with one.
        posted = await send(interaction, text(locale, "rematch_opening"), ephemeral=False)
        threaded = bool((info.settings.context or {}).get("thread"))
        where = self._context_of(interaction, posted, locale, thread=threaded)
        rematch = p.Rematch(race=race, **where)
        new = (await self.client.expect(rematch, actor, p.RaceReply)).race
        self.desk.on_race(new)
        entry = self.desk.races.get(new.race)
        if entry is not None and entry.message is not None:  # another press opened it
            line = text(locale, "rematch_joined", name=plain_name(actor.name), race=new.race)
            await posted.edit(content=line, view=None)
        else:
            state = self.desk.state(new.race)
            assert state is not None
            await posted.edit(
                content=render_race(state, locale),
                view=watched_race_view(state.race, state.state, locale, state.start_mode),
            )
            if threaded:
                await self._open_thread(interaction, state, posted, locale, quiet=True)
            self.desk.attach(
                new.race, editable(interaction.channel, posted), locale, channel_id(interaction)
            )
            self.desk.herald(new.race, Herald(interaction))
        self.desk.racer(new.race, actor.user_id, racing=True)

    async def _race_info(self, interaction: Interaction, race: int) -> p.RaceInfo:
        """The race's state as the presser may see it; a race message from before a
        restart is adopted on the way (never the start's mention message)."""
        actor = self.actor(interaction)
        unknown = self.desk.state(race) is None  # asked first: the reply makes it known
        info = (await self.client.expect(p.GetRace(race=race), actor, p.RaceReply)).race
        if unknown and interaction.message is not None:
            self.desk.on_race(info)
            view = getattr(interaction.message, "view", None)
            children = view.children if view is not None else []
            # Never the start's mention or a Leave confirmation: only a race message has
            # Join, Leave, Start or Open my board on it.
            mention = any(getattr(child, "op", None) in ("open", "quit") for child in children)
            if info.state != "finished" and not mention:
                locale = locale_of(getattr(interaction, "guild_locale", None) or actor.locale)
                message = editable(interaction.channel, interaction.message)
                self.desk.attach(race, message, locale, channel_id(interaction))
        return info

    async def _open_board(self, interaction: Interaction, actor: Actor, info: p.RaceInfo) -> None:
        """Open my board: from the countdown on, face down until the start (the server's
        view), when it is redrawn live by itself (``Boards.race_started``)."""
        if info.your_game is None:
            await send(interaction, text(actor.locale, "not_racing"))
            return
        if info.state == "lobby":
            await send(interaction, text(actor.locale, "race_not_started"))
            return
        notice = None
        if info.state == "countdown":
            when = f"<t:{(info.starts_at or 0) // 1000}:R>"
            notice = text(actor.locale, "board_before_start", when=when)
        await self.boards.show_board(interaction, info.your_game, notice=notice)

    async def _play_deal(self, interaction: Interaction, actor: Actor, info: p.RaceInfo) -> None:
        """Play this deal: a practice game on the race's deal, once it is revealed."""
        if info.seed is None:
            await send(interaction, error_text(actor.locale, "race_not_finished"))
            return
        guild = str(interaction.guild_id) if interaction.guild_id is not None else None
        practice = p.Practice(
            variant=info.settings.variant,
            options=info.settings.options or {},
            seed=int(info.seed),
            guild_id=guild,
        )
        reply = await self.client.expect(practice, actor, p.ViewReply)
        await self.boards.show_board(interaction, reply.game, board_reply(reply))

    async def _share(self, interaction: Interaction, actor: Actor, info: p.RaceInfo) -> None:
        """Share: my result as a line to copy, with nothing of the cards in it."""
        if info.ranking is None or info.seed is None:
            await send(interaction, error_text(actor.locale, "race_not_finished"))
            return
        if info.your_game is None:
            await send(interaction, text(actor.locale, "not_racing"))
            return
        reply = await self.client.expect(p.GetView(game=info.your_game), actor, p.ViewReply)
        mine = my_line(info.ranking, actor.name, reply.view.counters)
        if mine is None:
            await send(interaction, text(actor.locale, "not_racing"))
            return
        await send(interaction, shared(share_line(info, mine, actor.locale), actor.locale))


# The request each race button makes of the server (Start's is the default).
RACE_REQUESTS: Mapping[str, type[p.JoinRace | p.LeaveRace | p.StartRace]] = {
    "join": p.JoinRace,
    "leave": p.LeaveRace,
    "quit": p.LeaveRace,
}
RacePress = Callable[[RaceMessages, Interaction, Actor, p.RaceInfo], Awaitable[None]]
RACE_PRESSES: Mapping[str, RacePress] = {
    "board": RaceMessages._open_board,
    "open": RaceMessages._open_board,
    "play": RaceMessages._play_deal,
    "share": RaceMessages._share,
}
