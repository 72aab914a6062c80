"""The calendar of daily deals (server/core/calendar.py): UTC days and closing times,
without a database or a clock."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import given, strategies as st

from server.core.calendar import (
    DAY_MS,
    closes_at_ms,
    day_of,
    day_start_ms,
    moment_iso,
    parse_day,
    starts_until_ms,
)
from server.protocol.errors import GameError

DAY = date(2026, 3, 14)
HOUR_MS = 3_600_000
# Server times from 1970 to 2100, in milliseconds.
MOMENTS = st.integers(min_value=0, max_value=4_102_444_800_000)


class TestDays:
    def test_a_day_starts_at_midnight_utc(self):
        assert day_start_ms(DAY) == 1_773_446_400_000
        assert moment_iso(day_start_ms(DAY)) == "2026-03-14T00:00:00+00:00"

    def test_midnight_belongs_to_the_day_it_starts(self):
        midnight = day_start_ms(DAY)
        assert day_of(midnight) == DAY
        assert day_of(midnight - 1) == DAY - timedelta(days=1)
        assert day_of(midnight + DAY_MS - 1) == DAY

    @given(MOMENTS)
    def test_every_moment_lies_within_its_day(self, ms: int):
        day = day_of(ms)
        assert day_start_ms(day) <= ms < starts_until_ms(day)

    @pytest.mark.parametrize(
        "day",
        [date(2026, 12, 31), date(2028, 2, 28), date(2028, 2, 29), date(2026, 3, 29)],
    )
    def test_a_day_ends_where_the_next_begins(self, day: date):
        """Year's end, a leap day, and the night Europe moves its clocks: UTC days have
        no gaps and no overlaps, always 24 hours."""
        assert starts_until_ms(day) == day_start_ms(day + timedelta(days=1))
        assert starts_until_ms(day) - day_start_ms(day) == DAY_MS


class TestClosing:
    def test_a_day_closes_when_its_last_attempt_has_run_out(self):
        closes = closes_at_ms(DAY, HOUR_MS)
        assert moment_iso(closes) == "2026-03-15T01:00:00+00:00"
        # the last attempt of the day starts a millisecond before the next midnight and
        # runs out a millisecond before the close
        last_start = starts_until_ms(DAY) - 1
        assert day_of(last_start) == DAY
        assert last_start + HOUR_MS == closes - 1

    def test_the_closing_follows_the_play_time_limit(self):
        assert closes_at_ms(DAY, 0) == starts_until_ms(DAY)
        assert closes_at_ms(DAY, 2 * HOUR_MS) - closes_at_ms(DAY, HOUR_MS) == HOUR_MS


class TestParseDay:
    @pytest.mark.parametrize("text", [None, ""])
    def test_no_date_means_today_in_utc(self, text: str | None):
        late = day_start_ms(DAY) + DAY_MS - 1
        assert parse_day(text, late) == DAY
        assert parse_day(text, late + 1) == DAY + timedelta(days=1)

    def test_a_date_is_read_as_written(self):
        assert parse_day("2026-02-28", day_start_ms(DAY)) == date(2026, 2, 28)

    @pytest.mark.parametrize("text", ["2026-02-30", "2026-13-01", "yesterday"])
    def test_a_date_that_does_not_exist_is_refused(self, text: str):
        with pytest.raises(GameError) as refused:
            parse_day(text, day_start_ms(DAY))
        assert refused.value.code == "invalid_options"
        assert repr(text) in str(refused.value.details["reason"])
