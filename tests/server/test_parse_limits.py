"""What parse refuses before a value reaches the database or the connection: type
confusion, deep nesting, integers past 64 bits, NULs. Each is a typed error."""

from __future__ import annotations

import json

import pytest

from server import protocol as p
from server.protocol.errors import ProtocolError
from server.protocol.wire import INT64_MAX, INT64_MIN


def refused(frame: str) -> ProtocolError:
    with pytest.raises(ProtocolError) as raised:
        p.parse(frame)
    return raised.value


@pytest.mark.parametrize("shape", ["{}", "[]", "null", "7", '["hello"]', '{"a": 1}'])
def test_a_type_that_is_no_string_is_an_unknown_type(shape: str) -> None:
    error = refused(f'{{"type": {shape}, "id": 3}}')
    assert error.code == "unknown_type"
    assert error.request_id == 3


@pytest.mark.parametrize(
    "frame",
    [
        "[" * 1000 + "]" * 1000,
        '{"a":' * 1000 + "1" + "}" * 1000,
        '{"type": "hello", "protocol": 1, "name": ' + "[" * 1000 + "]" * 1000 + "}",
    ],
)
def test_nesting_a_thousand_deep_is_an_invalid_message(frame: str) -> None:
    error = refused(frame)
    assert (error.code, error.details["reason"]) == ("invalid_message", p.wire.TOO_DEEP)
    assert p.request_id_of(frame) is None


@pytest.mark.parametrize("number", [INT64_MAX + 1, INT64_MIN - 1, 2**64, -(10**30)])
@pytest.mark.parametrize("field", ["race", "game"])
def test_an_integer_past_64_bits_is_an_invalid_message(number: int, field: str) -> None:
    kind = "get_race" if field == "race" else "get_view"
    error = refused(json.dumps({"type": kind, "id": 4, field: number}))
    assert error.code == "invalid_message"
    assert "64 bits" in error.details["reason"]
    assert error.request_id == 4


def test_the_largest_and_smallest_64_bit_integers_pass() -> None:
    for number in (INT64_MAX, INT64_MIN):
        message = p.parse(json.dumps({"type": "get_race", "id": 1, "race": number}))
        assert isinstance(message, p.GetRace) and message.race == number


def test_an_id_past_64_bits_is_not_copied_into_the_answer() -> None:
    error = refused(json.dumps({"type": "get_race", "id": 2**63, "race": 1}))
    assert error.code == "invalid_message"
    assert error.request_id is None
    assert p.request_id_of(json.dumps({"type": "x", "id": 2**64})) is None


@pytest.mark.parametrize(
    "message",
    [
        {"type": "hello", "id": 5, "protocol": 1, "name": "Ann\x00"},
        {"type": "open_races", "id": 5, "guild_id": "12\x00"},
        {"type": "create_race", "id": 5, "variant": "klondike", "context": {"a": ["\x00"]}},
        {"type": "create_race", "id": 5, "variant": "klondike", "context": {"\x00": 1}},
    ],
)
def test_a_nul_in_any_string_is_an_invalid_message(message: dict[str, object]) -> None:
    error = refused(json.dumps(message))
    assert error.code == "invalid_message"
    assert "NUL" in error.details["reason"]
    assert error.request_id == 5


def test_a_number_past_a_floats_range_is_bad_json() -> None:
    frame = '{"type": "create_race", "id": 6, "variant": "klondike", "context": {"a": 1e999}}'
    assert refused(frame).code == "bad_json"


def test_a_raw_nul_is_no_json() -> None:
    assert refused('{"type": "hello", "protocol": 1, "name": "a\x00b"}').code == "bad_json"


def test_a_seed_has_the_range_of_a_deal_number_not_of_an_id() -> None:
    """Deal numbers go to 2^64−1; past 2^63 only a seed may go (its range is the game's)."""
    top = 2**64 - 1
    message = p.parse(json.dumps({"type": "practice", "variant": "klondike", "seed": top}))
    assert isinstance(message, p.Practice) and message.seed == top
    with pytest.raises(ProtocolError):
        p.parse(json.dumps({"type": "get_view", "game": top}))
