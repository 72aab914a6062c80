"""docker-compose.yml, the Dockerfile and deploy/haproxy.cfg agree with the code.

Docker does not run on the development machines, so these tests read the files: every
service built from our image runs a ``solitaire`` subcommand that server/ops/cli.py really
registers (with the options given), and every environment variable it sets is one the
code reads. A variable counts as read when either

- the source of engine/, server/ or bot/ reads it by name: ``os.environ[...]``,
  ``os.environ.get(...)``, ``os.getenv(...)`` or ``.get`` on any mapping named
  ``environ``/``env``, the key a string or a module-level string constant; or
- building the ``solitaire`` parser and parsing the service's command asks the process
  environment for it (this finds names the code builds, such as ``"SOLITAIRE_" + field``).
"""

from __future__ import annotations

import ast
import contextlib
import os
import re
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from server.ops.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "server", "bot")
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES: dict[str, dict[str, Any]] = COMPOSE["services"]
OUR_SERVICES = sorted(name for name, service in SERVICES.items() if "build" in service)
SERVERS = [f"server-{index}" for index in range(3)]
HAPROXY_CONFIG = (ROOT / "deploy" / "haproxy.cfg").read_text()


def environment_variables_read(sources: Iterable[str]) -> set[str]:
    """Names of the environment variables that these Python sources read."""
    constants: dict[str, str] = {}
    keys: list[ast.expr] = []
    for source in sources:
        tree = ast.parse(source)
        for statement in tree.body:
            target, value = _constant_assignment(statement)
            if target is not None and isinstance(value, str):
                constants[target] = value
        keys.extend(key for node in ast.walk(tree) if (key := _environment_key(node)) is not None)
    names = set()
    for key in keys:
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            names.add(key.value)
        elif isinstance(key, ast.Name) and key.id in constants:
            names.add(constants[key.id])
        elif isinstance(key, ast.Attribute) and key.attr in constants:
            names.add(constants[key.attr])
    return names


def _constant_assignment(statement: ast.stmt) -> tuple[str | None, object]:
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        target = statement.target
    else:
        return None, None
    if isinstance(target, ast.Name) and isinstance(statement.value, ast.Constant):
        return target.id, statement.value.value
    return None, None


def _environment_key(node: ast.AST) -> ast.expr | None:
    if isinstance(node, ast.Subscript) and _is_environment(node.value):
        return node.slice
    if not isinstance(node, ast.Call) or not node.args:
        return None
    function = node.func
    if isinstance(function, ast.Name) and function.id == "getenv":
        return node.args[0]
    if isinstance(function, ast.Attribute) and (
        function.attr == "getenv" or (function.attr == "get" and _is_environment(function.value))
    ):
        return node.args[0]
    return None


def _is_environment(node: ast.expr) -> bool:
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)
    return name in {"environ", "env", "environment"}


class RecordingEnviron(dict[str, str]):
    """A stand-in for ``os.environ`` that remembers every name asked for."""

    def __init__(self, values: dict[str, str]) -> None:
        super().__init__(values)
        self.asked: set[str] = set()

    def __getitem__(self, name: str) -> str:
        self.asked.add(name)
        return super().__getitem__(name)

    def __contains__(self, name: object) -> bool:
        self.asked.add(str(name))
        return super().__contains__(name)

    def get(self, name: str, default: Any = None) -> Any:  # type: ignore[override]
        self.asked.add(name)
        return super().get(name, default)


def variables_asked_for_by(args: list[str], monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """Names the ``solitaire`` parser asks the environment for while parsing ``args``."""
    environ = RecordingEnviron(dict(os.environ))
    with monkeypatch.context() as patch:
        patch.setattr(os, "environ", environ)
        # A command that does not parse is reported by test_the_command_is_a_real_...
        with contextlib.suppress(SystemExit):
            build_parser().parse_args(args)
    return environ.asked


def without_interpolation(value: str) -> str:
    """A compose value with each ``${VARIABLE...}`` replaced by a plain word."""
    return re.sub(r"\$\{[^}]*\}", "secret", value)


def package_sources() -> list[str]:
    return [
        path.read_text("utf-8") for package in PACKAGES for path in (ROOT / package).rglob("*.py")
    ]


def console_scripts() -> set[str]:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return set(pyproject["project"]["scripts"])


class TestEnvironmentScan:
    def test_finds_every_way_of_reading_a_variable(self) -> None:
        source = """
import os
from os import environ, getenv
PORT_VARIABLE = "SOLITAIRE_PORT"
def settings(env):
    os.environ["A"]; os.environ.get("B"); os.getenv("C"); environ.get("D"); getenv("E")
    env.get("F"); os.environ.get(PORT_VARIABLE); config.get("NOT_THE_ENVIRONMENT")
"""
        assert environment_variables_read([source]) == {"A", "B", "C", "D", "E", "F"} | {
            "SOLITAIRE_PORT"
        }

    def test_finds_what_the_code_reads_today(self) -> None:
        assert "SOLITAIRE_DATABASE_URL" in environment_variables_read(package_sources())

    def test_records_what_parsing_a_command_asks_for(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.delenv("SOLITAIRE_DATABASE_URL", raising=False)
        assert "SOLITAIRE_DATABASE_URL" in variables_asked_for_by(["migrate"], monkeypatch)
        assert "SOLITAIRE_DATABASE_URL" not in os.environ


class TestCompose:
    def test_postgres_has_a_health_check_and_keeps_its_data_in_a_named_volume(self) -> None:
        postgres = SERVICES["postgres"]
        assert postgres["image"].startswith("postgres:")
        assert "pg_isready" in " ".join(postgres["healthcheck"]["test"])
        volumes = {mount.split(":")[0]: mount.split(":")[1] for mount in postgres["volumes"]}
        assert set(volumes) <= set(COMPOSE["volumes"])
        assert "/var/lib/postgresql/data" in volumes.values()

    def test_the_bot_keeps_its_state_folder_in_a_named_volume(self) -> None:
        bot = SERVICES["bot"]
        folder = bot["environment"]["SOLITAIRE_BOT_STATE"]
        volumes = {mount.split(":")[0]: mount.split(":")[1] for mount in bot["volumes"]}
        assert set(volumes) <= set(COMPOSE["volumes"]) and folder in volumes.values()
        # The image makes the folder its user's, so a new volume mounted there is writable.
        dockerfile = (ROOT / "Dockerfile").read_text()
        assert f"install --directory --owner solitaire {folder}" in dockerfile

    def test_servers_and_bot_run_from_one_image(self) -> None:
        assert ["bot", *SERVERS] == OUR_SERVICES
        bot = SERVICES["bot"]
        for name in SERVERS:
            server = SERVICES[name]
            assert (server["build"], server["image"]) == (bot["build"], bot["image"])
        assert (ROOT / bot["build"] / "Dockerfile").is_file()

    @pytest.mark.parametrize("server", SERVERS)
    def test_each_server_waits_for_a_healthy_database(self, server: str) -> None:
        assert SERVICES[server]["depends_on"]["postgres"]["condition"] == "service_healthy"

    @pytest.mark.parametrize("server", SERVERS)
    def test_each_server_uses_the_compose_database(self, server: str) -> None:
        url = urlsplit(
            without_interpolation(SERVICES[server]["environment"]["SOLITAIRE_DATABASE_URL"])
        )
        postgres = SERVICES["postgres"]["environment"]
        assert url.hostname == "postgres"
        assert url.username == postgres["POSTGRES_USER"]
        assert url.path == "/" + postgres["POSTGRES_DB"]

    def test_each_host_knows_its_place_and_the_proxy_knows_every_host(self) -> None:
        proxy = SERVICES["proxy"]["environment"]
        for index, name in enumerate(SERVERS):
            server = SERVICES[name]["environment"]
            assert server["SOLITAIRE_HOST_INDEX"] == str(index)
            assert server["SOLITAIRE_HOSTS"] == str(len(SERVERS))
            assert proxy[f"SOLITAIRE_HOST{index}"] == f"{name}:{server['SOLITAIRE_PORT']}"
            assert f'"${{SOLITAIRE_HOST{index}}}"' in HAPROXY_CONFIG
            assert f"mod({len(SERVERS)}) eq {index}" in HAPROXY_CONFIG
        assert "./deploy/haproxy.cfg:" in SERVICES["proxy"]["volumes"][0]

    def test_clients_and_the_bot_come_in_through_the_proxy(self) -> None:
        port = SERVICES["server-0"]["environment"]["SOLITAIRE_PORT"]
        proxy = SERVICES["proxy"]
        assert [mapping.split(":")[-1] for mapping in proxy["ports"]] == [port]
        assert proxy["environment"]["SOLITAIRE_PROXY_BIND"] == f":{port}"
        for name in SERVERS:
            assert "ports" not in SERVICES[name]  # only through the proxy
            assert f"127.0.0.1:{port}/healthz" in " ".join(SERVICES[name]["healthcheck"]["test"])
        bot_url = urlsplit(SERVICES["bot"]["environment"]["SOLITAIRE_SERVER_URL"])
        assert (bot_url.hostname, str(bot_url.port)) == ("proxy", port)

    @pytest.mark.parametrize("service", OUR_SERVICES)
    def test_the_command_is_a_real_solitaire_subcommand(
        self, service: str, capsys: pytest.CaptureFixture[str]
    ) -> None:
        program, *args = SERVICES[service]["command"]
        assert program in console_scripts()
        try:
            build_parser().parse_args(args)
        except SystemExit:
            pytest.fail(
                f"{service}: `{program} {' '.join(args)}` is not accepted by server/ops/cli.py: "
                + capsys.readouterr().err.strip()
            )

    @pytest.mark.parametrize("service", OUR_SERVICES)
    def test_every_variable_set_is_read_by_the_code(
        self, service: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        _, *args = SERVICES[service]["command"]
        read = environment_variables_read(package_sources()) | variables_asked_for_by(
            args, monkeypatch
        )
        unread = sorted(set(SERVICES[service]["environment"]) - read)
        assert not unread, f"{service} sets variables no code in {PACKAGES} reads: {unread}"


class TestDockerfile:
    DOCKERFILE = (ROOT / "Dockerfile").read_text()

    def test_the_image_holds_every_package_and_the_migrations(self) -> None:
        copied = {
            source
            for line in re.findall(r"^COPY (.+)$", self.DOCKERFILE, re.MULTILINE)
            for source in line.split()[:-1]
        }
        assert {*PACKAGES, "sql", "pyproject.toml", "README.md"} <= copied

    def test_the_processes_do_not_run_as_root(self) -> None:
        users = re.findall(r"^USER (\S+)$", self.DOCKERFILE, re.MULTILINE)
        assert users and users[-1] not in {"root", "0"}
