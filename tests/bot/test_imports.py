"""The bot shares the server's protocol and nothing else of the server; the protocol
stands alone (msgspec and the standard library).

The imports are read from the source with ``ast``, so an import inside a function or
under ``TYPE_CHECKING`` counts as much as one at the top, and so does
``importlib.import_module("…")`` with a literal name.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def imported(source: str, module: str) -> Iterator[str]:
    """Every module name ``source`` (the module ``module``) imports, as a dotted name.

    ``from a import b`` yields ``a.b``, since ``b`` may be a module (``from server
    import protocol``); a name that is not a module (``a.b.SomeClass``) still starts
    with its module's name.
    """
    package = module.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolved against the importing package
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            yield from (
                base if alias.name == "*" else f"{base}.{alias.name}" for alias in node.names
            )
        elif isinstance(node, ast.Call) and _names_import_call(node.func) and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                yield first.value


def _names_import_call(func: ast.expr) -> bool:
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in {"import_module", "__import__"}


def package_imports(folder: str) -> dict[str, set[str]]:
    """Each module of the package ``folder`` (its dotted name) and what it imports."""
    found = {}
    for path in sorted((ROOT / folder).rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        found[module] = set(imported(path.read_text(encoding="utf-8"), module))
    return found


def is_protocol(name: str) -> bool:
    return name == "server.protocol" or name.startswith("server.protocol.")


class TestTheWalker:
    def test_it_sees_imports_wherever_they_are(self) -> None:
        source = """
from typing import TYPE_CHECKING
import importlib
from server import protocol as p
if TYPE_CHECKING:
    from server.core.race import Race
def later():
    import server.store.pool
    return importlib.import_module("server.services.arena")
"""
        names = set(imported(source + "import server\n", "bot.example"))
        assert "server" in names  # the bare package: its submodules would come by attribute
        assert {"server.protocol", "server.core.race.Race", "server.store.pool"} <= names
        assert "server.services.arena" in names

    def test_relative_imports_are_resolved(self) -> None:
        names = set(imported("from . import wire\nfrom ..core import race\n", "server.protocol.x"))
        assert {"server.protocol.wire", "server.core.race"} <= names


class TestTheBot:
    def test_the_bot_imports_nothing_of_the_server_but_its_protocol(self) -> None:
        modules = package_imports("bot")
        assert "bot.client" in modules and "bot.races" in modules
        wrong = {
            module: sorted(
                name for name in names if name.split(".")[0] == "server" and not is_protocol(name)
            )
            for module, names in modules.items()
        }
        assert {module: names for module, names in wrong.items() if names} == {}

    def test_the_client_and_the_race_message_use_the_protocol(self) -> None:
        modules = package_imports("bot")
        assert "server.protocol" in modules["bot.client"]
        assert "server.protocol" in modules["bot.races"]


class TestTheProtocol:
    def test_the_protocol_needs_only_msgspec_and_the_standard_library(self) -> None:
        modules = package_imports("server/protocol")
        assert "server.protocol.wire" in modules
        allowed = set(sys.stdlib_module_names) | {"msgspec"}
        wrong = {
            module: sorted(
                name
                for name in names
                if not is_protocol(name) and name.split(".")[0] not in allowed
            )
            for module, names in modules.items()
        }
        assert {module: names for module, names in wrong.items() if names} == {}
