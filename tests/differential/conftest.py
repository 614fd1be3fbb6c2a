"""The differential tests: this folder's helpers importable, trec_eval required, hypothesis settings."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
for folder in (HERE, HERE.parent):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

import trec_eval_ref  # noqa: E402


@pytest.fixture(scope="session")
def oracle():
    """trec_eval 10.0, or a skip with the reason it is missing."""
    if not trec_eval_ref.BIN:
        pytest.skip(trec_eval_ref.REASON)
    return trec_eval_ref.BIN


@pytest.fixture
def keep(tmp_path):
    """Where a failing case is saved: ``$DIFF_FAILURES_DIR`` when set, else the test's temporary folder."""
    base = os.environ.get("DIFF_FAILURES_DIR")
    return Path(base) if base else tmp_path / "failures"
