"""Generated qrels and runs (hypothesis, derandomized) through every door, against trec_eval 10.0.

``DIFF_SHRINK=1`` lets hypothesis shrink a failure (slow); by default the first failure is reported as
generated, and saved (see conftest's ``keep``)."""

from __future__ import annotations

import os
import tempfile

import diff_doors
import diff_generate
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

PHASES = [Phase.explicit, Phase.generate] + ([Phase.shrink] if os.environ.get("DIFF_SHRINK") else [])
SETTINGS = dict(
    derandomize=True,
    deadline=None,
    database=None,
    phases=PHASES,
    suppress_health_check=list(HealthCheck),
)


@settings(max_examples=30, **SETTINGS)
@given(case=diff_generate.cases())
def test_library_and_window(case, oracle, keep):
    with tempfile.TemporaryDirectory(prefix="diff-") as work:
        diff_doors.check(case, ["evaluate", "evaluator", "frames", "window"], work, keep / "library")


@settings(max_examples=7, **SETTINGS)
@given(
    case=diff_generate.cases(),
    doors=st.lists(st.sampled_from(list(diff_doors.COMMAND_DOORS)), min_size=2, max_size=2, unique=True),
)
def test_command(case, doors, oracle, keep):
    with tempfile.TemporaryDirectory(prefix="diff-") as work:
        diff_doors.check(case, doors, work, keep / "command")
