"""How the bot says a daily attempt counts, from the server's daily_game reply."""

from __future__ import annotations

from typing import Any

from bot.i18n import text
from bot.play import daily_standing
from server import protocol as p


def reply(ranked: bool, unranked: Any = None) -> p.DailyGameReply:
    view = p.PlayerView(
        variant="klondike",
        options={},
        tableau=[],
        stock=None,
        waste=None,
        foundations=[],
        counters={},
        outcome=None,
        can_finish=False,
        legal_moves={},
        status="playing",
    )
    return p.DailyGameReply(
        game=1, ranked=ranked, date="2026-12-04", deadline=0, view=view, unranked=unranked
    )


def test_a_guests_attempt_says_sign_in_to_rank_and_a_later_one_practice() -> None:
    assert daily_standing(reply(True)) == "daily_ranked"
    guest = daily_standing(reply(False, "guest"))
    assert text("en", guest) == "not ranked: sign in to rank"
    assert text("de", guest) == "ohne Wertung: melde dich an, um gewertet zu werden"
    later = daily_standing(reply(False, "later_attempt"))
    assert later == daily_standing(reply(False)) == "daily_practice"
