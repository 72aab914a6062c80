"""A daily's result to share: a picture of the final foundations and standing, and a
spoiler-free line.

At the end of a daily attempt (won or resigned) the bot posts both where the player
used the command, for everyone there (an interaction's follow-up, so it works wherever
the command does, in a server without the bot too). Everyone plays the same deal that
day, so nothing may help another player: the picture shows only the foundations (the
whole final board of a won game, whose columns are empty), never a column, and the
line (in the manner of Wordle's shared grid, like a race's, bot/result_card.py) says
the day, the result, the place on the day's board and ten squares for the cards home.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import discord
from PIL import Image, ImageDraw, ImageFont

from bot.answers import Interaction
from bot.card_emoji import suit_png
from bot.client import Actor, ArenaClient, ServerError
from bot.i18n import rank_text, text, variant_name
from bot.render import format_time, game_time
from bot.result_card import BACKGROUND, BAR, DIM, HOME, SQUARES, TEXT, WIDTH
from server import protocol as p

log = logging.getLogger(__name__)

HEIGHT: Final = 360
CARD: Final = (76, 104)  # a foundation's card, in px
CARD_FACE: Final = (242, 243, 245)
CARD_TEXT: Final = (6, 6, 7)


@dataclass(frozen=True)
class DailyEnd:
    """How a daily attempt ended, as the card tells it."""

    date: str
    view: Mapping[str, Any]  # the game's final view
    rank: int | None = None  # the place on the day's board (None: not ranked)
    players: int = 0  # players on the day's board
    ranked: bool = True  # False: a later attempt or a guest's, shown as practice

    @property
    def won(self) -> bool:
        return self.view.get("status") == "won" or self.view.get("outcome") == "won"

    @property
    def cards_home(self) -> int:
        return sum(int(f.get("cards") or 0) for f in self.view.get("foundations") or [])

    @property
    def cards(self) -> int:
        """Cards a player sends home to win: 104 in Spider, 52 elsewhere."""
        return 104 if str(self.view["variant"]).startswith("spider") else 52


def ended(view: Mapping[str, Any]) -> bool:
    """Whether a daily attempt whose view this is has ended (won or resigned)."""
    return view.get("status", "playing") in ("won", "resigned")


def _result(end: DailyEnd, locale: str) -> str:
    moves = (end.view.get("counters") or {}).get("moves", 0)
    if end.won:
        return text(
            locale, "share_won", time=format_time(game_time(end.view, None) or 0), moves=moves
        )
    return text(locale, "share_unfinished", foundation=end.cards_home, moves=moves)


def _standing(end: DailyEnd, locale: str) -> str:
    if not end.ranked:
        return text(locale, "daily_card_practice")
    if end.rank is None:
        return text(locale, "daily_card_unplaced")
    return text(locale, "daily_card_place", rank=end.rank, players=end.players)


def daily_grid(end: DailyEnd, locale: str) -> str:
    """The result as lines to share: the day, the result and place, ten squares."""
    variant = variant_name(locale, str(end.view["variant"]))
    title = text(
        locale,
        "share_game",
        what=text(locale, "share_daily", variant=variant, date=end.date),
        result=_result(end, locale),
    )
    filled = end.cards_home * SQUARES / end.cards
    full = int(filled)
    some = 1 if filled > full and full < SQUARES else 0
    squares = "🟩" * full + "🟨" * some + "⬛" * (SQUARES - full - some)
    mark = "🏆" if end.won else "🏳️"
    return f"{title}\n{mark} {_standing(end, locale)}\n{squares}"


def daily_png(end: DailyEnd, locale: str) -> bytes:
    """The card as a PNG: the day, the final foundations, a bar of cards home, the
    result and the place."""
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    big, small = ImageFont.load_default(size=34), ImageFont.load_default(size=24)
    variant = variant_name(locale, str(end.view["variant"]))
    draw.text((32, 24), text(locale, "daily_card_title", date=end.date), font=big, fill=TEXT)
    draw.text((32, 72), variant, font=small, fill=DIM)
    foundations = list(end.view.get("foundations") or [])
    for index, pile in enumerate(foundations[:8]):
        _foundation(image, draw, 32 + index * (CARD[0] + 16), 120, pile, locale)
    left, right, top = 32, WIDTH - 32, 250
    draw.rounded_rectangle((left, top, right, top + 20), radius=6, fill=BAR)
    if end.cards_home:
        done = left + (right - left) * min(end.cards_home, end.cards) / end.cards
        draw.rounded_rectangle((left, top, done, top + 20), radius=6, fill=HOME)
    draw.text((32, 290), _result(end, locale), font=small, fill=TEXT)
    draw.text((32, 322), _standing(end, locale), font=small, fill=DIM)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _foundation(
    image: Image.Image,
    draw: ImageDraw.ImageDraw,
    x: int,
    y: int,
    pile: Mapping[str, Any],
    locale: str,
) -> None:
    """One foundation: its top card (rank and suit mark), or an empty outline."""
    box = (x, y, x + CARD[0], y + CARD[1])
    top = pile.get("top")
    if not top:
        draw.rounded_rectangle(box, radius=8, outline=BAR, width=3)
        return
    draw.rounded_rectangle(box, radius=8, fill=CARD_FACE)
    font = ImageFont.load_default(size=30)
    draw.text((x + 10, y + 8), rank_text(str(top)[:-1], locale), font=font, fill=CARD_TEXT)
    mark = Image.open(io.BytesIO(suit_png(str(top)[-1]))).convert("RGBA").resize((36, 36))
    image.paste(mark, (x + CARD[0] - 44, y + CARD[1] - 44), mark)


async def post_daily_card(
    client: ArenaClient,
    interaction: Interaction,
    actor: Actor,
    date: str,
    view: Mapping[str, Any],
    ranked: bool,
) -> None:
    """Post the card of a daily attempt that just ended, for everyone where the player
    is (a follow-up of the interaction that ended it): its place on the day's board,
    asked of the server (none when it cannot tell), the line and the picture."""
    rank, players = None, 0
    if ranked:
        try:
            around = p.DailyAround(variant=view["variant"], date=date, span=0)
            reply = await client.expect(around, actor, p.BoardReply)
        except ServerError:
            pass  # the card says "not on today's board yet"
        else:
            rank, players = (reply.me.rank if reply.me else None), reply.total
    end = DailyEnd(date, view, rank, players, ranked)
    picture = discord.File(io.BytesIO(daily_png(end, actor.locale)), filename=f"daily-{date}.png")
    try:
        await interaction.followup.send(daily_grid(end, actor.locale), file=picture)
    except discord.HTTPException as err:  # a channel that takes no public answer
        log.info("cannot post the daily card of %s: %s", actor.principal, err)
