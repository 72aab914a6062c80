"""Frames to throw at a live server, and a client that throws them and keeps the score.

The frames come from the protocol's JSON Schema (docs/protocol.schema.json): a message
of every client type with values drawn to fit the schema, and the same with one field
swapped for something hostile (ids of 2^63 and beyond, negative numbers, NULs and odd
Unicode in strings, a value of the wrong type, nesting 1,000 deep). Beside them: raw
bytes, text that is no JSON, type confusion (``{"type": {}}``), deep nesting, numbers
JSON has no room for. Every draw comes from one ``random.Random``, so a seed repeats a run.

hypothesis-jsonschema would be the usual generator, but its last release (0.23.1) fails
on the Hypothesis this project uses ("'many' object has no attribute 'more'"). The schema
here is small and plain (objects, anyOf, const, enum, integers, strings, patterns), so a
walk over it does the job, drawing straight from a seeded ``random.Random``.

``Fuzzer`` sends frames one at a time on a few connections (some never say hello, some
are guests, some service clients) and waits for each answer: the next message that is
no event. It tallies error codes and close codes; a frame left unanswered is recorded.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "docs" / "protocol.schema.json"
SERVICE_TOKEN = "fuzz-service-token"

HOSTILE_INTS = [
    0,
    -1,
    -(2**31),
    2**31,
    2**53 + 1,
    2**63 - 1,
    2**63,
    -(2**63),
    -(2**63) - 1,
    2**64,
    2**64 + 1,
    10**30,
    -(10**30),
]
HOSTILE_STRINGS = [
    "",
    "\x00",
    "a\x00b",
    "discord:\x00",
    "discord:1\x00",
    "discord:" + "9" * 40,
    "discord:-1",
    "guest:1",
    "\u202eevil",
    "\ufeff",
    "\U0010ffff",
    "\U0001f0a1\U0001f0b1",
    "\u0301" * 50,
    "é" * 200,
    "x" * 3000,
    "' or 1=1; --",
    "%s%s%n",
    "\\u0000",
    "\r\n\t",
    "1" * 30,
    "2026-02-30",
    "9999-99-99",
    "0000-00-00",
]
DEEP = 1000


def deep_list(depth: int = DEEP) -> Any:
    value: Any = []
    for _ in range(depth - 1):
        value = [value]
    return value


def deep_object(depth: int = DEEP) -> Any:
    value: Any = {}
    for _ in range(depth - 1):
        value = {"a": value}
    return value


class SchemaWalker:
    """Values that fit (or, on purpose, break) the schema's client messages."""

    def __init__(self, rng: random.Random) -> None:
        schema = json.loads(SCHEMA_FILE.read_text())
        self.defs: dict[str, Any] = schema["$defs"]
        self.messages = [ref["$ref"] for ref in schema["oneOf"][0]["anyOf"]]
        self.rng = rng

    def message(self) -> dict[str, Any]:
        """A client message of a random type, every field drawn to fit."""
        value = self.value({"$ref": self.rng.choice(self.messages)}, 0)
        assert isinstance(value, dict)
        return value

    def value(self, node: dict[str, Any], depth: int) -> Any:
        rng = self.rng
        if "$ref" in node:
            return self.value(self.defs[node["$ref"].rsplit("/", 1)[1]], depth)
        if "const" in node:
            return node["const"]
        if "enum" in node:
            return rng.choice(node["enum"])
        if "anyOf" in node:
            return self.value(rng.choice(node["anyOf"]), depth)
        kind = node.get("type")
        if kind == "object":
            return self.object(node, depth)
        if kind == "array":
            items = node.get("items", {})
            # A few items near the top (a record's actions), none deep down.
            size = rng.randrange(4) if depth < 3 else 0
            return [self.value(items, depth + 1) for _ in range(size)]
        if kind == "integer":
            low = node.get("minimum", -5)
            high = node.get("maximum", low + 50)
            return rng.randint(low, high)
        if kind == "number":
            return rng.uniform(-10, 1000)
        if kind == "boolean":
            return rng.random() < 0.5
        if kind == "string":
            return self.string(node)
        if kind == "null":
            return None
        return None  # {} (anything): nothing in particular

    def object(self, node: dict[str, Any], depth: int) -> dict[str, Any]:
        properties: dict[str, Any] = node.get("properties", {})
        required = set(node.get("required", []))
        out = {}
        for name, schema in properties.items():
            if name in required or self.rng.random() < 0.4:
                out[name] = self.value(schema, depth + 1)
        if not properties and depth < 3 and self.rng.random() < 0.3:
            out["x"] = self.rng.choice([1, "y", None, [2]])  # a free-form object's content
        return out

    def string(self, node: dict[str, Any]) -> str:
        rng = self.rng
        pattern = node.get("pattern", "")
        if pattern.startswith("^\\d{4}"):
            return f"{rng.randint(2024, 2030)}-{rng.randint(1, 12):02}-{rng.randint(1, 28):02}"
        if node.get("format") == "date-time":
            return "2026-12-02T12:00:00Z"
        words = ["d", "w", "1", "t3", "f", "ann", "klondike", "spider", "yukon", "discord:42"]
        return rng.choice(words) if rng.random() < 0.7 else rng.choice(HOSTILE_STRINGS)

    def hostile(self) -> Any:
        """Something no field of a message expects."""
        rng = self.rng
        return rng.choice(
            [
                rng.choice(HOSTILE_INTS),
                rng.choice(HOSTILE_STRINGS),
                rng.choice([None, True, False, 1.5, -0.0, 1e300, [], {}, [1, "a"], {"a": 1}]),
                # Deeper ones are written as text (nested()): json.dumps stops near 1,000.
                deep_list(rng.choice([10, 100, 400])),
                deep_object(rng.choice([10, 100, 400])),
            ]
        )

    def mutated(self) -> dict[str, Any]:
        """A message of the schema with one field (perhaps ``type`` or ``id``) made hostile."""
        message = self.message()
        target = message
        act_as = message.get("act_as")
        if isinstance(act_as, dict) and self.rng.random() < 0.3:
            target = act_as
        names = [*target, "id", "type", "act_as", "zzz"]
        target[self.rng.choice(names)] = self.hostile()
        return message


def json_text(value: Any) -> str:
    """JSON text of ``value``; ensure_ascii sometimes, so lone escapes reach the server."""
    return json.dumps(value, ensure_ascii=False, allow_nan=True)


@dataclass
class Frames:
    """Draws the next frame to send: a mix of every kind, from one seed."""

    seed: int
    rng: random.Random = field(init=False)
    walker: SchemaWalker = field(init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.walker = SchemaWalker(self.rng)

    def next(self) -> tuple[str, str | bytes]:
        """(kind, frame): a frame to send and what kind of frame it is."""
        rng = self.rng
        roll = rng.random()
        if roll < 0.35:
            return "schema", json_text(self.walker.message())
        if roll < 0.70:
            return "mutated", json_text(self.walker.mutated())
        if roll < 0.78:
            return "confused", json_text(self.confused())
        if roll < 0.84:
            return "nested", self.nested()
        if roll < 0.90:
            return "numbers", self.numbers()
        if roll < 0.95:
            return "bytes", rng.randbytes(rng.randrange(0, 300))
        return "text", self.text()

    def confused(self) -> Any:
        rng = self.rng
        kinds = ["hello", "move", "create_race", "get_race", "join_race", "practice", "undo"]
        shape = rng.choice([{}, [], None, 7, 2**64, 1.5, True, "", "\x00", ["hello"], {"a": 1}])
        message: dict[str, Any] = {"type": shape}
        if rng.random() < 0.5:
            message = {"type": rng.choice(kinds), "id": shape}
        if rng.random() < 0.2:
            return rng.choice([[message], "hello", 42, None, [], True])
        return message

    def nested(self) -> str:
        rng = self.rng
        depth = rng.choice([DEEP, DEEP * 2, 5000])
        choice = rng.random()
        if choice < 0.3:
            return "[" * depth + "]" * depth
        if choice < 0.6:
            return '{"a":' * depth + "1" + "}" * depth
        field = rng.choice(["name", "context", "options", "act_as", "id", "text", "type"])
        inner = "[" * depth + "]" * depth
        return (
            json.dumps({"type": "hello", "protocol": 1, "id": 1})[:-1] + f', "{field}": {inner}}}'
        )

    def numbers(self) -> str:
        rng = self.rng
        number = rng.choice(
            [
                "1e309",
                "-1e309",
                "1e-400",
                "NaN",
                "Infinity",
                "-0",
                "123456789012345678901234567890",
                "-123456789012345678901234567890",
                str(2**63),
                str(2**64),
                str(-(2**63) - 1),
                "1.0",
                "0x10",
                "01",
            ]
        )
        field = rng.choice(["id", "race", "game", "seed", "protocol", "max_players", "limit"])
        kind = rng.choice(["get_race", "join_race", "move", "create_race", "hello", "get_view"])
        return f'{{"type": "{kind}", "{field}": {number}, "id": 5}}'

    def text(self) -> str:
        rng = self.rng
        return rng.choice(
            [
                "",
                " ",
                "{",
                "}",
                "null",
                '"hello"',
                "[1,2",
                '{"type": "hello"',
                '{"type": "hello"}}',
                '{"type": "hello", "type": "move"}',
                "\ufeff{}",
                "\x00",
                '{"type": "\\ud800"}',
                '{"type": "hello", "name": "\\udfff"}',
                '{"type":"hello","protocol":1,"name":"a\\u0000b"}',
            ]
        )


@dataclass
class Score:
    """What the server answered, and how it closed connections."""

    sent: int = 0
    answered: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    replies: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    closes: Counter[int] = field(default_factory=Counter)
    unanswered: list[str] = field(default_factory=list)
    internal: list[str] = field(default_factory=list)


# Close codes docs/protocol.md documents for a client's own doing (1011 is only for
# unanswered pings, which a fuzzing client always answers: here it is a failure).
DOCUMENTED_CLOSES = frozenset({1000, 1001, 1008, 1009, 4000})


class Fuzzer:
    """Sends frames on ``connections`` connections at once and keeps the ``Score``."""

    # Seconds an answer may take: the first request for a day's deal waits while the
    # solver proves one (up to 20 s a candidate), on a machine that may be busy.
    ANSWER_TIMEOUT = 120.0

    def __init__(
        self, port: int, seed: int, connections: int = 4, timeout: float = ANSWER_TIMEOUT
    ) -> None:
        self.url = f"ws://127.0.0.1:{port}/"
        self.seed = seed
        self.connections = connections
        self.timeout = timeout
        self.score = Score()

    async def run(self, messages: int) -> Score:
        shares = [messages // self.connections] * self.connections
        shares[0] += messages - sum(shares)
        await asyncio.gather(*(self._lane(i, share) for i, share in enumerate(shares)))
        return self.score

    async def _lane(self, lane: int, count: int) -> None:
        frames = Frames(self.seed * 1000 + lane)
        rng = random.Random(self.seed * 7919 + lane)
        left = count
        while left > 0:
            websocket = await connect(self.url, max_queue=None, max_size=None)
            try:
                left -= await self._greet(websocket, rng)
                while left > 0:
                    left -= 1
                    kind, frame = frames.next()
                    if not await self._exchange(websocket, kind, frame):
                        break
                    if rng.random() < 0.01:  # a fresh connection now and then
                        break
            finally:
                await websocket.close()

    async def _greet(self, websocket: ClientConnection, rng: random.Random) -> int:
        """Say hello as a guest or a service, or (a fifth of the time) not at all."""
        roll = rng.random()
        if roll < 0.2:
            return 0
        hello: dict[str, Any] = {"type": "hello", "id": "hi", "protocol": 1, "name": "Fuzz"}
        if roll < 0.5:
            hello = {"type": "hello", "id": "hi", "protocol": 1, "service_token": SERVICE_TOKEN}
        await self._exchange(websocket, "hello", json.dumps(hello))
        return 1

    async def _exchange(self, websocket: ClientConnection, kind: str, frame: str | bytes) -> bool:
        """Send one frame, wait for its answer; False when the server closed."""
        score = self.score
        score.sent += 1
        score.kinds[kind] += 1
        asked = _type_of(frame)
        try:
            await websocket.send(frame)
            while True:
                answer = json.loads(await asyncio.wait_for(websocket.recv(), self.timeout))
                kind_of = answer.get("type")
                if kind_of == "event" or (
                    kind_of == "winnability" and answer.get("id") is None and asked != "check"
                ):
                    continue  # unasked: a race event, a verdict on a game
                break
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd is not None else 1006
            score.closes[code] += 1
            return False
        except TimeoutError:
            score.unanswered.append(_shown(frame))
            return False
        score.answered += 1
        score.replies[str(kind_of)] += 1
        if kind_of == "error":
            score.errors[str(answer.get("code"))] += 1
            if answer.get("code") == "internal":
                score.internal.append(_shown(frame))
        return True


def _type_of(frame: str | bytes) -> Any:
    try:
        value = json.loads(frame)
    except (ValueError, RecursionError):
        return None
    return value.get("type") if isinstance(value, dict) else None


def _shown(frame: str | bytes) -> str:
    return repr(frame[:300])
