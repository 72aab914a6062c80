"""The card suits as the application's own emoji: drawn here, uploaded once at start.

Discord's ♠️ and ♣️ disappear on the dark themes (bot/palette.py). The bot draws the
four suit marks itself (Pillow, in the palette's colours, on a transparent square)
and keeps them as emoji of its Discord application, which every server and DM can
show without the bot being a member anywhere special. At start-up ``install`` lists
the application's emoji and uploads only the suits it lacks, so restarts reuse them
(to redraw them, delete them in the Developer Portal, or change ``NAMES``). When
Discord refuses (the token may not manage the application's emoji, or the
application has no room left) one log line says so and the boards keep the text
suits of bot/render.py.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Mapping
from typing import Any, Final

import discord
from PIL import Image, ImageDraw

from bot.palette import SUIT_COLOURS, rgb

log = logging.getLogger(__name__)

NAMES: Final[dict[str, str]] = {"c": "sa_c", "d": "sa_d", "h": "sa_h", "s": "sa_s"}
SIZE: Final = 128  # Discord shows emoji at up to 48 px (jumbo); 128 stays sharp
_SCALE: Final = 4  # drawn this much larger, then reduced: smooth edges

Box = tuple[float, float, float, float]


def suit_png(suit: str) -> bytes:
    """The PNG of ``suit``'s mark (``c d h s``): one colour on transparency."""
    big = SIZE * _SCALE
    mask = Image.new("L", (big, big), 0)
    draw = ImageDraw.Draw(mask)
    for kind, shape in _SHAPES[suit]:
        points = [round(v * big) for v in shape]
        if kind == "circle":
            draw.ellipse(points, fill=255)
        else:
            draw.polygon(points, fill=255)
    # Only the shape is smoothed: every pixel keeps the palette's exact colour.
    image = Image.new("RGBA", (SIZE, SIZE), (*rgb(SUIT_COLOURS[suit]), 0))
    image.putalpha(mask.resize((SIZE, SIZE), Image.Resampling.BOX))
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _circle(x: float, y: float, r: float) -> tuple[str, Box]:
    return "circle", (x - r, y - r, x + r, y + r)


# Each mark in a unit square: circles and polygons (x, y pairs), y downwards.
_STEM: Final = ("polygon", (0.5, 0.55, 0.34, 0.94, 0.66, 0.94))
_SHAPES: Final[dict[str, tuple[tuple[str, tuple[float, ...]], ...]]] = {
    "h": (
        _circle(0.3, 0.34, 0.22),
        _circle(0.7, 0.34, 0.22),
        ("polygon", (0.095, 0.42, 0.905, 0.42, 0.5, 0.92)),
    ),
    "d": (("polygon", (0.5, 0.04, 0.86, 0.5, 0.5, 0.96, 0.14, 0.5)),),
    "s": (
        _circle(0.3, 0.56, 0.2),
        _circle(0.7, 0.56, 0.2),
        ("polygon", (0.11, 0.5, 0.89, 0.5, 0.5, 0.05)),
        ("polygon", (0.3, 0.5, 0.7, 0.5, 0.5, 0.74)),  # closes the notch between the lobes
        _STEM,
    ),
    "c": (
        _circle(0.5, 0.27, 0.2),
        _circle(0.27, 0.58, 0.2),
        _circle(0.73, 0.58, 0.2),
        _circle(0.5, 0.52, 0.12),
        _STEM,
    ),
}


async def install(client: Any) -> dict[str, str] | None:
    """The suit marks as emoji of ``client``'s application (``{"h": "<:sa_h:…>"}``),
    uploading the ones it lacks; None, after one log line, when Discord refuses.

    ``client`` is the logged-in ``discord.Client`` (its application id is known).
    """
    try:
        existing: Mapping[str, discord.Emoji] = {
            emoji.name: emoji for emoji in await client.fetch_application_emojis()
        }
        marks = {}
        for suit, name in NAMES.items():
            emoji = existing.get(name)
            if emoji is None:
                emoji = await client.create_application_emoji(name=name, image=suit_png(suit))
                log.info("uploaded the card emoji %s", name)
            marks[suit] = str(emoji)
    except discord.Forbidden as err:
        log.warning(
            "card emoji: Discord does not let this bot manage its application's emoji "
            "(%s %s); boards show text suits",
            err.status,
            err.text or "Forbidden",
        )
        return None
    except (discord.HTTPException, discord.MissingApplicationID) as err:
        log.warning("card emoji: Discord refused them (%s); boards show text suits", err)
        return None
    except Exception as err:  # the marks are a nicety: never a reason not to start
        log.warning("card emoji: could not install them (%r); boards show text suits", err)
        return None
    return marks
