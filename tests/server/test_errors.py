"""The error tree: its docstring, its classes and the codes the server raises agree."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from server.protocol import errors

SERVER = Path(__file__).resolve().parents[2] / "server"
CLASS_LINE = re.compile(r"(\w+Error)\s")
CODE = re.compile(r"^[a-z_]+$")


def documented_tree() -> dict[str, set[str]]:
    """Each class of the module docstring's tree with the codes listed under it."""
    assert errors.__doc__ is not None
    tree: dict[str, set[str]] = {}
    current = None
    for line in errors.__doc__.splitlines():
        text = line.strip(" │├└─")
        found = CLASS_LINE.match(text + " ")
        if found:
            current = found.group(1)
            tree[current] = set()
        elif current is not None and text:
            tree[current] |= {word.strip() for word in text.split(",") if word.strip()}
    return tree


def error_classes() -> dict[str, type[errors.ArenaError]]:
    return {cls.__name__: cls for cls in (errors.ArenaError, *errors.ArenaError.__subclasses__())}


def test_the_docstring_tree_is_the_classes_and_their_codes() -> None:
    tree = documented_tree()
    classes = error_classes()
    assert set(tree) == set(classes)
    for name, cls in classes.items():
        assert all(CODE.match(code) for code in tree[name]), tree[name]
        assert tree[name] == set(cls.messages), name
        assert cls.code in cls.messages, f"{name}'s default code is its own"


def test_codes_are_unique_across_classes() -> None:
    owners: dict[str, str] = {}
    for name, cls in error_classes().items():
        for code in cls.messages:
            assert code not in owners, f"{code} is owned by {owners[code]} and {name}"
            owners[code] = name


def test_a_class_refuses_a_code_it_does_not_own() -> None:
    with pytest.raises(ValueError, match="GameError has no code 'race_full'"):
        errors.GameError("race_full")


def raised_codes() -> list[tuple[str, str, str]]:
    """(module, class, code) for every error built with a literal code in server/."""
    classes = error_classes()
    found = []
    for module in SERVER.rglob("*.py"):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            if node.func.id not in classes or not node.args:
                continue
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.append((str(module.relative_to(SERVER.parent)), node.func.id, first.value))
    return found


def test_every_code_the_server_raises_belongs_to_the_class_raised() -> None:
    raised = raised_codes()
    assert len(raised) > 40  # the walk really finds the server's raises
    classes = error_classes()
    wrong = [(m, c, code) for m, c, code in raised if code not in classes[c].messages]
    assert wrong == []
    documented = set().union(*documented_tree().values())
    assert {code for _, _, code in raised} <= documented
