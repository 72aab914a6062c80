"""The board as Discord text: a pure function of the server's player view.

One line per column, which reads on a phone for every variant (Spider's ten
columns side by side would not): a keycap names the column, 🟦 stands for each
face-down card (the view gives only their number, so nothing else could be
shown), and face-up cards follow, rank then suit mark. No code blocks anywhere,
since emoji do not render in them. Every reachable position fits Discord's 2,000
characters of message content (tests/bot/test_render.py checks this over random
games of every variant).

Suit marks: Discord's own ♠️ ♣️ emoji vanish on its dark themes (bot/palette.py), so
boards never use them. With the application's card emoji (bot/card_emoji.py, a red
and a slate mark readable on every theme) a suit is ``<:sa_h:…>``; such a mark costs
about 25 units of the 2,000, so a board too long with them falls back to the text
marks. The text marks are the theme's own text colour: ``♡ ♢`` (outlined) for the
red suits, ``♠︎ ♣︎`` (filled, asked for as text, not emoji, by U+FE0E) for the black.

Discord counts length in UTF-16 code units; ``discord_length`` does the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from bot.i18n import rank_text, text, variant_name

CONTENT_LIMIT: Final = 2000
EMBED_LIMIT: Final = 4096

FACE_DOWN: Final = "🟦"
EMPTY: Final = "▫️"
# The suits in the theme's text colour (see above); red ones outlined.
TEXT_SUITS: Final[Mapping[str, str]] = {"c": "♣\ufe0e", "d": "♢", "h": "♡", "s": "♠\ufe0e"}
KEYCAPS: Final = ("1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣", "7️⃣", "8️⃣", "9️⃣", "🔟")
POINTER: Final = "👉"
TARGET: Final = "🎯"


def discord_length(content: str) -> int:
    """Length as Discord counts it (UTF-16 code units)."""
    return len(content.encode("utf-16-le")) // 2


def card_text(card: str, suits: Mapping[str, str] = TEXT_SUITS, locale: str = "en") -> str:
    """A face-up card: rank in the player's language and suit mark, ``9h`` → ``9♡``,
    ``Qs`` → ``Q♠︎`` (German ``D♠︎``)."""
    return rank_text(card[:-1], locale) + suits[card[-1]]


def column_label(number: int) -> str:
    """The keycap of column ``number`` (1-based), plain digits beyond ten."""
    return KEYCAPS[number - 1] if 1 <= number <= len(KEYCAPS) else f"**{number}**"


def format_time(ms: int) -> str:
    """``m:ss`` (or ``h:mm:ss``) from milliseconds."""
    seconds = max(0, ms) // 1000
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


def game_time(view: Mapping[str, Any], now_ms: int | None) -> int | None:
    """The time played by the view's game clock, None when it cannot be told.

    A won game's clock stopped at ``finished_at``; one still playing runs until
    ``now_ms``; a resigned game has no end time, so it shows none rather than a
    clock that keeps running.
    """
    started = view.get("started_at")
    if started is None:
        return None
    end = view.get("finished_at")
    if end is None and view.get("status", "playing") == "playing":
        end = now_ms
    return None if end is None else max(0, end - started)


def targets_of(moves: list[str], size: int | None = None) -> set[str]:
    """The targets (``3``, ``f``) of canonical moves, only those moving ``size`` cards
    when given (``7:3>2`` moves three, ``7>2`` one)."""
    found = set()
    for move in moves:
        if ">" not in move:
            continue
        source, target = move.split(">", 1)
        if size is None or move_size(source) == size:
            found.add(target)
    return found


def move_size(source: str) -> int:
    """How many cards a canonical source part moves: ``7:3`` three, ``7`` one."""
    return int(source.split(":", 1)[1]) if ":" in source else 1


def render_board(
    view: Mapping[str, Any],
    locale: str,
    *,
    selected: str | None = None,
    size: int | None = None,
    notice: str | None = None,
    elapsed_ms: int | None = None,
    now_ms: int | None = None,
    suits: Mapping[str, str] = TEXT_SUITS,
) -> str:
    """The whole board: title, stock and foundations, columns, counters, outcome.

    Args:
        view: the server's player view (engine/view.py).
        locale: "en" or "de".
        selected: the source the player tapped (``7``, ``w``, ``f2``); its line gets
            👉 and the lines of its legal targets 🎯.
        size: with ``selected``, only targets of moves of that many cards.
        notice: one line shown under the board (a hint, an error).
        elapsed_ms: race time to show, when the caller knows it.
        now_ms: the bot's clock (server epoch ms); without ``elapsed_ms`` the time is
            the view's game clock (``started_at`` to ``finished_at`` or now).
        suits: the suit marks (the application's card emoji); the text marks when
            the board would not fit with them.
    """
    if elapsed_ms is None:
        elapsed_ms = game_time(view, now_ms)
    content = _board(view, locale, selected, size, notice, elapsed_ms, suits)
    if suits is not TEXT_SUITS and discord_length(content) > CONTENT_LIMIT:
        content = _board(view, locale, selected, size, notice, elapsed_ms, TEXT_SUITS)
    if discord_length(content) > CONTENT_LIMIT:  # only a very long notice can do this
        content = content[: CONTENT_LIMIT - 1] + "…"
    return content


def _board(
    view: Mapping[str, Any],
    locale: str,
    selected: str | None,
    size: int | None,
    notice: str | None,
    elapsed_ms: int | None,
    suits: Mapping[str, str],
) -> str:
    legal: Mapping[str, list[str]] = view.get("legal_moves") or {}
    targets = targets_of(legal.get(selected, []), size) if selected else set()
    lines = [_title(view, locale)]
    lines += _top(view, locale, selected, targets, suits)
    for number, column in enumerate(view["tableau"], start=1):
        key = str(number)
        mark = POINTER if key == selected else TARGET if key in targets else ""
        lines.append(f"{column_label(number)}{mark} {_column(column, suits, locale)}")
    lines.append(_counters(view, locale, elapsed_ms))
    outcome = _outcome(view, locale)
    if outcome:
        lines.append(outcome)
    if notice:
        lines.append(notice)
    return "\n".join(lines)


def _title(view: Mapping[str, Any], locale: str) -> str:
    title = f"**{variant_name(locale, view['variant'])}**"
    code = view.get("deal_code")
    if code is not None:
        title += " · " + text(locale, "deal", code=code)
    return title


def _top(
    view: Mapping[str, Any],
    locale: str,
    selected: str | None,
    targets: set[str],
    suits: Mapping[str, str],
) -> list[str]:
    """The line(s) above the columns: stock, waste, foundations or removed runs."""
    parts = []
    if view.get("stock") is not None:
        parts.append(text(locale, "stock", count=view["stock"]))
        if "deals_left" in view:
            parts.append(text(locale, "deals_left", count=view["deals_left"]))
    waste = view.get("waste")
    if waste is not None:
        part = _waste(waste, locale, suits)
        limit = (view.get("options") or {}).get("passes") or 0
        if limit:
            part += " · " + text(locale, "pass", number=view.get("passes", 0) + 1, limit=limit)
        parts.append((POINTER if selected == "w" else "") + part)
    lines = [" · ".join(parts)] if parts else []
    if "runs_removed" in view:
        lines.append(text(locale, "runs_removed", count=view["runs_removed"]))
    elif view.get("foundations"):
        piles = []
        for index, pile in enumerate(view["foundations"], start=1):
            top = pile.get("top")
            shown = card_text(top, suits, locale) if top else _empty_foundation(pile, suits)
            mark = POINTER if selected == f"f{index}" else ""
            piles.append(mark + shown)
        head = (TARGET if "f" in targets else "") + text(locale, "foundations")
        lines.append(f"{head}: {' '.join(piles)}")
    return lines


def _waste(waste: Mapping[str, Any], locale: str, suits: Mapping[str, str]) -> str:
    if not waste["count"]:
        return text(locale, "waste_empty")
    cards = [card_text(c, suits, locale) for c in waste["visible"]]
    cards[-1] = f"**{cards[-1]}**"
    return text(locale, "waste", count=waste["count"]) + ": " + " ".join(cards)


def _empty_foundation(pile: Mapping[str, Any], suits: Mapping[str, str]) -> str:
    suit = pile.get("suit")
    return f"{EMPTY}{suits[suit]}" if suit else EMPTY


def _column(column: Mapping[str, Any], suits: Mapping[str, str], locale: str) -> str:
    down = FACE_DOWN * int(column["down"])
    up = " ".join(card_text(c, suits, locale) for c in column["up"])
    if not down and not up:
        return EMPTY
    return f"{down} {up}".strip()


def _counters(view: Mapping[str, Any], locale: str, elapsed_ms: int | None) -> str:
    counters = view.get("counters") or {}
    parts = [text(locale, "time", time=format_time(elapsed_ms))] if elapsed_ms is not None else []
    for key in ("moves", "score", "undos", "hints"):
        if key in counters:
            parts.append(text(locale, key, count=counters[key]))
    return " · ".join(parts)


def _outcome(view: Mapping[str, Any], locale: str) -> str | None:
    if view.get("outcome") == "won" or view.get("status") == "won":
        return text(locale, "outcome_won")
    if view.get("status") == "resigned":
        return text(locale, "outcome_resigned")
    if view.get("outcome") == "no_moves":
        return text(locale, "outcome_no_moves")
    return None
