"""Work a request or an event starts and nobody awaits: a race's rating, a result's
review, a race's recount after a takeover.

The event loop keeps only weak references to its tasks, so a task nobody holds can be
collected before it ends; and an exception in a task nobody awaits would be reported
only when the task is collected, if ever. ``Background`` holds its tasks until they end
and logs each failure under its own event name.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Coroutine
from typing import Any

import structlog

log = structlog.get_logger(__name__)


class Background:
    """Tasks started and held until they end; a failure logged as ``failed_event``."""

    def __init__(self, failed_event: str) -> None:
        self._failed_event = failed_event
        self._tasks: set[asyncio.Task[Any]] = set()

    def start(
        self, work: Coroutine[Any, Any, Any], context: contextvars.Context | None = None
    ) -> asyncio.Task[Any]:
        """Run ``work`` in the background (in ``context``, else the caller's)."""
        task = asyncio.get_running_loop().create_task(work, context=context)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    async def finish(self, timeout: float) -> None:
        """Let the tasks under way end, for up to ``timeout`` seconds; cancel the rest."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=timeout)
        for task in list(self._tasks):
            task.cancel()

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error(self._failed_event, error=repr(task.exception()))
