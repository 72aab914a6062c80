"""A race's channel message: its public state, as text, kept up to date by events.

``RaceState`` follows a race from the server's full state (``race`` replies) and
its events, and holds only what everyone may see: who races, their progress
(cards home, moves; never cards), the countdown and time limit, and at the end the
ranking and the revealed seed. ``render_race`` turns it into the message text;
countdown and time limit are Discord timestamps (``<t:…:R>``), which every client
counts down by itself, so they cost no edits.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.i18n import text, variant_name
from bot.render import format_time

Message = dict[str, Any]


@dataclass
class Standing:
    """One racer's public progress."""

    player: int
    name: str
    foundation: int = 0
    moves: int = 0
    finished: bool = False
    resigned: bool = False
    time_ms: int | None = None
    rank: int | None = None

    @classmethod
    def from_message(cls, data: Message) -> Standing:
        return cls(
            player=data["player"],
            name=data["name"],
            foundation=data.get("foundation", 0),
            moves=data.get("moves", 0),
            finished=data.get("finished", False),
            resigned=data.get("resigned", False),
            time_ms=data.get("time_ms"),
            rank=data.get("rank"),
        )


@dataclass
class RaceState:
    """What the channel message shows about one race."""

    race: int
    state: str
    seq: int
    variant: str
    max_players: int
    start_mode: str
    countdown_s: int
    allow_undo: bool
    allow_hints: bool
    commitment: str
    standings: dict[int, Standing] = field(default_factory=dict)
    starts_at: int | None = None
    ends_at: int | None = None
    ranking: list[Standing] | None = None
    seed: str | None = None
    end_reason: str | None = None

    @classmethod
    def from_info(cls, info: Message) -> RaceState:
        """From a race's full state (a ``race`` reply)."""
        settings = info["settings"]
        state = cls(
            race=info["race"],
            state=info["state"],
            seq=info["seq"],
            variant=settings["variant"],
            max_players=settings["max_players"],
            start_mode=settings["start"],
            countdown_s=settings["countdown_s"],
            allow_undo=settings["allow_undo"],
            allow_hints=settings["allow_hints"],
            commitment=info["commitment"],
            starts_at=info.get("starts_at"),
            ends_at=info.get("ends_at"),
            seed=info.get("seed"),
        )
        for data in info["players"]:
            state.standings[data["player"]] = Standing.from_message(data)
        if info.get("ranking") is not None:
            state.ranking = [Standing.from_message(r) for r in info["ranking"]]
        return state

    def apply(self, event: Message) -> bool:
        """Take one ``event`` message in; False when it was old news."""
        if event["seq"] <= self.seq:
            return False
        self.seq = event["seq"]
        body = event["event"]
        kind = body["kind"]
        if kind == "lobby":
            old = self.standings
            self.standings = {
                p["id"]: old.get(p["id"]) or Standing(p["id"], p["name"]) for p in body["players"]
            }
            self.max_players = body["max_players"]
        elif kind == "countdown":
            self.state, self.starts_at = "countdown", body["starts_at"]
        elif kind == "start":
            self.state, self.starts_at, self.ends_at = "running", body["at"], body.get("ends_at")
        elif kind == "progress":
            for data in body["standings"]:
                standing = Standing.from_message(data)
                self.standings[standing.player] = standing
        elif kind == "finish":
            winner = self.standings.get(body["player"])
            if winner is not None:
                winner.finished, winner.time_ms = True, body["time_ms"]
                winner.moves = body["moves"]
        elif kind == "end":
            self.state, self.end_reason = "finished", body["reason"]
            self.ranking = [Standing.from_message(r) for r in body["ranking"]]
            self.seed, self.commitment = body["seed"], body["commitment"]
        return True


def render_race(race: RaceState, locale: str) -> str:
    """The channel message of ``race``: lobby, countdown, live standings or ranking."""
    title = text(locale, "race_title", race=race.race, variant=variant_name(locale, race.variant))
    lines = [f"**{title}**"]
    lines.append(_settings_line(race, locale))
    if race.state == "lobby":
        lines.append(text(locale, "race_lobby", count=len(race.standings), max=race.max_players))
        names = ", ".join(s.name for s in race.standings.values()) or text(locale, "race_nobody")
        lines.append(text(locale, "race_players", names=names))
    elif race.state == "countdown":
        lines.append(text(locale, "race_countdown", when=_timestamp(race.starts_at)))
        names = ", ".join(s.name for s in race.standings.values()) or text(locale, "race_nobody")
        lines.append(text(locale, "race_players", names=names))
    elif race.state == "running":
        lines.append(text(locale, "race_running"))
        if race.ends_at is not None:
            lines.append(text(locale, "race_ends", when=_timestamp(race.ends_at)))
        lines += _standing_lines(_live_order(race.standings.values()), locale)
    else:
        key = "race_over_time" if race.end_reason == "time_limit" else "race_over"
        lines.append(text(locale, key))
        lines += _standing_lines(race.ranking or [], locale)
        if race.seed is not None:
            lines.append(text(locale, "race_seed", seed=race.seed, commitment=race.commitment[:16]))
    return "\n".join(lines)[:2000]


def _settings_line(race: RaceState, locale: str) -> str:
    if race.start_mode == "now":
        start = text(locale, "start_now")
    elif race.start_mode == "countdown":
        start = text(locale, "start_countdown", seconds=race.countdown_s)
    else:
        start = text(locale, "start_manual")
    return text(
        locale,
        "race_options",
        start=start,
        undo=text(locale, "on" if race.allow_undo else "off"),
        hints=text(locale, "on" if race.allow_hints else "off"),
    )


def _live_order(standings: Any) -> list[Standing]:
    """Finished first by time, then by cards home and fewest moves (as the server ranks)."""
    return sorted(
        standings,
        key=lambda s: (
            not s.finished,
            s.time_ms or 0,
            s.resigned,
            -s.foundation,
            s.moves,
        ),
    )


def _standing_lines(standings: list[Standing], locale: str) -> list[str]:
    medals = {1: "🥇", 2: "🥈", 3: "🥉"}
    lines = []
    for place, standing in enumerate(standings[:25], start=1):
        rank = standing.rank or place
        line = text(
            locale,
            "standing_line",
            rank=f"{medals.get(rank, '')}{rank}",
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
