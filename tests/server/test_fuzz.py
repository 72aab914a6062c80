"""No frame crashes a connection or the log: a live server takes thousands of generated,
hostile frames (tests/server/fuzzing.py) and answers each with a reply or a typed error.

CI sends a bounded share; ``bench/fuzz.py`` sends the full 100,000 and prints the figures.
"""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path

import pytest
from fuzzing import DOCUMENTED_CLOSES, SERVICE_TOKEN, Fuzzer
from server_process import free_port, server_process, wait_healthy

MESSAGES = 10_000


# Ten thousand frames through a server process and its log: long by nature, and longer
# beside other workers of the suite on a busy machine.
@pytest.mark.timeout(600)
async def test_no_frame_crashes_a_connection_or_the_log(database_url: str, tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "server.log"
    with server_process(
        database_url,
        port,
        log,
        rate_per_second="100000",
        service_tokens=SERVICE_TOKEN,
        race_winnable_seconds="0.2",
        solver_help_seconds="0.2",
    ) as server:
        await wait_healthy(port)
        score = await Fuzzer(port, seed=19).run(MESSAGES)
        assert server.poll() is None  # still serving
        # A clean stop, so the log is whole (after a SIGKILL multiprocessing's resource
        # tracker reports, in plain text, the semaphores it cleaned up for the server).
        server.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(server.wait, 60) == 0
    assert score.sent >= MESSAGES
    assert score.internal == []
    assert score.unanswered == []
    assert 1011 not in score.closes
    assert set(score.closes) <= DOCUMENTED_CLOSES, score.closes
    assert score.answered + sum(score.closes.values()) == score.sent
    # Every kind of frame was sent, and the server's answers were typed errors or replies.
    assert set(score.kinds) >= {"schema", "mutated", "confused", "nested", "numbers", "bytes"}
    assert score.errors["invalid_message"] > 0 and score.errors["bad_json"] > 0
    lines = log.read_text().splitlines()
    for line in lines:
        assert isinstance(json.loads(line), dict), line
    assert not [line for line in lines if '"level": "error"' in line]
