"""Counters the server keeps about itself, rendered as Prometheus text at /metrics."""

from __future__ import annotations

import asyncio
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import accumulate

COMMIT_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


@dataclass
class Metrics:
    """One process's counters; owned by the server, never module-global."""

    connections: int = 0
    connections_total: int = 0
    moves_total: int = 0
    messages: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    # Histograms are kept per bucket (not cumulative) and summed up when rendered, so
    # an observation costs one bisect and one increment (one per request on the hot path).
    commit_buckets: list[int] = field(default_factory=lambda: [0] * (len(COMMIT_BUCKETS) + 1))
    commit_count: int = 0
    commit_sum: float = 0.0
    commit_writes: int = 0
    request_buckets: list[int] = field(default_factory=lambda: [0] * (len(COMMIT_BUCKETS) + 1))
    request_count: int = 0
    request_sum: float = 0.0
    # Sizes read when rendered (name -> (help, how to count)), registered by the server:
    # what a process holds in memory, for a soak to tell growth from a leak.
    sizes: dict[str, tuple[str, Callable[[], int]]] = field(default_factory=dict)

    def observe_commit(self, seconds: float, writes: int) -> None:
        """Record one group commit taking ``seconds`` for ``writes`` writes."""
        self.commit_count += 1
        self.commit_sum += seconds
        self.commit_writes += writes
        self.commit_buckets[bisect_left(COMMIT_BUCKETS, seconds)] += 1

    def observe_request(self, seconds: float) -> None:
        """Record one request handled (from its frame read to its reply written)."""
        self.request_count += 1
        self.request_sum += seconds
        self.request_buckets[bisect_left(COMMIT_BUCKETS, seconds)] += 1

    def render(self) -> str:
        """The Prometheus text exposition of every counter.

        The asyncio tasks are counted when asked (the server renders this on its own
        loop): a soak (bench/soak.py) watches them stay flat, as a task left behind per
        connection or per race would not.
        """
        try:
            tasks = len(asyncio.all_tasks())
        except RuntimeError:  # no loop running here
            tasks = 0
        lines = [
            "# HELP solitaire_connections Open WebSocket connections.",
            "# TYPE solitaire_connections gauge",
            f"solitaire_connections {self.connections}",
            "# HELP solitaire_connections_total WebSocket connections accepted.",
            "# TYPE solitaire_connections_total counter",
            f"solitaire_connections_total {self.connections_total}",
            "# HELP solitaire_asyncio_tasks asyncio tasks alive in this process.",
            "# TYPE solitaire_asyncio_tasks gauge",
            f"solitaire_asyncio_tasks {tasks}",
        ]
        for name, (text, count) in self.sizes.items():
            lines += [f"# HELP {name} {text}", f"# TYPE {name} gauge", f"{name} {count()}"]
        lines += [
            "# HELP solitaire_messages_total Client messages received, by type.",
            "# TYPE solitaire_messages_total counter",
        ]
        lines += [f'solitaire_messages_total{{type="{k}"}} {v}' for k, v in self.messages.items()]
        lines += [
            "# HELP solitaire_moves_total Moves acknowledged (committed).",
            "# TYPE solitaire_moves_total counter",
            f"solitaire_moves_total {self.moves_total}",
            "# HELP solitaire_errors_total Error replies sent, by code.",
            "# TYPE solitaire_errors_total counter",
        ]
        lines += [f'solitaire_errors_total{{code="{k}"}} {v}' for k, v in self.errors.items()]
        lines += [
            "# HELP solitaire_commit_seconds Duration of one group commit.",
            "# TYPE solitaire_commit_seconds histogram",
        ]
        lines += [
            f'solitaire_commit_seconds_bucket{{le="{bound}"}} {count}'
            for bound, count in zip(COMMIT_BUCKETS, accumulate(self.commit_buckets), strict=False)
        ]
        lines += [
            f'solitaire_commit_seconds_bucket{{le="+Inf"}} {self.commit_count}',
            f"solitaire_commit_seconds_sum {self.commit_sum:.6f}",
            f"solitaire_commit_seconds_count {self.commit_count}",
            "# HELP solitaire_request_seconds Time from a request's frame to its reply.",
            "# TYPE solitaire_request_seconds histogram",
        ]
        lines += [
            f'solitaire_request_seconds_bucket{{le="{bound}"}} {count}'
            for bound, count in zip(COMMIT_BUCKETS, accumulate(self.request_buckets), strict=False)
        ]
        lines += [
            f'solitaire_request_seconds_bucket{{le="+Inf"}} {self.request_count}',
            f"solitaire_request_seconds_sum {self.request_sum:.6f}",
            f"solitaire_request_seconds_count {self.request_count}",
            "# HELP solitaire_commit_writes_total Writes carried by group commits.",
            "# TYPE solitaire_commit_writes_total counter",
            f"solitaire_commit_writes_total {self.commit_writes}",
        ]
        return "\n".join(lines) + "\n"
