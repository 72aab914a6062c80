"""A race's result to share: a picture of the standings and a spoiler-free line.

At a race's end the bot posts both where everyone sees them (the race's thread, else
its channel). The picture (Pillow, dark like Discord's theme, 800 px wide) names the
race, its variant and deal code, and each racer's place, name, a bar of cards home and
time or state. The text is in the manner of Wordle's shared grid: one row a racer, ten
squares for the cards (🟩 a tenth of them home, 🟨 part of one, ⬛ none), which a phone
shows on one line; no card, no move, nothing that helps another player on the deal.
"""

from __future__ import annotations

import io
from typing import Final

from PIL import Image, ImageDraw, ImageFont

import engine
from bot.card_emoji import suit_png
from bot.i18n import text, variant_name
from bot.palette import rgb
from bot.races import MEDALS, RaceState, plain_name
from bot.render import format_time
from server import protocol as p

WIDTH: Final = 800
ROW: Final = 64
HEAD: Final = 120
BACKGROUND: Final = rgb("#313338")  # Discord's dark theme
TEXT: Final = rgb("#DBDEE1")
DIM: Final = rgb("#949BA4")
BAR: Final = rgb("#4E5058")
HOME: Final = rgb("#248046")  # the green of a button that plays
SQUARES: Final = 10  # a row a phone shows on one line (each a tenth of the cards)
MOST_ROWS: Final = 25


def _total(race: RaceState) -> int:
    """Cards a racer sends home to win: 104 in Spider, 52 elsewhere."""
    return 104 if race.info.settings.variant.startswith("spider") else 52


def _outcome(line: p.Ranked, locale: str) -> str:
    if line.finished and line.time_ms is not None:
        return format_time(line.time_ms)
    if line.resigned:
        return text(locale, "standing_resigned")
    return text(locale, "card_home_count", count=line.foundation)


def share_grid(race: RaceState, locale: str) -> str:
    """The result as lines to share: the race, then a row of squares a racer."""
    info = race.info
    total = _total(race)
    title = text(
        locale,
        "result_title",
        race=info.race,
        variant=variant_name(locale, info.settings.variant),
        code=engine.deal_code(int(info.seed or 0)),
    )
    rows = [title]
    for line in (info.ranking or [])[:MOST_ROWS]:
        filled = line.foundation * SQUARES / total
        full = int(filled)
        some = 1 if filled > full and full < SQUARES else 0
        squares = "🟩" * full + "🟨" * some + "⬛" * (SQUARES - full - some)
        medal = MEDALS.get(line.rank, f"{line.rank}.")
        rows.append(f"{medal} {squares}")
    return "\n".join(rows)


def result_png(race: RaceState, locale: str) -> bytes:
    """The standings as a PNG: title, then a row a racer (place, name, bar, time)."""
    info = race.info
    ranking = (info.ranking or [])[:MOST_ROWS]
    total = _total(race)
    height = HEAD + ROW * max(1, len(ranking)) + 24
    image = Image.new("RGB", (WIDTH, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    big, small = ImageFont.load_default(size=34), ImageFont.load_default(size=24)
    title = text(locale, "race_title", race=info.race, variant="").rstrip(": ")
    draw.text((32, 24), title, font=big, fill=TEXT)
    variant = variant_name(locale, info.settings.variant)
    deal = text(locale, "deal", code=engine.deal_code(int(info.seed or 0)))
    draw.text((32, 72), f"{variant} · {deal}", font=small, fill=DIM)
    for index, suit in enumerate("cdhs"):  # the four suit marks, in the boards' colours
        mark = Image.open(io.BytesIO(suit_png(suit))).convert("RGBA").resize((32, 32))
        image.paste(mark, (WIDTH - 48 - 40 * (3 - index), 30), mark)
    for row, line in enumerate(ranking):
        top = HEAD + row * ROW
        place = f"{line.rank}."
        draw.text((32, top + 14), place, font=small, fill=TEXT)
        draw.text((80, top + 14), plain_name(line.name)[:18], font=small, fill=TEXT)
        left, right = 320, 540
        draw.rounded_rectangle((left, top + 18, right, top + 42), radius=6, fill=BAR)
        done = left + (right - left) * min(line.foundation, total) / total
        if line.foundation:
            draw.rounded_rectangle((left, top + 18, done, top + 42), radius=6, fill=HOME)
        draw.text((560, top + 14), _outcome(line, locale), font=small, fill=TEXT)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
