"""Leaderboards and statistics as Discord text (pure functions of server replies)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.i18n import text, variant_name
from bot.races import plain_name
from bot.render import format_time


def render_leaderboard(reply: Mapping[str, Any], locale: str, scope: str) -> str:
    """A ``board`` reply (daily_board or daily_around): ranked lines, "me" in bold."""
    scope_text = text(locale, "scope_server" if scope == "server" else "scope_global")
    lines = [
        text(
            locale,
            "leaderboard_title",
            variant=variant_name(locale, reply.get("variant", "")),
            date=reply.get("date", ""),
            scope=scope_text,
        )
    ]
    me = reply.get("me") or {}
    for line in reply.get("lines", [])[:25]:
        entry = text(
            locale,
            "board_line",
            rank=line["rank"],
            name=plain_name(line["name"]),
            result=_result(line, locale),
        )
        lines.append(f"**{entry}**" if me and line.get("game") == me.get("game") else entry)
    if len(lines) == 1:
        lines.append(text(locale, "empty_list"))
    if "total" in reply:
        lines.append(text(locale, "board_total", total=reply["total"]))
    return "\n".join(lines)[:2000]


def _result(line: Mapping[str, Any], locale: str) -> str:
    if line.get("status") == "won" and line.get("time_ms") is not None:
        return text(locale, "board_won", time=format_time(line["time_ms"]), moves=line["moves"])
    return text(locale, "board_unfinished")


def render_stats(reply: Mapping[str, Any], locale: str) -> str:
    """A ``stats`` reply: one line per variant."""
    lines = [text(locale, "stats_title", name=plain_name(reply.get("name", "?")))]
    for item in reply.get("variants", [])[:20]:
        best = item.get("best_time_ms")
        lines.append(
            text(
                locale,
                "stats_line",
                variant=variant_name(locale, item["variant"]),
                wins=item["wins"],
                games=item["games"],
                rate=round(100 * item.get("win_rate", 0.0)),
                best=format_time(best) if best is not None else "—",
                streak=item.get("current_streak", 0),
                longest=item.get("longest_streak", 0),
            )
        )
    if len(lines) == 1:
        lines.append(text(locale, "empty_list"))
    return "\n".join(lines)[:2000]
