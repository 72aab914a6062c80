"""The suit marks: their colours on every theme, their drawing, and their upload as the
application's emoji, against a small fake of the discord.py HTTP calls it makes."""

from __future__ import annotations

import io
import logging
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import discord
import pytest
from PIL import Image

from bot import card_emoji
from bot.palette import (
    GRAPHICS_CONTRAST,
    SUIT_COLOURS,
    THEMES,
    TWEMOJI_COLOURS,
    contrast,
    relative_luminance,
    rgb,
)

APPLICATION = 1_300_000_000_000_000_001


class TestPalette:
    def test_wcag_luminance_and_contrast(self) -> None:
        assert relative_luminance("#000000") == 0 and relative_luminance("#FFFFFF") == 1
        assert contrast("#000000", "#FFFFFF") == pytest.approx(21)
        assert contrast("#767676", "#FFFFFF") == pytest.approx(4.54, abs=0.01)  # WCAG's AA grey

    @pytest.mark.parametrize("theme", sorted(THEMES))
    @pytest.mark.parametrize("suit", sorted(SUIT_COLOURS))
    def test_every_suit_reads_on_every_theme(self, suit: str, theme: str) -> None:
        assert contrast(SUIT_COLOURS[suit], THEMES[theme]) >= GRAPHICS_CONTRAST

    def test_discords_own_black_suits_vanish_on_the_dark_theme(self) -> None:
        """Why the bot draws its own: ♠️ on #313338 is 1.05:1."""
        assert contrast(TWEMOJI_COLOURS["s"], THEMES["dark"]) < 1.1

    def test_red_and_black_suits_stay_apart(self) -> None:
        red, black = rgb(SUIT_COLOURS["h"]), rgb(SUIT_COLOURS["s"])
        assert red[0] > 2 * max(red[1:])  # red
        assert max(black) - min(black) < 32  # a neutral slate, no hue of its own


class TestDrawing:
    @pytest.mark.parametrize("suit", sorted(SUIT_COLOURS))
    def test_each_mark_is_its_colour_on_transparency(self, suit: str) -> None:
        image = Image.open(io.BytesIO(card_emoji.suit_png(suit)))
        assert image.format == "PNG" and image.size == (card_emoji.SIZE, card_emoji.SIZE)
        raw = image.convert("RGBA").tobytes()
        pixels = [tuple(raw[i : i + 4]) for i in range(0, len(raw), 4)]
        solid = [p[:3] for p in pixels if p[3] == 255]
        clear = sum(p[3] == 0 for p in pixels)
        assert set(solid) == {rgb(SUIT_COLOURS[suit])}
        assert len(solid) > len(pixels) / 5 and clear > len(pixels) / 4  # a mark, not a box

    def test_the_four_marks_differ(self) -> None:
        masks = {
            s: Image.open(io.BytesIO(card_emoji.suit_png(s))).getchannel("A").tobytes()
            for s in "cdhs"
        }
        assert len(set(masks.values())) == 4


@dataclass
class FakeEmojiHTTP:
    """The two calls of discord.py's ``HTTPClient`` that application emoji use, kept in
    memory: what Discord would store, and what the bot asked for."""

    emoji: list[dict[str, Any]] = field(default_factory=list)
    calls: Counter[str] = field(default_factory=Counter)
    refuse: discord.HTTPException | None = None

    async def get_application_emojis(self, application_id: int) -> dict[str, Any]:
        assert application_id == APPLICATION
        self.calls["list"] += 1
        if self.refuse is not None:
            raise self.refuse
        return {"items": list(self.emoji)}

    async def create_application_emoji(
        self, application_id: int, name: str, image: str
    ) -> dict[str, Any]:
        assert application_id == APPLICATION
        assert image.startswith("data:image/png;base64,")  # discord.py encoded our PNG
        assert name not in {e["name"] for e in self.emoji}, "Discord refuses a second one"
        self.calls["create"] += 1
        data = {"id": str(1_400_000_000_000_000_000 + len(self.emoji)), "name": name}
        self.emoji.append(data | {"animated": False, "available": True})
        return data


def client_with(http: FakeEmojiHTTP) -> discord.Client:
    """A real discord.py client, logged in as far as emoji go: its HTTP layer is the fake."""
    client = discord.Client(intents=discord.Intents.none())
    client.http = http  # type: ignore[assignment]
    client._connection.application_id = APPLICATION
    return client


class FakeResponse:
    status, reason = 403, "Forbidden"


class TestUpload:
    async def test_the_first_start_uploads_the_four_suits(self) -> None:
        http = FakeEmojiHTTP()
        marks = await card_emoji.install(client_with(http))
        assert http.calls == Counter(list=1, create=4)
        assert sorted(e["name"] for e in http.emoji) == ["sa_c", "sa_d", "sa_h", "sa_s"]
        ids = {e["name"]: e["id"] for e in http.emoji}
        assert marks == {s: f"<:sa_{s}:{ids['sa_' + s]}>" for s in "cdhs"}

    async def test_a_restart_reuses_them(self) -> None:
        http = FakeEmojiHTTP()
        first = await card_emoji.install(client_with(http))
        again = await card_emoji.install(client_with(http))
        assert again == first and http.calls == Counter(list=2, create=4)

    async def test_only_missing_suits_are_uploaded(self) -> None:
        http = FakeEmojiHTTP(emoji=[{"id": "1399999999999999999", "name": "sa_h"}])
        http.emoji.append({"id": "1399999999999999998", "name": "someone_elses"})
        marks = await card_emoji.install(client_with(http))
        assert http.calls["create"] == 3
        assert marks is not None and marks["h"] == "<:sa_h:1399999999999999999>"

    async def test_without_the_right_one_line_says_so_and_text_suits_stay(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        http = FakeEmojiHTTP(refuse=discord.Forbidden(FakeResponse(), "Missing Access"))  # type: ignore[arg-type]
        with caplog.at_level(logging.INFO, logger="bot.card_emoji"):
            assert await card_emoji.install(client_with(http)) is None
        [line] = [r for r in caplog.records if r.name == "bot.card_emoji"]
        assert line.levelno == logging.WARNING
        assert "does not let this bot manage its application's emoji" in line.getMessage()
        assert "403 Missing Access" in line.getMessage() and "text suits" in line.getMessage()
        assert http.emoji == []
