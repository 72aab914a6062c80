"""One route for every client message: the registry against the protocol's closed set."""

from __future__ import annotations

import ast
from pathlib import Path

from server import protocol as p
from server.transport import handlers

SERVER = Path(__file__).resolve().parents[2] / "server"


def test_every_client_message_but_hello_has_exactly_one_route() -> None:
    # Built over no services: a route only names its service when it is called.
    routes = handlers.routes(None)  # type: ignore[arg-type]
    player, service = set(routes.player), set(routes.service)
    assert not player & service
    assert player | service | {p.Hello} == set(p.ClientMessage.__args__)


def test_no_module_above_the_transport_knows_websockets() -> None:
    """Services, core, store and protocol speak to subscribers, never to connections."""
    for layer in ("core", "services", "store", "protocol"):
        for module in (SERVER / layer).rglob("*.py"):
            tree = ast.parse(module.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                names = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module:
                    names = [node.module]
                for name in names:
                    assert not name.startswith(("websockets", "server.transport")), (
                        f"{module.relative_to(SERVER.parent)} imports {name}"
                    )
