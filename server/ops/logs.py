"""Structured logs: JSON lines in production, readable text on a terminal.

Connection, player and race are bound as context by the socket layer, so every
line a request causes says whose request it was.
"""

from __future__ import annotations

import logging
import sys

import structlog


def configure_logging(json: bool | None = None, level: int = logging.INFO) -> None:
    """Set up structlog; ``json=None`` means JSON unless stderr is a terminal."""
    if json is None:
        json = not sys.stderr.isatty()
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer()
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )
