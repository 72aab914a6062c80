"""Imports point one way through the server's layers (docs/architecture.md):

    protocol  <  core  <  store  <  services  <  transport  <  ops.cli, ops.serve, ops.players

A module imports server modules only from its own layer and the layers before it; the
settings, metrics and logs of ``ops`` stand beside the store and serve every layer but
the pure ones (the settings name the embedded database's folder), and nothing
above the transport knows websockets. ``arena -> daily -> arena`` was a cycle once.
"""

from __future__ import annotations

import ast
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "server"
LAYERS = ["protocol", "core", "store", "services", "transport"]
OPS_LEAVES = ("server.ops.config", "server.ops.metrics", "server.ops.logs")
TOP = ("server/ops/cli.py", "server/ops/serve.py", "server/ops/players.py", "server/__main__.py")


def imported(path: Path) -> set[str]:
    """The modules ``path`` imports (``from a import b`` counts as ``a`` and ``a.b``),
    wherever the import stands, under ``TYPE_CHECKING`` too."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def allowed(layer: str, name: str) -> bool:
    """Whether a module of ``layer`` may import the server module ``name``."""
    if name == "server" or name.startswith("server.protocol"):
        return True  # ``from server import protocol``
    if name.startswith(OPS_LEAVES):
        return layer not in ("protocol", "core")
    parts = name.split(".")
    if len(parts) < 2 or parts[1] not in LAYERS:
        return False
    return LAYERS.index(parts[1]) <= LAYERS.index(layer)


def test_every_import_points_down_the_layers() -> None:
    wrong = []
    for path in sorted(SERVER.rglob("*.py")):
        relative = str(path.relative_to(SERVER.parent))
        layer = path.relative_to(SERVER).parts[0]
        if relative in TOP or layer not in [*LAYERS, "ops"]:
            continue
        if layer == "ops":
            layer = "store"  # settings, metrics and logs stand beside the store
        for name in imported(path):
            if name.startswith("server") and not allowed(layer, name):
                wrong.append(f"{relative} imports {name}")
            if name.startswith("websockets") and layer != "transport":
                wrong.append(f"{relative} imports {name}")
    assert wrong == []


def test_the_protocol_imports_nothing_of_the_server_but_itself() -> None:
    for path in sorted((SERVER / "protocol").glob("*.py")):
        outside = {
            name
            for name in imported(path)
            if name.split(".")[0] == "server" and not name.startswith("server.protocol")
        }
        assert outside <= {"server"}, path.name
