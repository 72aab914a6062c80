"""Ratings on Discord: quick match from a command, ratings in the profile and in a rated
race's result, and the rating board (the all-time leaderboard).

``/solitaire quickmatch`` asks the server for a race (``find_race``) and answers
privately that the player is waiting; once the server finds one it tells the bot
(``match_found``, for that player), and the bot tells the player through the same
interaction, with the button that opens their board. When the race is rated, its
rating changes come to the bot (``rating_changes``) and go to every player it found the
race for. The renderers are pure functions of server replies, like bot/figures.py; the
words are in bot/i18n.py; docs/ratings.md says what the numbers mean.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

import discord

from bot.answers import Interaction, answering, send
from bot.boards import Boards
from bot.client import Actor
from bot.i18n import text, variant_name
from bot.part import Part
from bot.race_buttons import start_view
from bot.races import plain_name
from server import protocol as p

log = logging.getLogger(__name__)

# Seconds an interaction's followup is trusted (Discord: 15 minutes).
FOLLOWUP_LIFETIME = 14 * 60.0


def rating_text(rating: int, provisional: bool) -> str:
    """A rating as people read it: "1562", or "1500?" while provisional."""
    return f"{rating}{'?' if provisional else ''}"


def render_rating_board(reply: p.AllTimeReply, locale: str, scope: str) -> str:
    """An ``all_time_board`` reply (leaderboard): players by rating, "me" in bold, and how
    many rated players are still provisional (not on the board yet)."""
    scope_text = text(locale, "scope_server" if scope == "server" else "scope_global")
    lines = [
        text(
            locale,
            "all_time_title",
            variant=variant_name(locale, reply.variant),
            scope=scope_text,
        )
    ]
    me = reply.me
    for line in reply.lines[:25]:
        entry = text(
            locale,
            "rating_line",
            rank=line.rank,
            name=plain_name(line.name),
            rating=line.rating,
            deviation=line.deviation,
            rated=line.rated_games,
        )
        lines.append(f"**{entry}**" if me is not None and line.player == me.player else entry)
    if len(lines) == 1:
        lines.append(text(locale, "empty_list"))
    total = text(locale, "rating_board_total", total=reply.total, provisional=reply.provisional)
    lines.append(total)
    return "\n".join(lines)[:2000]


def render_ratings(reply: p.PlayerRatingsReply, locale: str) -> str:
    """A ``ratings`` reply (player_ratings) as the profile's lines: one per variant."""
    lines = [text(locale, "ratings_title")]
    for pool in reply.ratings[:20]:
        key = "ratings_line_provisional" if pool.provisional else "ratings_line"
        lines.append(
            text(
                locale,
                key,
                variant=variant_name(locale, pool.variant),
                rating=rating_text(pool.rating, pool.provisional),
                deviation=pool.deviation,
                rated=pool.games,
            )
        )
    if len(lines) == 1:
        lines.append(text(locale, "ratings_none"))
    return "\n".join(lines)


def render_rating_changes(message: p.RaceRatings, locale: str) -> str:
    """A ``rating_changes`` message: each rated player's place, new rating and change."""
    lines = [
        text(
            locale,
            "rated_title",
            race=message.race,
            variant=variant_name(locale, message.variant or ""),
        )
    ]
    for line in message.lines[:25]:
        change = line.change
        rating = rating_text(line.rating, line.provisional)
        lines.append(
            text(
                locale,
                "rated_line",
                place=line.place,
                name=plain_name(line.name),
                rating=rating,
                change=f"+{change}" if change >= 0 else f"−{-change}",
            )
        )
    return "\n".join(lines)[:2000]


def render_found(message: p.MatchFound, locale: str) -> str:
    """A ``match_found`` message: the race, who races, and when it starts."""
    race = message.race
    names = ", ".join(plain_name(s.name) for s in race.players)
    starts = race.starts_at
    key = "found_starts" if starts else "found_running"
    return text(
        locale,
        key,
        variant=variant_name(locale, race.settings.variant),
        players=names,
        when=f"<t:{starts // 1000}:R>" if starts else "",
    )


@dataclass
class Seeker:
    """A player waiting for a quick match, and where to tell them."""

    actor: Actor
    followup: Any
    since: float

    def fresh(self, now: float) -> bool:
        return now - self.since < FOLLOWUP_LIFETIME


class QuickMatches(Part):
    """``/solitaire quickmatch``, and what the server says unasked about quick matches."""

    def __init__(self, boards: Boards) -> None:
        super().__init__(boards)
        self.seeking: dict[str, Seeker] = {}  # principal → the player waiting
        self.found: dict[int, list[Seeker]] = {}  # race → its players told here
        self._told: set[asyncio.Task[None]] = set()

    @answering
    async def quick_match(self, interaction: Interaction, variant: str, rated: bool) -> None:
        """/solitaire quickmatch: wait for a race with players of close ratings."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        actor = self.actor(interaction)
        find = p.FindRace(variant=variant, rated=rated)
        reply = await self.client.expect(find, actor, p.Finding)
        self.seeking[actor.principal] = Seeker(actor, interaction.followup, self.monotonic())
        key = "looking_rated" if rated else "looking"
        name = variant_name(actor.locale, variant)
        await send(interaction, text(actor.locale, key, variant=name, rating=reply.rating))

    def on_notice(self, message: p.ServerMessage) -> None:
        """A race found for a player waiting here, or a rated race's changes; anything
        else is the boards' (a game proven lost)."""
        if isinstance(message, p.MatchFound):
            self._tell(self._found(message))
        elif isinstance(message, p.RaceRatings):
            self._tell(self._rated(message))
        else:
            self.boards.on_notice(message)

    def _tell(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._told.add(task)
        task.add_done_callback(self._told_done)

    def _told_done(self, task: asyncio.Task[None]) -> None:
        self._told.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("could not tell a player: %r", task.exception())

    async def _found(self, message: p.MatchFound) -> None:
        seeker = self.seeking.pop(message.user, None)
        if seeker is None:
            return  # asked through another bot process, or before a restart
        race = message.race.race
        self.found.setdefault(race, []).append(seeker)
        locale = seeker.actor.locale
        await seeker.followup.send(
            render_found(message, locale), view=start_view(race, locale), ephemeral=True
        )

    async def _rated(self, message: p.RaceRatings) -> None:
        now = self.monotonic()
        for seeker in self.found.pop(message.race, []):
            if not seeker.fresh(now):
                continue  # the interaction's followup has expired: their profile says it
            try:
                content = render_rating_changes(message, seeker.actor.locale)
                await seeker.followup.send(content, ephemeral=True)
            except discord.HTTPException as err:
                log.info("rating changes not delivered: %s", err)
