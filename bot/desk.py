"""The race desk: keeps each race's channel message in step with the race.

Events from the server client land in ``on_event``/``on_race``; they update the
race's ``RaceState`` at once and mark its message dirty. One background task
edits dirty messages through the ``EditCoalescer``, so however fast a race moves
its message is edited at most once per interval, always with the latest state.
A failed edit (message deleted, permissions gone) is logged and never stops the
desk.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import time
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import discord
import msgspec

from bot.coalesce import EditCoalescer
from bot.i18n import text
from bot.race_buttons import start_view
from bot.races import RaceState, render_race, result_line
from bot.result_card import result_png, share_grid
from bot.state import read_json, write_atomically
from bot.watch_buttons import watched_race_view
from server import protocol as p

log = logging.getLogger(__name__)

RACERS_FILE = "racers.json"  # who races through this bot, per unfinished race (state folder)


class RaceMessage(Protocol):
    """A channel message the bot can edit (``discord.PartialMessage`` in production)."""

    async def edit(self, *, content: str, view: Any) -> Any: ...


# Posts a new message in a race's channel (content, view, file=None): the start's mention,
# the result card.
Herald = Callable[..., Awaitable[Any]]
# Redraws a message of another kind that spends a channel's edits (an arena's standings,
# bot/arenas.py); True once it showed its last state and the desk may forget it.
Redraw = Callable[[], Awaitable[bool]]


@dataclass
class DeskEntry:
    """One race the desk follows: its state, its message and the message's language; the
    Discord users racing in it through this bot (to mention at the start) and how to post
    that mention; and the race's thread, where the mention and the result go instead."""

    state: RaceState
    locale: str = "en"
    message: RaceMessage | None = None
    racers: dict[int, None] = field(default_factory=dict)
    herald: Herald | None = None
    mention_due: bool = False
    thread: Herald | None = None  # posts in the race's own thread, when it has one


class RaceDesk:
    """Every race message this bot keeps up to date."""

    def __init__(
        self,
        interval: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
        *,
        racers_file: Path | None = None,
        channel_window: float = 5.0,
    ) -> None:
        self.races: dict[int, DeskEntry] = {}
        # The Discord users racing through this bot in each unfinished race, kept in
        # ``racers_file`` (None: in memory only): the server's race names no Discord
        # id, so a bot restarted in a countdown still mentions them at the start.
        self.racers_file = racers_file
        self.kept_racers: dict[int, list[int]] = (
            read_json(racers_file, dict[int, list[int]], {}) if racers_file is not None else {}
        )
        # Other messages kept current within the same budgets, by key (never a race id).
        self.others: dict[Hashable, Redraw] = {}
        # Discord: 5 edits per 5 s in a channel, whichever of its messages they edit.
        self.coalescer: EditCoalescer[Hashable] = EditCoalescer(
            interval, channel_edits=5, channel_window=channel_window
        )
        self.clock = clock
        self.edits = 0  # message edits made, for operators and tests
        self.mentions = 0  # start mentions posted
        self.results = 0  # result cards posted
        # Called with a race's id when it starts (boards opened in the countdown go live).
        self.on_start: Callable[[int], None] | None = None
        self._wake = asyncio.Event()
        self._busy: set[Hashable] = set()  # channels whose edits are under way

    # ------------------------------------------------------------ input

    def on_race(self, info: p.RaceInfo) -> None:
        """A race's full state arrived (a reply, or a resync after a reconnect)."""
        entry = self.races.get(info.race)
        if entry is None:
            entry = self.races[info.race] = DeskEntry(RaceState(info))
            entry.racers = dict.fromkeys(self.kept_racers.get(info.race, []))
        elif info.seq >= entry.state.seq:
            entry.state = RaceState(info, entry.state.end_reason)
        else:
            return
        self._mark(info.race)

    def on_event(self, event: p.Event) -> None:
        """A race event arrived; races the desk does not follow are ignored."""
        entry = self.races.get(event.race)
        if entry is not None and entry.state.apply(event):
            if isinstance(event.event, p.StartEvent):
                entry.mention_due = bool(entry.racers)
                if self.on_start is not None:
                    self.on_start(event.race)
            self._mark(event.race)

    def racer(self, race: int, user_id: int, *, racing: bool) -> None:
        """The Discord user ``user_id`` joined (``racing``) or left ``race`` through this bot."""
        entry = self.races.get(race)
        if entry is None:
            return
        if racing:
            entry.racers[user_id] = None
        else:
            entry.racers.pop(user_id, None)
        self._keep_racers(race, list(entry.racers))

    def forget_racers(self, over: Callable[[int], bool]) -> None:
        """Forget the kept racers of the races ``over`` says ended (while the bot was away)."""
        for race in [race for race in self.kept_racers if over(race)]:
            self._keep_racers(race, [])

    def _keep_racers(self, race: int, racers: list[int]) -> None:
        """Write who races in ``race`` (nobody: the race is forgotten) to the state folder."""
        if racers:
            self.kept_racers[race] = racers
        elif self.kept_racers.pop(race, None) is None:
            return
        if self.racers_file is None:
            return
        try:
            write_atomically(self.racers_file, msgspec.json.encode(self.kept_racers))
        except OSError as err:  # they are still mentioned unless the bot restarts
            log.warning("racers cannot be kept in %s: %s", self.racers_file, err)

    def herald(self, race: int, herald: Herald) -> None:
        """Post ``race``'s start mention with ``herald`` (the freshest way to post there)."""
        entry = self.races.get(race)
        if entry is not None:
            entry.herald = herald

    def thread(self, race: int, post: Herald) -> None:
        """``race`` has a thread of its own: its start's mention and its result line are
        posted there with ``post`` (the race message stays the standings)."""
        entry = self.races.get(race)
        if entry is not None:
            entry.thread = post

    def attach(
        self, race: int, message: RaceMessage, locale: str, channel: Hashable = None
    ) -> None:
        """Show ``race`` in ``message`` from now on (its state must be known); its edits
        spend ``channel``'s budget (the channel's id)."""
        entry = self.races[race]
        entry.message, entry.locale = message, locale
        if channel is not None:
            self.coalescer.place(race, channel)
        self._mark(race)

    def keep(self, key: Hashable, channel: Hashable, redraw: Redraw) -> None:
        """Keep another message of ``channel`` current (an arena's standings): each time
        ``touch(key)`` says it changed, ``redraw`` edits it, as often as the message's
        interval and the channel's budget, shared with its race messages, allow."""
        self.others[key] = redraw
        self.coalescer.place(key, channel)
        self._mark(key)

    def touch(self, key: Hashable) -> None:
        """The state behind the message kept under ``key`` changed."""
        if key in self.others:
            self._mark(key)

    def state(self, race: int) -> RaceState | None:
        """What the desk knows about ``race``."""
        entry = self.races.get(race)
        return entry.state if entry else None

    def _mark(self, key: Hashable) -> None:
        self.coalescer.mark(key)
        self._wake.set()

    # ------------------------------------------------------------ output

    async def run(self) -> None:
        """Edit dirty messages, each no more often than the interval and its channel's
        budget allow; forever. Each channel's edits run in a task of their own (one after
        another within it), so a rate-limit wait in one channel stalls no other."""
        async with asyncio.TaskGroup() as group:
            while True:
                due: dict[Hashable, list[Hashable]] = {}
                for race in self.coalescer.due(self.clock(), busy=self._busy):
                    due.setdefault(self.coalescer.channel_of(race), []).append(race)
                for channel, races in due.items():
                    self._busy.add(channel)
                    group.create_task(self._edit_channel(channel, races))
                wait = self.coalescer.next_due(self.clock(), busy=self._busy)
                self._wake.clear()
                # asyncio.timeout, not wait_for: Python 3.11's wait_for can swallow a
                # cancel that comes as the event is set, and the loop would never stop.
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(wait):
                        await self._wake.wait()

    async def _edit_channel(self, channel: Hashable, keys: list[Hashable]) -> None:
        """Edit the due messages of one channel in turn, then let the desk look again."""
        try:
            for key in keys:
                if key in self.others:
                    await self._edit_other(key)
                elif isinstance(key, int):
                    await self._edit(key)
        finally:
            self._busy.discard(channel)
            self._wake.set()

    async def _edit(self, race: int) -> None:
        entry = self.races.get(race)
        if entry is None:
            return
        if entry.message is None:
            if entry.state.state == "finished":
                del self.races[race]
                self._keep_racers(race, [])
            return
        state = entry.state
        content = render_race(state, entry.locale)
        view = watched_race_view(race, state.state, entry.locale, state.start_mode)
        try:
            await entry.message.edit(content=content, view=view)
            self.edits += 1
        except discord.HTTPException as err:
            log.warning("cannot edit the message of race %s: %s", race, err)
        if entry.mention_due:
            entry.mention_due = False
            await self._mention(race, entry)
        if state.state == "finished" and state.info.ranking:  # an expired lobby: no result
            post = entry.thread or entry.herald
            if post is not None:
                await self._post_result(race, entry, post)
            self.coalescer.forget(race)
            del self.races[race]
            self._keep_racers(race, [])

    async def _edit_other(self, key: Hashable) -> None:
        try:
            final = await self.others[key]()
        except (discord.HTTPException, LookupError) as err:
            log.warning("cannot edit message %s: %s", key, err)
            return
        if final:
            self.coalescer.forget(key)
            del self.others[key]

    async def _post_result(self, race: int, entry: DeskEntry, post: Herald) -> None:
        """The result card where everyone sees it (the race's thread, else its channel;
        an edit notifies nobody): the podium in one line, the spoiler-free grid to
        share, and the picture of the standings (bot/result_card.py)."""
        state, locale = entry.state, entry.locale
        content = f"{result_line(state, locale)}\n{share_grid(state, locale)}"
        card = discord.File(io.BytesIO(result_png(state, locale)), filename=f"race-{race}.png")
        try:
            await post(content[:2000], None, file=card)
            self.results += 1
        except (discord.HTTPException, LookupError) as err:
            log.warning("cannot post the result of race %s: %s", race, err)

    async def _mention(self, race: int, entry: DeskEntry) -> None:
        """Ping the racers once the race starts: edits never notify anyone, so this is a
        message of its own, naming only the users who raced through this bot (in the
        race's thread when it has one: a mention there also adds them to it)."""
        post = entry.thread or entry.herald
        if post is None:
            return
        mentions = " ".join(f"<@{user}>" for user in entry.racers)
        content = text(entry.locale, "race_started_ping", race=race, mentions=mentions)
        try:
            await post(content[:2000], start_view(race, entry.locale))
            self.mentions += 1
        except (discord.HTTPException, LookupError) as err:
            log.warning("cannot mention the racers of race %s: %s", race, err)
