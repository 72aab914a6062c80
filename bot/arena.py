"""An arena's channel message: its standings as the server pushes them, as text.

``ArenaState`` holds the arena as the server gives it (the protocol's ``ArenaInfo``, an
``arena`` reply) and brings it up to date with the arena's pushed events: the standings
(the server's top ten, ranked by the server: the bot ranks nothing), a change of state,
and at the end the podium. ``render_arena`` is the channel message, ``render_podium`` the
line posted at the end, ``render_place`` a player's own place (the lines around it) for
their private answer. Pure: no Discord, no server; times are Discord timestamps
(``<t:…:R>``), which every client counts down by itself, so they cost no edits.
"""

from __future__ import annotations

from dataclasses import dataclass

from msgspec.structs import replace

from bot.i18n import text, variant_name
from bot.races import MEDALS, fitted, plain_name
from server import protocol as p


@dataclass
class ArenaState:
    """What the channel message shows about one arena: the server's ``ArenaInfo``, kept
    current by the arena's events (a player's own lines are not kept: the message is
    everyone's)."""

    info: p.ArenaInfo

    @property
    def arena(self) -> int:
        return self.info.arena

    @property
    def finished(self) -> bool:
        return self.info.state == "finished"

    def apply(self, body: p.ArenaEventBody) -> bool:
        """Take one pushed event in; False when it changes nothing the message shows (a
        player's next race or score, which are theirs alone)."""
        info = self.info
        if isinstance(body, p.ArenaStandingsEvent):
            if body.top == info.top and body.players == info.players:
                return False
            self.info = replace(info, top=body.top, players=body.players)
            return True
        if isinstance(body, p.ArenaStateEvent):
            if self.finished:
                return False  # the end is final: a late "ending" changes nothing
            podium = body.podium if body.podium is not None else info.podium
            self.info = replace(
                info,
                state=body.state,
                starts_at=body.starts_at,
                ends_at=body.ends_at,
                podium=podium,
            )
            return True
        return False


def arena_line(line: p.ArenaLine, locale: str) -> str:
    """One line of the standings: place, name, score, races and wins, 🔥 on a streak."""
    rank = f"{MEDALS.get(line.rank, '')}{line.rank}"
    return text(
        locale,
        "arena_line",
        rank=rank,
        name=plain_name(line.name),
        score=line.score,
        races=line.races,
        wins=line.wins,
        fire=" 🔥" if line.fire else "",
    )


def render_arena(arena: ArenaState, locale: str) -> str:
    """The arena's channel message: what it is, when it starts or ends, the top ten of
    its standings (the podium once it is over), within Discord's 2,000 units."""
    info = arena.info
    settings = info.settings
    title = text(
        locale, "arena_title", arena=info.arena, variant=variant_name(locale, settings.variant)
    )
    if settings.title:
        title += f" · {plain_name(settings.title)}"
    rated = text(locale, "arena_rated" if settings.rated else "arena_unrated")
    head = [
        title,
        text(
            locale,
            "arena_settings",
            minutes=settings.minutes,
            size=settings.race_size,
            race=max(1, settings.race_time_s // 60),
            rated=rated,
        ),
    ]
    if info.state == "upcoming":
        head.append(text(locale, "arena_upcoming", when=_timestamp(info.starts_at)))
    elif info.state == "running":
        head.append(text(locale, "arena_running", when=_timestamp(info.ends_at)))
    elif info.state == "ending":
        head.append(text(locale, "arena_ending"))
    else:
        head.append(text(locale, "arena_finished"))
    lines = info.podium if arena.finished and info.podium is not None else info.top
    body = [arena_line(line, locale) for line in lines]
    if not body:
        body = [text(locale, "arena_nobody")]
    tail = [text(locale, "arena_players", count=info.players)]
    return fitted(head, body, tail, locale)


def render_podium(arena: ArenaState, locale: str) -> str:
    """The end in one line, posted where everyone sees it: the first three with their
    points (the server's podium: those who completed a race)."""
    places = [
        f"{MEDALS.get(line.rank, f'{line.rank}.')} {plain_name(line.name)}"
        f" {line.score}{' 🔥' if line.fire else ''}"
        for line in (arena.info.podium or [])[:3]
    ]
    podium = " · ".join(places) or text(locale, "arena_podium_empty")
    return text(locale, "arena_podium", arena=arena.arena, podium=podium)


def render_place(info: p.ArenaInfo, locale: str) -> str:
    """A player's own place, privately: their line in bold among the lines around it."""
    lines = [text(locale, "arena_place", arena=info.arena)]
    for line in info.around or ([info.you] if info.you else []):
        shown = arena_line(line, locale)
        mine = info.you is not None and line.player == info.you.player
        lines.append(f"**{shown}**" if mine else shown)
    return "\n".join(lines)[:2000]


def render_scored(event: p.ArenaScoredEvent, locale: str) -> str:
    """One of a player's races counted: place, points (doubled on fire), score now."""
    return text(
        locale,
        "arena_scored",
        race=event.race,
        rank=event.rank,
        racers=event.racers,
        points=event.points,
        fire=" 🔥" if event.fire else "",
        score=event.score,
    )


def _timestamp(at_ms: int) -> str:
    return f"<t:{at_ms // 1000}:R>"
