"""Imports point one way: the pure core reaches only the protocol, and no service reaches
back into the arena (which builds the services; ``arena -> daily -> arena`` was a cycle)."""

from __future__ import annotations

import ast
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "server"


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


def test_the_core_imports_only_the_protocol_and_itself() -> None:
    for path in sorted((SERVER / "core").glob("*.py")):
        server_imports = {name for name in imported(path) if name.split(".")[0] == "server"}
        outside = {
            name
            for name in server_imports
            if not name.startswith(("server.core", "server.protocol")) and name != "server"
        }
        assert outside == set(), path.name


def test_no_service_imports_the_arena() -> None:
    for path in sorted((SERVER / "services").glob("*.py")):
        if path.name != "arena.py":
            assert "server.services.arena" not in imported(path), path.name
