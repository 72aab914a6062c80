"""A board as Discord shows it on a phone, drawn in a real browser and measured.

The harness turns a board message (the bot's own text and buttons, ``Table.board``) into
a page laid out the way Discord's phone app lays out a message, and measures it in
Debian's chromium driven by Playwright (the browser the page's tests use,
tests/server/web_browser.py): which lines wrap, how tall the message is with its
buttons, whether the counters keep to one line and whether a row of buttons wraps.
tests/bot/test_phone_board.py holds every variant to the phone rules of docs/discord.md;
bench/phone_board.py prints the figures and writes the screenshots in docs/discord/.

What "as Discord shows it" means here (Discord's dark theme on a 360 css px phone):

- the message column: 16 px margin, a 40 px avatar and a 12 px gap on the left, 12 px
  on the right, so 280 px of text (Discord's Android app at 360 px);
- text 16 px on 22 px lines, in Liberation Sans (Arial's metrics; Discord's gg sans is
  not free to ship), bold for ``**…**``; a Discord timestamp ``<t:…:R>`` as "in 8
  seconds"; an ephemeral message's "Only you can see this" line under it;
- every emoji as Discord's own image (Twemoji, the few the boards use are in
  tests/bot/twemoji/), 1.375 em square; the application's card emoji as the bot's own
  marks (bot/card_emoji.py), the same size; a character asked for as text (U+FE0E)
  stays text;
- buttons 32 px high with 16 px padding, 14 px text, 8 px apart, a row wrapping onto a
  second line when its buttons do not fit (as the phone app does); a select menu 40 px,
  the width of the column;
- a Components V2 message (a board): its text displays as lines, a section as its lines
  with its button beside them on the right, rows of buttons under them.
"""

from __future__ import annotations

import base64
import html
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from bot.card_emoji import suit_png

PHONE_WIDTH: Final = 360
SCREEN_HEIGHT: Final = 640  # what one phone screen shows of a conversation, at most
TWEMOJI: Final = Path(__file__).resolve().parent / "twemoji"

# A keycap (digit, U+FE0F, U+20E3), or a character that Discord draws as an emoji
# unless U+FE0E asks for text, with its optional U+FE0F.
_EMOJI: Final = re.compile(
    r"[0-9#*]\ufe0f\u20e3"
    r"|[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\u23E9-\u23FA\u25AA-\u25FE](?!\ufe0e)\ufe0f?"
)
_CUSTOM: Final = re.compile(r"<a?:(\w+):(\d+)>")
_STAMP: Final = re.compile(r"&lt;t:(\d+):R&gt;")  # a timestamp, once the line is escaped
_CODE: Final = re.compile(r"`([^`]+)`")

STYLE: Final = """
* { box-sizing: border-box; }
body { margin: 0; background: #313338; color: #dbdee1; width: 360px;
  font: 16px/1.375 "Liberation Sans", "DejaVu Sans", sans-serif; }
.message { padding: 8px 12px 8px 68px; position: relative; }
.avatar { position: absolute; left: 16px; top: 10px; width: 40px; height: 40px;
  border-radius: 50%; background: #5865f2; }
.name { font-weight: 600; color: #f2f3f5; }
.line { min-height: 22px; white-space: pre-wrap; overflow-wrap: anywhere; }
img.emoji { width: 1.375em; height: 1.375em; vertical-align: -0.3em; margin: 0 0.05em; }
strong { font-weight: 700; color: #f2f3f5; }
code { font: 14px "DejaVu Sans Mono", monospace; background: #2b2d31; padding: 0 2px; }
.stamp { background: #3f4147; border-radius: 3px; }
.ephemeral { font-size: 12px; line-height: 16px; color: #949ba4; margin-top: 4px; }
.row { display: flex; flex-wrap: wrap; gap: 8px; margin-top: 8px; }
.attachment { display: block; max-width: 280px; border-radius: 8px; margin-top: 6px; }
.section { display: flex; gap: 8px; align-items: center; margin: 2px 0; }
.section .text { flex: 1; min-width: 0; }
.button img.emoji { width: 18px; height: 18px; vertical-align: -4px; margin-right: 4px; }
.button { height: 32px; min-width: 60px; padding: 0 16px; border-radius: 8px;
  font: 500 14px/32px "Liberation Sans", "DejaVu Sans", sans-serif; color: #fff;
  white-space: nowrap; overflow: hidden; text-overflow: ellipsis; max-width: 100%;
  text-align: center; }
.s1 { background: #5865f2; } .s2 { background: #4e5058; } .s3 { background: #248046; }
.s4 { background: #da373c; } .disabled { opacity: 0.5; }
.select { height: 40px; width: 100%; background: #1e1f22; border-radius: 4px;
  padding: 0 12px; font: 14px/40px "Liberation Sans", sans-serif; color: #949ba4;
  white-space: nowrap; overflow: hidden; }
"""


def _emoji_file(emoji: str) -> Path:
    points = [f"{ord(c):x}" for c in emoji if c != "\ufe0f"]
    return TWEMOJI / f"{'-'.join(points)}.svg"


def _data_url(data: bytes, kind: str) -> str:
    return f"data:{kind};base64,{base64.b64encode(data).decode('ascii')}"


def _inline(line: str) -> str:
    """One line of message markdown as HTML: emoji as Discord's images, bold (around
    emoji too), code, timestamps, the application's emoji."""
    pieces = line.split("**")
    if len(pieces) % 2 == 0:  # an unpaired ** stays as it is
        pieces[-2:] = ["**".join(pieces[-2:])]
    return "".join(
        f"<strong>{_plain(piece)}</strong>" if index % 2 else _plain(piece)
        for index, piece in enumerate(pieces)
    )


def _plain(line: str) -> str:
    parts: list[str] = []
    position = 0
    pattern = re.compile(f"{_CUSTOM.pattern}|{_EMOJI.pattern}")
    for found in pattern.finditer(line):
        parts.append(_text(line[position : found.start()]))
        token = found.group(0)
        custom = _CUSTOM.fullmatch(token)
        if custom:
            suit = custom.group(1).removeprefix("sa_")
            source = _data_url(suit_png(suit), "image/png") if len(suit) == 1 else ""
        else:
            path = _emoji_file(token)
            if not path.exists() and len(token) == 1 and ord(token) < 0x10000:
                parts.append(_text(token))  # a symbol with no emoji form (♢): text
                position = found.end()
                continue
            assert path.exists(), f"no Twemoji image for {token!r} ({path.name})"
            source = _data_url(path.read_bytes(), "image/svg+xml")
        parts.append(f'<img class="emoji" alt="{html.escape(token)}" src="{source}">')
        position = found.end()
    parts.append(_text(line[position:]))
    return "".join(parts)


def _text(chunk: str) -> str:
    escaped = html.escape(chunk)
    escaped = _CODE.sub(r"<code>\1</code>", escaped)
    return _STAMP.sub('<span class="stamp">in 8 seconds</span>', escaped)


def _button(item: dict[str, Any]) -> str:
    """A button as the phone shows it: its style's colour, its emoji and label."""
    classes = f"button s{item['style']}" + (" disabled" if item.get("disabled") else "")
    emoji = item.get("emoji")
    mark = ""
    if emoji:
        written = f"<:{emoji['name']}:{emoji['id']}>" if emoji.get("id") else emoji["name"]
        mark = _plain(written)
    label = html.escape(item.get("label") or "")
    return f'<div class="{classes}">{mark}{label}</div>'


def _row(row: dict[str, Any], number: int) -> str:
    items = []
    for item in row["components"]:
        if item["type"] == 3:
            chosen = [o["label"] for o in item["options"] if o.get("default")]
            shown = html.escape(chosen[0] if chosen else item.get("placeholder") or "")
            items.append(f'<div class="select">{shown}</div>')
        else:
            items.append(_button(item))
    return f'<div class="row" data-row="{number}">{"".join(items)}</div>'


def _lines(content: str, first: int) -> str:
    return "".join(
        f'<div class="line" data-line="{first + n}">{_inline(line) or "&nbsp;"}</div>'
        for n, line in enumerate(content.split("\n"))
    )


def _layout_html(components: list[dict[str, Any]]) -> str:
    """A Components V2 message: text displays as lines, a section as its lines with its
    button beside them (right-aligned, as the phone app puts an accessory), rows of
    buttons under them."""
    parts, line, rows = [], 0, 0
    for component in components:
        kind = component["type"]
        if kind == 10:
            parts.append(_lines(component["content"], line))
            line += component["content"].count("\n") + 1
        elif kind == 9:
            shown = "\n".join(c["content"] for c in component["components"])
            parts.append(
                f'<div class="section"><div class="text">{_lines(shown, line)}</div>'
                f"{_button(component['accessory'])}</div>"
            )
            line += shown.count("\n") + 1
        elif kind == 1:
            parts.append(_row(component, rows))
            rows += 1
    return "".join(parts)


def page_html(
    content: str,
    view: Any,
    *,
    ephemeral: bool = True,
    name: str = "Solitaire",
    image: bytes | None = None,
) -> str:
    """The page of one bot message (``view`` a discord.py view or layout, or None; an
    attached ``image`` under its text, as Discord shows a PNG, at most 280 px wide)."""
    components = view.to_components() if view is not None else []
    if view is not None and view.has_components_v2():
        body = _layout_html(components)
    else:
        rows = "".join(_row(row, number) for number, row in enumerate(components))
        shown = ""
        if image is not None:
            shown = f'<img class="attachment" src="{_data_url(image, "image/png")}">'
        body = f'<div id="content">{_lines(content, 0)}</div>{shown}{rows}'
    note = (
        '<div class="ephemeral">Only you can see this · Dismiss message</div>' if ephemeral else ""
    )
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><style>{STYLE}</style></head>"
        f'<body><div class="message" id="message"><div class="avatar"></div>'
        f'<div class="name">{html.escape(name)}</div>'
        f"{body}{note}</div></body></html>"
    )


@dataclass(frozen=True)
class Layout:
    """What a phone shows of one message: heights in css px, the lines that wrapped."""

    height: int  # the whole message: name, text, buttons
    wrapped: list[str]  # lines of text taking more than one line on the screen
    columns: int  # lines naming a column (a keycap first, or a continuation)
    wrapped_columns: int
    counters_wrapped: bool
    button_rows: int
    wrapped_rows: int  # rows of buttons that took a second line

    @property
    def fits_screen(self) -> bool:
        return self.height <= SCREEN_HEIGHT


_MEASURE: Final = """() => {
  const lines = [...document.querySelectorAll('.line')].map(e => ({
    text: e.textContent, alt: [...e.querySelectorAll('img')].map(i => i.alt).join(''),
    height: e.getBoundingClientRect().height }));
  const rows = [...document.querySelectorAll('.row')].map(r => {
    const tops = new Set([...r.children].map(c => Math.round(c.getBoundingClientRect().top)));
    return tops.size; });
  return { height: document.getElementById('message').getBoundingClientRect().height,
    lines, rows };
}"""


def is_column_line(text: str, alt: str) -> bool:
    """A column's line: it starts with a keycap (an image) or a continuation mark."""
    return alt[:1].isdigit() or alt.startswith("\U0001f51f") or text.lstrip().startswith("↳")


async def measure(page: Any, content: str, view: Any, *, ephemeral: bool = True) -> Layout:
    """Lay the message out on ``page`` (a Playwright page 360 css px wide) and measure it."""
    await page.set_content(page_html(content, view, ephemeral=ephemeral))
    found = await page.evaluate(_MEASURE)
    wrapped, columns, wrapped_columns, counters_wrapped = [], 0, 0, False
    for line, text in zip(found["lines"], content.split("\n"), strict=True):
        many = line["height"] > 1.5 * 22
        if many:
            wrapped.append(text)
        column = is_column_line(line["text"], line["alt"]) and not text.startswith("**")
        if column:
            columns += 1
            wrapped_columns += many
        if "⏱" in text or text.startswith(("Moves", "Züge")):
            counters_wrapped = counters_wrapped or many
    return Layout(
        height=round(found["height"]),
        wrapped=wrapped,
        columns=columns,
        wrapped_columns=wrapped_columns,
        counters_wrapped=counters_wrapped,
        button_rows=len(found["rows"]),
        wrapped_rows=sum(1 for lines in found["rows"] if lines > 1),
    )


@dataclass(frozen=True)
class Shown:
    """One board to measure: which, its text and buttons."""

    name: str
    variant: str
    state: str  # "opening", "mid-game", "longest column"
    content: str
    view: Any


def boards_to_show(table: Any, suits: Any, locale: str = "en") -> list[Shown]:
    """Every variant's opening, the position of its solver-won line with the longest
    column, and Spider 4-suit at the middle of its won line with a column selected,
    drawn by the bot's own board builder (``table.boards.board``) with ``suits``."""
    from board_sweep import WON_SEEDS, won_line
    from discord_rules import layout_text

    import engine
    from bot.i18n import text

    table.boards.suits = suits
    shown = []
    for variant, seeds in WON_SEEDS.items():
        game = engine.new_game(variant, seed=seeds[0])
        line = won_line(variant, seeds[0])
        views = [game.view()]
        for move in line:
            game.play(engine.Move.from_notation(move))
            views.append(game.view())
        states = [("opening", views[0], "")]
        longest = max(views[:-1], key=lambda v: max(c["down"] + len(c["up"]) for c in v["tableau"]))
        states.append(("longest column", longest, ""))
        if variant == "spider-4":
            middle = views[len(views) // 2]
            source = next(s for s in middle["legal_moves"] if s.isdigit())
            states.append(("mid-game", middle, ""))
            states.append(("mid-game selected", middle, source))
        for state, view, sel in states:
            started = table.boards.clock() - 754_000  # a clock showing 12:34
            reply = {"game": 1, "view": {**view, "started_at": started, "status": "playing"}}
            notice = text(locale, "selected", source=sel) if sel else None
            ui = table.boards.board(1, reply, locale, sel=sel, notice=notice)
            name = f"{variant}-{state.replace(' ', '-')}"
            shown.append(Shown(name, variant, state, layout_text(ui), ui))
    return shown
