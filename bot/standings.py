"""Standings and figures: the leaderboards and a player's statistics, as private replies."""

from __future__ import annotations

from typing import Any

from bot.answers import Interaction, answering, send
from bot.boards import Boards
from bot.figures import render_leaderboard, render_stats
from bot.ratings import render_rating_board, render_ratings


class Standings(Boards):
    """The ``/solitaire leaderboard`` and ``/solitaire stats`` commands."""

    @answering
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
            await send(interaction, render_rating_board(reply, actor.locale, scope))
            return
        kind = "daily_around" if around else "daily_board"
        reply = await self.client.request(kind, actor, **fields)
        await send(interaction, render_leaderboard(reply, actor.locale, scope))

    @answering
    async def stats(self, interaction: Interaction) -> None:
        """/solitaire stats: my all-time figures and my ratings per variant."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        actor = self.actor(interaction)
        reply = await self.client.request("player_stats", actor)
        ratings = await self.client.request("player_ratings", actor)
        shown = f"{render_stats(reply, actor.locale)}\n\n{render_ratings(ratings, actor.locale)}"
        await send(interaction, shown[:2000])
