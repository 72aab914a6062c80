"""Ratings on Discord: the rating board (the all-time leaderboard), as text.

Pure functions of server replies, like bot/figures.py; the words are in bot/i18n.py.
docs/ratings.md says what the numbers mean.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.i18n import text, variant_name
from bot.races import plain_name


def render_rating_board(reply: Mapping[str, Any], locale: str, scope: str) -> str:
    """An ``all_time_board`` reply (leaderboard): players by rating, "me" in bold, and how
    many rated players are still provisional (not on the board yet)."""
    scope_text = text(locale, "scope_server" if scope == "server" else "scope_global")
    lines = [
        text(
            locale,
            "all_time_title",
            variant=variant_name(locale, reply.get("variant", "")),
            scope=scope_text,
        )
    ]
    me = reply.get("me") or {}
    for line in reply.get("lines", [])[:25]:
        entry = text(
            locale,
            "rating_line",
            rank=line["rank"],
            name=plain_name(line["name"]),
            rating=line["rating"],
            deviation=line["deviation"],
            rated=line["rated_games"],
        )
        lines.append(f"**{entry}**" if me and line.get("player") == me.get("player") else entry)
    if len(lines) == 1:
        lines.append(text(locale, "empty_list"))
    if "total" in reply:
        total = text(
            locale,
            "rating_board_total",
            total=reply["total"],
            provisional=reply.get("provisional", 0),
        )
        lines.append(total)
    return "\n".join(lines)[:2000]
