"""The benchmarks still run (they are not timed here: speed is shown by running them, never by a test).
The window's benchmark drives the window as ``ir-workbench FILES...`` does, through names a change of the
window can move; a benchmark that no longer runs says nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_window_benchmark_runs_on_two_runs():
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "window_many_runs.py"), "--runs", "2", "--rounds", "1"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "2 DL19-shaped runs" in done.stdout and "ir-workbench, every run's scores painted" in done.stdout
