"""Which service answers each request: one registry for the closed set of client messages.

``hello`` and ``set_profile`` are the connection's own (they decide who the connection
is and speaks as: server/transport/connection.py); every other
client message has exactly one route here, and tests/server/test_handlers.py holds the
registry to the protocol's closed set. A player route gets the player the message acts
for; a service route (``open_races``) is for a service client acting for itself.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from server import protocol as p
from server.core.identity import Principal
from server.services.subscriber import Subscriber
from server.services.wiring import Services

PlayerHandler = Callable[[Principal, Any, Subscriber], Awaitable[p.Message]]
ServiceHandler = Callable[[Any], Awaitable[p.Message]]


@dataclass(frozen=True)
class Routes:
    """The handler of every request type: for a player, or for a service itself."""

    player: dict[type[p.Request], PlayerHandler]
    service: dict[type[p.Request], ServiceHandler]


def routes(s: Services) -> Routes:
    """The routes of every client message but ``hello`` and ``set_profile``, to ``s``."""
    return Routes(
        player={
            p.CreateRace: lambda who, m, sub: s.races.create(who, m, sub),
            p.JoinRace: lambda who, m, sub: s.races.join(who, m, sub),
            p.LeaveRace: lambda who, m, sub: s.races.leave(who, m),
            p.Rematch: lambda who, m, sub: s.races.rematch(who, m, sub),
            p.StartRace: lambda who, m, sub: s.races.start(who, m),
            p.GetRace: lambda who, m, sub: s.races.get(who, m, sub),
            p.Resume: lambda who, m, sub: s.races.resume(who, m, sub),
            p.Practice: lambda who, m, sub: s.deals.practice(who, m),
            p.PracticeRecord: lambda who, m, sub: s.play.practice_record(who, m),
            p.Move: lambda who, m, sub: s.play.move(who, m, sub),
            p.Undo: lambda who, m, sub: s.play.undo(who, m, sub),
            p.Hint: lambda who, m, sub: s.play.hint(who, m),
            p.Check: lambda who, m, sub: s.play.check(who, m),
            p.JumpBack: lambda who, m, sub: s.play.jump_back(who, m),
            p.Resign: lambda who, m, sub: s.play.resign(who, m),
            p.AutoFinish: lambda who, m, sub: s.play.auto_finish(who, m),
            p.GetView: lambda who, m, sub: s.play.get_view(who, m),
            p.DailyInfo: lambda who, m, sub: s.deals.daily(who, m),
            p.DailyStart: lambda who, m, sub: s.dailies.start(who, m),
            p.DailyBoard: lambda who, m, sub: s.boards.daily_board(who, m),
            p.DailyAround: lambda who, m, sub: s.boards.daily_around(who, m),
            p.PlayerStats: lambda who, m, sub: s.boards.player_stats(who, m),
            p.RaceHistory: lambda who, m, sub: s.boards.race_history(who, m),
            p.RaceResult: lambda who, m, sub: s.boards.race_result(who, m),
            p.GetReplay: lambda who, m, sub: s.boards.replay(who, m),
            p.AllTimeBoard: lambda who, m, sub: s.boards.all_time(who, m),
            p.MyGames: lambda who, m, sub: s.listings.my_games(who, m),
            p.DailyArchive: lambda who, m, sub: s.archive.days(who, m),
            p.GetRaceRatings: lambda who, m, sub: s.ratings.race_ratings(who, m),
            p.PlayerRatings: lambda who, m, sub: s.ratings.player_ratings(who, m),
            p.FindRace: lambda who, m, sub: s.quick_match.find(who, m, sub),
            p.CancelFind: lambda who, m, sub: s.quick_match.cancel(who, m),
            p.CreateArena: lambda who, m, sub: s.arenas.create(who, m, sub),
            p.JoinArena: lambda who, m, sub: s.arenas.join(who, m, sub),
            p.PauseArena: lambda who, m, sub: s.arenas.pause(who, m),
            p.LeaveArena: lambda who, m, sub: s.arenas.leave(who, m),
            p.GetArena: lambda who, m, sub: s.arenas.get(who, m, sub),
            p.ListArenas: lambda who, m, sub: s.arenas.open_arenas(who, m),
            p.ActivityRace: lambda who, m, sub: s.activities.race(who, m, sub),
            p.ListLiveRaces: lambda who, m, sub: s.watching.live(who, m),
            p.WatchRace: lambda who, m, sub: s.watching.watch(who, m, sub),
            p.UnwatchRace: lambda who, m, sub: s.watching.stop(who, m, sub),
            p.GhostRace: lambda who, m, sub: s.ghosts.start(who, m, sub),
            p.GetGhost: lambda who, m, sub: s.ghosts.get(who, m, sub),
            p.GetPreferences: lambda who, m, sub: s.preferences.get(who, m),
            p.SetPreferences: lambda who, m, sub: s.preferences.set(who, m),
        },
        service={
            p.OpenRaces: lambda m: s.listings.open_races(m),
        },
    )
