"""Race messages: opening a race in a channel, its buttons, and finding it again.

A race message is posted by ``/solitaire race`` and kept current by the race desk
(bot/desk.py); its buttons (join, leave, start, open my board) land here. After a
restart the bot re-attaches the messages of open races it can reach, and adopts any
other on its next button press.
"""

from __future__ import annotations

from typing import Any

import discord

import engine
from bot.answers import Interaction, answering, send
from bot.boards import Boards
from bot.client import Actor
from bot.i18n import locale_of, text
from bot.races import render_race
from bot.views import race_view


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


def editable(channel: Any, message: Any) -> RaceMessageHandle:
    """Edit through the channel (no 15-minute limit of interaction webhooks) when possible."""
    partial = None
    if hasattr(channel, "get_partial_message") and hasattr(message, "id"):
        partial = channel.get_partial_message(message.id)
    return RaceMessageHandle(partial, message)


class RaceMessages(Boards):
    """The race commands and race buttons (boards of racers are ``Boards``' own)."""

    @answering
    async def create_race(
        self, interaction: Interaction, /, deal: str | None = None, **settings: Any
    ) -> None:
        """/solitaire race: open a race in this channel; the reply is the race message."""
        locale = locale_of(getattr(interaction, "guild_locale", None) or interaction.locale)
        if interaction.guild_id is None or interaction.channel is None:
            await send(interaction, text(locale, "no_guild"))
            return
        await interaction.response.defer(thinking=True)
        actor = self.actor(interaction)
        if deal:
            seed = parse_deal(deal)
            if seed is None:
                await send(interaction, text(actor.locale, "bad_deal_code", code=deal[:40]))
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
        self.desk.attach(info["race"], editable(interaction.channel, sent), locale)

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

    @answering
    async def race_press(self, interaction: Interaction, race: int, op: str) -> None:
        """Join, Leave, Start or Open my board on a race message."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        actor = self.actor(interaction)
        if self.desk.state(race) is None and interaction.message is not None:
            info = (await self.client.request("get_race", actor, race=race))["race"]
            self.desk.on_race(info)  # adopt a race message from before a restart
            if info["state"] != "finished":
                locale = locale_of(getattr(interaction, "guild_locale", None) or actor.locale)
                self.desk.attach(race, editable(interaction.channel, interaction.message), locale)
        if op == "board":
            info = (await self.client.request("get_race", actor, race=race))["race"]
            if info.get("your_game") is None:
                await send(interaction, text(actor.locale, "not_racing"))
                return
            await self.show_board(interaction, info["your_game"])
            return
        kind = {"join": "join_race", "leave": "leave_race", "start": "start_race"}[op]
        await self.client.request(kind, actor, race=race)
        key = {"join": "joined", "leave": "left", "start": "started"}[op]
        await send(interaction, text(actor.locale, key, race=race))
