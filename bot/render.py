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

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, cast

import msgspec

from bot.i18n import rank_text, text, variant_name
from server import protocol as p

CONTENT_LIMIT: Final = 2000
LAYOUT_TEXT_LIMIT: Final = 4000  # the text of a Components V2 message, all of it

FACE_DOWN: Final = "🟦"
EMPTY: Final = "▫️"
# The suits in the theme's text colour (see above); red ones outlined.
TEXT_SUITS: Final[Mapping[str, str]] = {"c": "♣\ufe0e", "d": "♢", "h": "♡", "s": "♠\ufe0e"}
KEYCAPS: Final = ("1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣", "7️⃣", "8️⃣", "9️⃣", "🔟")
POINTER: Final = "👉"
TARGET: Final = "🎯"
CONTINUED: Final = "↳"  # starts a column's second line on a phone: "↳7 5♡ 4♠︎"
FACE_DOWN_RUN: Final = 3  # this many face-down cards or more are written "🟦×5"
SUIT_RUN: Final = 3  # a same-suit run this long or longer is written "K♠︎–8♠︎"

# A phone's text column (Discord's app at 360 css px: 280 px beside the avatar), and
# what a line may take of it by the estimate below, with room for a wider font.
PHONE_LINE: Final = 272.0
_EMOJI_OR_MARK: Final = re.compile(
    r"<a?:\w+:\d+>|[0-9#*]\ufe0f\u20e3|[\U0001F000-\U0001FAFF][\ufe0f]?|[\u2000-\u2BFF]\ufe0f"
)


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


def phone_width(line: str) -> float:
    """About how many css px ``line`` takes on a phone (16 px text), a little more than
    it does: an emoji or custom emoji 23.5, a space or stop 5, a digit 9, a small letter
    8, a capital or a suit mark 11.5.
    tests/bot/test_phone_board.py checks the estimate in a real browser."""
    width = 0.0
    position = 0
    for found in _EMOJI_OR_MARK.finditer(line):
        width += _text_width(line[position : found.start()]) + 23.5
        position = found.end()
    return width + _text_width(line[position:])


def _text_width(chunk: str) -> float:
    width = 0.0
    for char in chunk.replace("**", ""):
        if char in "\ufe0e\ufe0f":
            continue
        if char in " :·.,'":
            width += 5.0
        elif char.isdigit():
            width += 9.0
        elif char.isupper() or ord(char) > 0x2000:
            width += 11.5
        else:
            width += 8.0
    return width


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
    if suits is not TEXT_SUITS:
        # The card emoji are wider than the text marks: a board that would need more
        # lines on a phone with them (continued columns), or more than Discord's limit,
        # is drawn with the text marks.
        text_marks = _board(view, locale, selected, size, notice, elapsed_ms, TEXT_SUITS)
        longer = text_marks.count("\n") < content.count("\n")
        if longer or discord_length(content) > CONTENT_LIMIT:
            content = text_marks
    if discord_length(content) > CONTENT_LIMIT:  # only a very long notice can do this
        content = content[: CONTENT_LIMIT - 1] + "…"
    return content


@dataclass(frozen=True)
class BoardText:
    """A board's text in its parts, as a Components V2 board lays them out: the title and
    the line(s) above the columns (``top``: stock and waste; ``foundations``), each
    column's line(s), and the counters, outcome and notice under them."""

    title: str
    top: list[str]
    foundations: list[str]
    columns: list[list[str]]
    foot: list[str]

    def lines(self) -> list[str]:
        """Every line, in the board's order."""
        rows = [self.title, *self.top, *self.foundations]
        for column in self.columns:
            rows += column
        return rows + self.foot

    def length(self) -> int:
        """Discord's length of all of it (UTF-16 code units)."""
        return sum(discord_length(line) for line in self.lines())


def board_text(
    view: Mapping[str, Any],
    locale: str,
    *,
    selected: str | None = None,
    size: int | None = None,
    notice: str | None = None,
    elapsed_ms: int | None = None,
    now_ms: int | None = None,
    suits: Mapping[str, str] = TEXT_SUITS,
) -> BoardText:
    """The board's text in parts for a Components V2 message (``render_board``'s lines):
    with the card emoji whenever the whole fits Discord's 4,000 units of text, which
    every position of every variant does, so a board keeps its suit colours."""
    if elapsed_ms is None:
        elapsed_ms = game_time(view, now_ms)
    parts = _parts(view, locale, selected, size, notice, elapsed_ms, suits)
    if parts.length() > LAYOUT_TEXT_LIMIT and suits is not TEXT_SUITS:
        parts = _parts(view, locale, selected, size, notice, elapsed_ms, TEXT_SUITS)
    return parts


def _board(
    view: Mapping[str, Any],
    locale: str,
    selected: str | None,
    size: int | None,
    notice: str | None,
    elapsed_ms: int | None,
    suits: Mapping[str, str],
) -> str:
    return "\n".join(_parts(view, locale, selected, size, notice, elapsed_ms, suits).lines())


def _parts(
    view: Mapping[str, Any],
    locale: str,
    selected: str | None,
    size: int | None,
    notice: str | None,
    elapsed_ms: int | None,
    suits: Mapping[str, str],
) -> BoardText:
    legal: Mapping[str, list[str]] = view.get("legal_moves") or {}
    targets = targets_of(legal.get(selected, []), size) if selected else set()
    top = _top(view, locale, selected, targets, suits)
    foundations: list[str] = []
    if view.get("foundations") and "runs_removed" not in view:  # the last line above
        foundations, top = top[-1:], top[:-1]
    columns = []
    for number, column in enumerate(view["tableau"], start=1):
        key = str(number)
        mark = POINTER if key == selected else TARGET if key in targets else ""
        columns.append(
            _column_lines(f"{column_label(number)}{mark}", number, column, suits, locale)
        )
    foot = [_counters(view, locale, elapsed_ms)]
    outcome = _outcome(view, locale)
    if outcome:
        foot.append(outcome)
    if notice:
        foot.append(notice)
    return BoardText(_title(view, locale), top, foundations, columns, foot)


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
        runs = text(locale, "runs_removed", count=view["runs_removed"])
        if lines and phone_width(f"{lines[0]} · {runs}") <= PHONE_LINE:
            lines[0] += f" · {runs}"  # one line less on a phone
        else:
            lines.append(runs)
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
    """An empty foundation: its suit's mark alone when it has a suit (so the line fits a
    phone), else ▫️."""
    suit = pile.get("suit")
    return suits[suit] if suit else EMPTY


def _column_lines(
    head: str, number: int, column: Mapping[str, Any], suits: Mapping[str, str], locale: str
) -> list[str]:
    """A column's line, and continuation lines when it would wrap on a phone: face-down
    cards counted ("🟦×5"), a same-suit run from its top to its bottom card ("K♠︎–8♠︎"),
    and whatever is still too long carried on a line labelled with the column ("↳7 …")."""
    down = int(column["down"])
    parts = [FACE_DOWN * down] if 0 < down < FACE_DOWN_RUN else []
    if down >= FACE_DOWN_RUN:
        parts = [f"{FACE_DOWN}×{down}"]
    parts += _runs(column["up"], suits, locale)
    if not parts:
        return [f"{head} {EMPTY}"]
    lines = [head]
    for part in parts:
        if phone_width(f"{lines[-1]} {part}") > PHONE_LINE and lines[-1] not in (
            head,
            f"{CONTINUED}{number}",
        ):
            lines.append(f"{CONTINUED}{number}")
        lines[-1] = f"{lines[-1]} {part}"
    return lines


def _runs(up: list[str], suits: Mapping[str, str], locale: str) -> list[str]:
    """Face-up cards as shown: each card, but a run of ``SUIT_RUN`` or more cards of one
    suit, each one rank below the last, as its first and last card."""
    shown: list[str] = []
    start = 0
    while start < len(up):
        end = start + 1
        while end < len(up) and _follows(up[end - 1], up[end]):
            end += 1
        if end - start >= SUIT_RUN:
            first, last = up[start], up[end - 1]
            shown.append(f"{card_text(first, suits, locale)}–{card_text(last, suits, locale)}")
        else:
            shown += [card_text(card, suits, locale) for card in up[start:end]]
        start = end
    return shown


_RANKS: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def _follows(upper: str, lower: str) -> bool:
    """Whether card ``lower`` is one rank below ``upper`` in the same suit."""
    if upper[-1] != lower[-1]:
        return False
    return _RANKS.index(upper[:-1]) == _RANKS.index(lower[:-1]) + 1


def _counters(view: Mapping[str, Any], locale: str, elapsed_ms: int | None) -> str:
    """One line on a phone: time, moves, score, then undos and hints once there are any;
    when that is too long, undos and hints are written ↶ 2 and 💡 1, then the score goes."""
    counters = view.get("counters") or {}
    head = [text(locale, "time", time=format_time(elapsed_ms))] if elapsed_ms is not None else []
    if "moves" in counters:
        head.append(text(locale, "moves", count=counters["moves"]))
    score = [text(locale, "score", count=counters["score"])] if "score" in counters else []
    used = [key for key in ("undos", "hints") if counters.get(key)]
    words = [text(locale, key, count=counters[key]) for key in used]
    marks = [f"{'↶' if key == 'undos' else '💡'} {counters[key]}" for key in used]
    for parts in (head + score + words, head + score + marks, head + marks):
        line = " · ".join(parts)
        if phone_width(line) <= PHONE_LINE:
            return line
    return line


def _outcome(view: Mapping[str, Any], locale: str) -> str | None:
    if view.get("outcome") == "won" or view.get("status") == "won":
        return text(locale, "outcome_won")
    if view.get("status") == "resigned":
        return text(locale, "outcome_resigned")
    if view.get("outcome") == "no_moves":
        return text(locale, "outcome_no_moves")
    return None


def board_reply(reply: p.ViewReply | p.DailyGameReply) -> Mapping[str, Any]:
    """A reply carrying a board, in the form the board's renderers read (bot/render.py,
    bot/views.py read the engine's view as JSON, engine/view.py): the one place a typed
    reply becomes that form."""
    return cast(Mapping[str, Any], msgspec.to_builtins(reply))
