"""The JSON Schema of the protocol, generated from the message types.

Checked in at docs/protocol.schema.json (``python -m server.protocol.schema >
docs/protocol.schema.json``); a test fails when it is stale.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from server.protocol.envelope import PROTOCOL_VERSION
from server.protocol.wire import ClientMessage, ServerMessage


def schema() -> dict[str, Any]:
    """The JSON Schema of both directions, as checked in at docs/protocol.schema.json."""
    (client, server), components = msgspec.json.schema_components(
        [ClientMessage, ServerMessage], ref_template="#/$defs/{name}"
    )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"Solitaire Arena protocol, version {PROTOCOL_VERSION}",
        "description": "Client messages (client_message) and server messages (server_message).",
        "$defs": components,
        "oneOf": [
            {"title": "client_message", **client},
            {"title": "server_message", **server},
        ],
    }


def schema_text() -> str:
    """The schema as checked in: indented JSON with sorted keys and a final newline."""
    return json.dumps(schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    # python -m server.protocol.schema > docs/protocol.schema.json
    print(schema_text(), end="")
