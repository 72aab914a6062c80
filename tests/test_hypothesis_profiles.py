"""CI=true selects the Hypothesis profile with fewer examples (registered in conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CONFTEST = Path(__file__).with_name("conftest.py")
# conftest.py imports helpers beside it, found as pytest finds them: from its own folder.
SHOW_PROFILE = f"""
import runpy
import sys
from hypothesis import settings
sys.path.insert(0, {str(CONFTEST.parent)!r})
runpy.run_path({str(CONFTEST)!r})
print(settings.default.max_examples, settings.default.deadline, settings.default.derandomize)
"""


def profile_under(ci: str | None) -> str:
    environment = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        environment["CI"] = ci
    return subprocess.run(
        [sys.executable, "-c", SHOW_PROFILE],
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


@pytest.mark.parametrize(
    ("ci", "expected"),
    [("true", "30 None True"), (None, "100 None False"), ("false", "100 None False")],
)
def test_ci_selects_fewer_derandomized_examples_and_no_profile_has_a_deadline(
    ci: str | None, expected: str
) -> None:
    assert profile_under(ci) == expected
