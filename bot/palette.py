"""The colours of the suit marks, readable on every Discord theme.

Discord's own ♠️ and ♣️ emoji are drawn in #31373D, which on the default dark theme
(#313338) is a contrast of 1.05:1: the suit vanishes. The bot draws its own suit
emoji (bot/card_emoji.py) in the colours below, each at a contrast of at least 3:1
(WCAG's floor for graphics) on the background of every theme: a colour passes the
dark theme and white only with a relative luminance between about 0.20 and 0.30, so
the "black" suits are a mid slate and the red ones a bright red; the two stay told
apart by hue. tests/bot/test_card_emoji.py checks every pair.
"""

from __future__ import annotations

from typing import Final

# Chat backgrounds of Discord's themes: light; dark (the default, also "ash");
# darker (the 2025 "dark"); midnight/AMOLED ("onyx" is near it).
THEMES: Final[dict[str, str]] = {
    "light": "#FFFFFF",
    "dark": "#313338",
    "darker": "#1A1A1E",
    "black": "#000000",
}
RED: Final = "#F23F43"
SLATE: Final = "#7F8590"
SUIT_COLOURS: Final[dict[str, str]] = {"c": SLATE, "d": RED, "h": RED, "s": SLATE}
GRAPHICS_CONTRAST: Final = 3.0  # WCAG 2.1, 1.4.11: graphical objects

# Discord's own suit emoji (Twemoji), for the comparison in docs/discord.md.
TWEMOJI_COLOURS: Final[dict[str, str]] = {
    "c": "#31373D",
    "d": "#DD2E44",
    "h": "#BE1931",
    "s": "#31373D",
}


def rgb(colour: str) -> tuple[int, int, int]:
    """``"#F23F43"`` → (242, 63, 67)."""
    value = colour.removeprefix("#")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)


def relative_luminance(colour: str) -> float:
    """WCAG 2.1 relative luminance of an sRGB colour, 0 (black) to 1 (white)."""

    def linear(channel: int) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(first: str, second: str) -> float:
    """WCAG contrast ratio of two colours, 1 to 21."""
    darker, lighter = sorted((relative_luminance(first), relative_luminance(second)))
    return (lighter + 0.05) / (darker + 0.05)
