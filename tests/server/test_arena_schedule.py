"""The operator's schedule of rated arenas: read from the settings, created once each."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hand_clock import Clock, services_on

from server import protocol as p
from server.core.arena_schedule import ScheduleEntry
from server.ops.config import ServerConfig, from_environment


def at(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp() * 1000)


class TestEntries:
    def test_every_full_hour(self) -> None:
        entry = ScheduleEntry.parse("klondike:60:30")
        assert (entry.variant, entry.every_ms, entry.duration_ms) == (
            "klondike",
            3_600_000,
            1_800_000,
        )
        assert entry.next_start(at("2026-03-14 10:45:00")) == at("2026-03-14 11:00:00")
        assert entry.next_start(at("2026-03-14 11:00:00")) == at("2026-03-14 11:00:00")
        assert entry.due(at("2026-03-14 10:45:00"), ahead_ms=600_000) is None
        assert entry.due(at("2026-03-14 10:50:00"), ahead_ms=600_000) == at("2026-03-14 11:00:00")

    @pytest.mark.parametrize(
        ("text", "problem"),
        [
            ("klondike:60", "write VARIANT:EVERY_MINUTES:MINUTES"),
            ("chess:60:30", "unknown variant 'chess'"),
            ("klondike:60:90", "5 to 60 minutes"),
            ("klondike:20:30", "would overlap"),
        ],
    )
    def test_a_bad_entry_is_named(self, text: str, problem: str) -> None:
        with pytest.raises(ValueError, match=problem) as caught:
            ScheduleEntry.parse(text)
        assert text in str(caught.value)

    def test_from_the_environment(self) -> None:
        config = from_environment({"SOLITAIRE_ARENA_SCHEDULE": "klondike:60:30, yukon:1440:60"})
        assert config.arena_schedule == ("klondike:60:30", "yukon:1440:60")


async def test_a_scheduled_arena_is_created_once_rated_and_listed(
    migrated_database_url: str,
) -> None:
    clock = Clock(at("2026-03-14 10:30:00"))
    config = ServerConfig(
        daily_prepare_ahead=False, arena_schedule=("klondike:60:30",), arena_schedule_ahead_s=3600
    )
    async with services_on(migrated_database_url, clock, config) as first:
        async with services_on(migrated_database_url, clock, config) as second:
            for services in (first, second, first):
                await services.arenas.create_scheduled()
        ann = await first.storage.create_guest("Ann", "en")
        listed = await first.arenas.open_arenas(ann, p.ListArenas())
    (arena,) = listed.arenas
    assert arena.state == "upcoming" and arena.settings.rated
    assert (arena.starts_at, arena.ends_at) == (
        at("2026-03-14 11:00:00"),
        at("2026-03-14 11:30:00"),
    )
    assert arena.settings.minutes == 30 and arena.settings.variant == "klondike"
