"""Standings and figures: the leaderboards and a player's statistics, as private replies."""

from __future__ import annotations

from bot.answers import Interaction, answering, send
from bot.figures import render_leaderboard, render_stats
from bot.part import Part
from bot.ratings import render_rating_board, render_ratings
from server import protocol as p


class Standings(Part):
    """The ``/solitaire leaderboard`` and ``/solitaire stats`` commands."""

    @answering
    async def leaderboard(
        self, interaction: Interaction, variant: str, period: str, scope: str, around: bool
    ) -> None:
        """/solitaire leaderboard: today's (or all-time) ranking, global or this server."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        actor = self.actor(interaction)
        guild = None
        if scope == "server" and interaction.guild_id is not None:
            guild = str(interaction.guild_id)
        if period == "all_time":
            board = p.AllTimeBoard(variant=variant, guild_id=guild, around_me=around)
            rated = await self.client.expect(board, actor, p.AllTimeReply)
            await send(interaction, render_rating_board(rated, actor.locale, scope))
            return
        daily: p.DailyAround | p.DailyBoard = (
            p.DailyAround(variant=variant, guild_id=guild)
            if around
            else p.DailyBoard(variant=variant, guild_id=guild)
        )
        reply = await self.client.expect(daily, actor, p.BoardReply)
        await send(interaction, render_leaderboard(reply, actor.locale, scope))

    @answering
    async def stats(self, interaction: Interaction) -> None:
        """/solitaire stats: my all-time figures and my ratings per variant."""
        await interaction.response.defer(ephemeral=True, thinking=True)
        actor = self.actor(interaction)
        reply = await self.client.expect(p.PlayerStats(), actor, p.StatsReply)
        ratings = await self.client.expect(p.PlayerRatings(), actor, p.PlayerRatingsReply)
        shown = f"{render_stats(reply, actor.locale)}\n\n{render_ratings(ratings, actor.locale)}"
        await send(interaction, shown[:2000])
