"""The race of a Discord Activity: everyone in the same Activity instance is in the
same race.

Discord gives every participant of an Activity the same instance id (docs/discord.md,
section 11). The first to open the page creates a race for it (its ``context`` names the
instance, server/store/activity.py), starting by hand so its creator starts it when the
others are in; everyone after joins that race while it is in its lobby or countdown, and
watches it once it runs. Once it is finished the next one to ask opens a new race for
the same instance. An instance lock in PostgreSQL makes the find-or-create one step
across server processes.

Trust: the instance id comes from the player's page. Knowing it lets a player into that
Activity's race, as a race code does; a race reaches the boards by the usual rules
(its deal dealt by the server, the player's identity).
"""

from __future__ import annotations

from server import protocol as p
from server.core.identity import Principal
from server.protocol.errors import RaceError
from server.services.races import RaceService
from server.services.subscriber import Subscriber
from server.store.activity import CONTEXT_KEY, ActivityStore

# The race an Activity opens: the settings a race created in the page starts with.
COUNTDOWN_S = 5
TIME_LIMIT_S = 15 * 60


class ActivityRaces:
    """Answers ``activity_race``."""

    def __init__(self, store: ActivityStore, races: RaceService) -> None:
        self.store = store
        self.races = races

    async def race(
        self, who: Principal, message: p.ActivityRace, subscriber: Subscriber | None
    ) -> p.RaceReply:
        """The instance's race, joined while it can be; created when there is none."""
        async with self.store.instance_lock(message.instance_id):
            race_id = await self.store.open_race(message.instance_id)
            if race_id is None:
                create = p.CreateRace(
                    id=message.id,
                    variant=message.variant,
                    options=message.options,
                    start="manual",
                    countdown_s=COUNTDOWN_S,
                    time_limit_s=TIME_LIMIT_S,
                    guild_id=message.guild_id,
                    context={CONTEXT_KEY: message.instance_id},
                )
                return await self.races.create(who, create, subscriber)
        reply = await self.races.get(who, p.GetRace(id=message.id, race=race_id), subscriber)
        joined = any(player.player == who.player_id for player in reply.race.players)
        if joined or reply.race.state not in ("lobby", "countdown"):
            return reply  # in it already, or it runs: the page watches
        try:
            return await self.races.join(who, p.JoinRace(id=message.id, race=race_id), subscriber)
        except RaceError as err:
            if err.code != "race_full":
                raise
            return reply  # full: watched like a race one cannot join
