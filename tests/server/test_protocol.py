"""The protocol's documentation and schema stay true to the message types."""

from __future__ import annotations

import json
import re
from pathlib import Path

import msgspec

from server import protocol as p
from server.protocol.schema import schema_text

DOCS = Path(__file__).resolve().parents[2] / "docs"
EXAMPLE = re.compile(r"```json\n(.*?)\n```", re.DOTALL)
SERVER_TYPES = {cls.__struct_config__.tag for cls in p.ServerMessage.__args__}


def examples() -> list[str]:
    """JSON examples of messages anywhere in docs/ (protocol.md and its companions)."""
    found = []
    for page in sorted(DOCS.glob("*.md")):
        for text in EXAMPLE.findall(page.read_text(encoding="utf-8")):
            try:
                value = json.loads(text)
            except ValueError:
                continue
            if isinstance(value, dict) and value.get("type") in p.CLIENT_TYPES | SERVER_TYPES:
                found.append(text)
    return found


def test_checked_in_schema_matches_the_message_types() -> None:
    checked_in = (DOCS / "protocol.schema.json").read_text(encoding="utf-8")
    assert checked_in == schema_text(), (
        "docs/protocol.schema.json is stale: "
        "python -m server.protocol.schema > docs/protocol.schema.json"
    )


def test_every_example_is_a_valid_message_and_every_type_has_one() -> None:
    seen: set[str] = set()
    for text in examples():
        kind = json.loads(text)["type"]
        if kind in p.CLIENT_TYPES:
            p.parse(text)
        else:
            msgspec.json.decode(text, type=p.ServerMessage)
        seen.add(kind)
    assert seen >= p.CLIENT_TYPES | SERVER_TYPES


def test_every_event_kind_has_an_example() -> None:
    kinds = {
        json.loads(text)["event"]["kind"]
        for text in examples()
        if json.loads(text)["type"] == "event"
    }
    assert kinds == {cls.__struct_config__.tag for cls in p.RaceEvent.__args__}


def test_the_engine_views_of_every_variant_are_player_views() -> None:
    """The typed view holds the data the engine builds, along random games of each variant."""
    import random

    import engine

    rng = random.Random(7)
    for variant in engine.VARIANTS:
        game = engine.new_game(variant, seed=rng.randrange(2**32))
        for _ in range(60):
            view = game.view()
            view.update(status="playing", started_at=1)
            typed = msgspec.convert(view, p.PlayerView)
            # Nothing of the engine's data is lost or renamed on the way.
            optional = {"seed", "deal_code", "passes", "runs_removed", "deals_left", "finished_at"}
            expected = {k: v for k, v in view.items() if not (k in optional and v is None)}
            assert msgspec.to_builtins(typed) == expected
            moves = list(game.legal_moves)
            if not moves:
                break
            game.play(rng.choice(moves))


def test_every_arena_event_kind_has_an_example() -> None:
    kinds = {
        json.loads(text)["event"]["kind"]
        for text in examples()
        if json.loads(text)["type"] == "arena_event"
    }
    assert kinds == {cls.__struct_config__.tag for cls in p.ArenaEventBody.__args__}
