"""A race's channel message: its public state, as text, kept up to date by events.

``RaceState`` holds the race as the server gives it, the protocol's ``RaceInfo``
(a ``race`` reply), and brings it up to date with the race's events. It ranks
nothing: while the race runs the places are the server's (``order``, sent with every
progress event and a running race's state, by the one rule of the final ranking),
and at the end the ranking is the server's. Only what everyone may see is here: who
races, their progress (cards home, moves; never cards), the countdown and time
limit, and at the end the ranking and the revealed seed. ``render_race`` turns it
into the message text; countdown and time limit are Discord timestamps
(``<t:…:R>``), which every client counts down by itself, so they cost no edits.
"""

from __future__ import annotations

from dataclasses import dataclass

from msgspec.structs import replace

import engine
from bot.i18n import text, variant_name
from bot.render import CONTENT_LIMIT, discord_length, format_time
from server import protocol as p

MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}

# A line of standings: the server's place for it (None while the server has not
# placed the player yet, such as one who just joined a running race), and the standing.
Placed = tuple[int | None, p.Standing]


@dataclass
class RaceState:
    """What the channel message shows about one race: the server's ``RaceInfo``, kept
    current by the race's events, and how the race ended (which only its end says)."""

    info: p.RaceInfo
    end_reason: str | None = None

    # The names the desk and the table read.
    @property
    def race(self) -> int:
        return self.info.race

    @property
    def state(self) -> str:
        return self.info.state

    @property
    def seq(self) -> int:
        return self.info.seq

    @property
    def starts_at(self) -> int | None:
        return self.info.starts_at

    @property
    def start_mode(self) -> str:
        return self.info.settings.start

    @property
    def allow_undo(self) -> bool:
        return self.info.settings.allow_undo

    @property
    def allow_hints(self) -> bool:
        return self.info.settings.allow_hints

    def apply(self, event: p.Event) -> bool:
        """Take one ``event`` in; False when it was old news."""
        if event.seq <= self.info.seq:
            return False
        self.info = _updated(replace(self.info, seq=event.seq), event.event)
        if isinstance(event.event, p.EndEvent):
            self.end_reason = event.event.reason
        return True


def _updated(info: p.RaceInfo, body: p.RaceEvent) -> p.RaceInfo:
    """``info`` after the event ``body``, as the server's next full state would say."""
    if isinstance(body, p.LobbyEvent):
        known = {s.player: s for s in info.players}
        players = [known.get(q.id) or p.Standing(player=q.id, name=q.name) for q in body.players]
        settings = replace(info.settings, max_players=body.max_players)
        return replace(info, players=players, settings=settings)
    if isinstance(body, p.CountdownEvent):
        return replace(info, state="countdown", starts_at=body.starts_at)
    if isinstance(body, p.StartEvent):
        return replace(info, state="running", starts_at=body.at, ends_at=body.ends_at)
    if isinstance(body, p.ProgressEvent):
        latest = {s.player: s for s in body.standings}
        players = [latest.pop(s.player, s) for s in info.players] + list(latest.values())
        # An event stored before the server sent places has none: show none, not old ones.
        return replace(info, players=players, order=body.order)
    if isinstance(body, p.FinishEvent):
        players = [
            replace(s, finished=True, time_ms=body.time_ms, moves=body.moves)
            if s.player == body.player
            else s
            for s in info.players
        ]
        return replace(info, players=players)
    if isinstance(body, p.RematchEvent):
        return info  # after the end: the race itself does not change
    return replace(
        info,
        state="finished",
        ranking=body.ranking,
        seed=body.seed,
        salt=body.salt,
        commitment=body.commitment,
        order=None,
    )


def live_places(info: p.RaceInfo) -> list[Placed]:
    """The standings of a running race in the server's order, each with its place;
    players the server has not placed yet follow, without one."""
    unplaced = {s.player: s for s in info.players}
    placed: list[Placed] = [
        (place, unplaced.pop(player))
        for place, player in enumerate(info.order or [], start=1)
        if player in unplaced
    ]
    return placed + [(None, s) for s in unplaced.values()]


def render_race(race: RaceState, locale: str) -> str:
    """The channel message of ``race``: lobby, countdown, live standings or ranking.

    Within Discord's 2,000 UTF-16 units whatever the names (a medal emoji counts two):
    the standings are cut from the bottom, with a line that says how many are not
    shown, and the lines around them (title, settings, the deal at the end) always stay.
    """
    info = race.info
    title = text(
        locale, "race_title", race=info.race, variant=variant_name(locale, info.settings.variant)
    )
    head = [f"**{title}**", _settings_line(info.settings, locale)]
    standings: list[str] = []
    tail: list[str] = []
    names = ", ".join(plain_name(s.name) for s in info.players) or text(locale, "race_nobody")
    if info.state == "lobby":
        count, most = len(info.players), info.settings.max_players
        head.append(text(locale, "race_lobby", count=count, max=most))
        standings.append(text(locale, "race_players", names=names))
    elif info.state == "countdown":
        head.append(text(locale, "race_countdown", when=_timestamp(info.starts_at)))
        standings.append(text(locale, "race_players", names=names))
    elif info.state == "running":
        head.append(text(locale, "race_running"))
        if info.ends_at is not None:
            head.append(text(locale, "race_ends", when=_timestamp(info.ends_at)))
        standings = _standing_lines(live_places(info), locale)
    else:
        ends = {"time_limit": "race_over_time", "expired": "race_expired"}
        key = ends.get(race.end_reason or "", "race_over")
        head.append(text(locale, key))
        standings = _standing_lines([(line.rank, line) for line in info.ranking or []], locale)
        if info.seed is not None:
            tail.append(deal_line(info, locale))
    return fitted(head, standings, tail, locale)


def deal_line(info: p.RaceInfo, locale: str) -> str:
    """The revealed deal: its code first (what ``/solitaire play deal:`` takes), then the
    seed and commitment anyone can check (docs/deals.md)."""
    seed = int(info.seed or 0)
    return text(
        locale,
        "race_deal",
        code=engine.deal_code(seed),
        seed=seed,
        commitment=info.commitment[:16],
    )


def fitted(head: list[str], body: list[str], tail: list[str], locale: str) -> str:
    """``head``, ``body`` and ``tail`` joined by lines, the body cut from its end (with a
    line saying how many lines are left out) until the whole fits Discord's limit."""
    joined = "\n".join([*head, *body, *tail])
    if discord_length(joined) <= CONTENT_LIMIT:
        return joined
    fixed = discord_length("\n".join([*head, *tail]))
    kept: list[str] = []
    for number, line in enumerate(body):
        more = text(locale, "race_more", count=len(body) - number)
        used = fixed + sum(discord_length(k) + 1 for k in kept)
        if used + discord_length(line) + 1 + discord_length(more) + 1 > CONTENT_LIMIT:
            kept.append(more)
            break
        kept.append(line)
    content = "\n".join([*head, *kept, *tail])
    # Only an absurd head could still be too long: cut it, never the deal line.
    if discord_length(content) > CONTENT_LIMIT:
        end = "\n".join(tail)
        room = CONTENT_LIMIT - discord_length(end) - 2
        content = _cut_units(content, room) + "…" + ("\n" + end if end else "")
    return content


def _cut_units(content: str, units: int) -> str:
    """The longest start of ``content`` within ``units`` UTF-16 units."""
    out, used = [], 0
    for char in content:
        used += discord_length(char)
        if used > units:
            break
        out.append(char)
    return "".join(out)


def _settings_line(settings: p.RaceSettings, locale: str) -> str:
    if settings.start == "now":
        start = text(locale, "start_now")
    elif settings.start == "countdown":
        start = text(locale, "start_countdown", seconds=settings.countdown_s)
    else:
        start = text(locale, "start_manual")
    line = text(
        locale,
        "race_options",
        start=start,
        undo=text(locale, "on" if settings.allow_undo else "off"),
        hints=text(locale, "on" if settings.allow_hints else "off"),
    )
    if not settings.ranked:  # said in the lobby, the standings and the results alike
        line += " · " + text(locale, "race_unranked")
    return line


def result_line(race: RaceState, locale: str) -> str:
    """The end in one line, for the race's thread: the first three places (with their
    times when they won) and the deal code; nothing of the cards."""
    info = race.info
    podium = []
    for line in (info.ranking or [])[:3]:
        place = f"{MEDALS.get(line.rank, f'{line.rank}.')} {plain_name(line.name)}"
        if line.finished and line.time_ms is not None:
            place += f" {format_time(line.time_ms)}"
        podium.append(place)
    return text(
        locale,
        "race_result",
        race=info.race,
        podium=" · ".join(podium) or text(locale, "race_nobody"),
        code=engine.deal_code(int(info.seed or 0)),
    )


def _standing_lines(standings: list[Placed], locale: str) -> list[str]:
    lines = []
    for place, standing in standings[:25]:
        line = text(
            locale,
            "standing_line",
            rank="–" if place is None else f"{MEDALS.get(place, '')}{place}",
            name=plain_name(standing.name),
            foundation=standing.foundation,
            moves=standing.moves,
        )
        if standing.finished and standing.time_ms is not None:
            line += " · " + text(locale, "standing_won", time=format_time(standing.time_ms))
        elif standing.resigned:
            line += " · " + text(locale, "standing_resigned")
        lines.append(line)
    return lines


def plain_name(name: str) -> str:
    """A player's name with Discord markdown and mentions defused."""
    for char in "*_~`|>@#<":
        name = name.replace(char, "\\" + char if char not in "@#<" else "")
    return name[:32]


def _timestamp(at_ms: int | None) -> str:
    return f"<t:{(at_ms or 0) // 1000}:R>"
