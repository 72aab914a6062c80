"""How the bot says a daily attempt counts, from the server's daily_game reply."""

from __future__ import annotations

from bot.i18n import text
from bot.table import daily_standing


def test_a_guests_attempt_says_sign_in_to_rank_and_a_later_one_practice() -> None:
    assert daily_standing({"ranked": True}) == "daily_ranked"
    guest = daily_standing({"ranked": False, "unranked": "guest"})
    assert text("en", guest) == "not ranked: sign in to rank"
    assert text("de", guest) == "ohne Wertung: melde dich an, um gewertet zu werden"
    later = daily_standing({"ranked": False, "unranked": "later_attempt"})
    assert later == daily_standing({"ranked": False}) == "daily_practice"
