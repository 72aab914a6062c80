"""Leaderboards and statistics as Discord text (pure functions of server replies)."""

from __future__ import annotations

from bot.i18n import text, variant_name
from bot.races import plain_name
from bot.render import format_time
from server import protocol as p


def render_leaderboard(reply: p.BoardReply, locale: str, scope: str) -> str:
    """A ``board`` reply (daily_board or daily_around): ranked lines, "me" in bold."""
    scope_text = text(locale, "scope_server" if scope == "server" else "scope_global")
    lines = [
        text(
            locale,
            "leaderboard_title",
            variant=variant_name(locale, reply.variant),
            date=reply.date,
            scope=scope_text,
        )
    ]
    me = reply.me
    for line in reply.lines[:25]:
        entry = text(
            locale,
            "board_line",
            rank=line.rank,
            name=plain_name(line.name),
            result=_result(line, locale),
        )
        lines.append(f"**{entry}**" if me is not None and line.game == me.game else entry)
    if len(lines) == 1:
        lines.append(text(locale, "empty_list"))
    lines.append(text(locale, "board_total", total=reply.total))
    return "\n".join(lines)[:2000]


def _result(line: p.BoardLine, locale: str) -> str:
    if line.status == "won" and line.time_ms is not None:
        return text(locale, "board_won", time=format_time(line.time_ms), moves=line.moves or 0)
    return text(locale, "board_unfinished")


def render_stats(reply: p.StatsReply, locale: str) -> str:
    """A ``stats`` reply: one line per variant."""
    lines = [text(locale, "stats_title", name=plain_name(reply.name))]
    for item in reply.variants[:20]:
        best = item.best_time_ms
        lines.append(
            text(
                locale,
                "stats_line",
                variant=variant_name(locale, item.variant),
                wins=item.wins,
                games=item.games,
                rate=round(100 * item.win_rate),
                best=format_time(best) if best is not None else "—",
                streak=item.current_streak,
                longest=item.longest_streak,
            )
        )
    if len(lines) == 1:
        lines.append(text(locale, "empty_list"))
    return "\n".join(lines)[:2000]
