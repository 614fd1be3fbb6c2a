"""The window's process leaves after its worker processes were stopped under work (Cancel, or the window
closing), even when one was stopped while it wrote its result: the process pool's thread then held half a
message and waited for the rest for ever, and the interpreter's exit waited on that thread."""

from __future__ import annotations

import subprocess
import sys

import pytest

# a worker writes part of a result (a message's length, then only a few of its bytes) into the pool's result
# pipe and is stopped there, as a process terminated while it sends a large result is; then the process
# leaves as the window does (the pool's thread joined at the interpreter's exit)
SCRIPT = """
import os, struct, sys, time
from workbench.scoring import disk_runs

def half_a_result(marker):
    writer = sys._getframe(1).f_locals["result_queue"]._writer  # (the pool's worker loop calls this task)
    writer._send(struct.pack("!i", 1 << 20) + b"part of a result")
    open(marker, "w").close()
    time.sleep(600)

workers = disk_runs.Workers()
workers.pool().submit(half_a_result, sys.argv[2])
deadline = time.monotonic() + 60
while not os.path.exists(sys.argv[2]):
    if time.monotonic() > deadline:
        sys.exit("the worker never started")
    time.sleep(0.02)
time.sleep(0.3)  # (the pool's thread reads the part and waits for the rest)
getattr(workers, sys.argv[1])()
print("leaving", flush=True)
"""


@pytest.mark.parametrize("how", ["stop", "shutdown"])
def test_the_process_leaves_after_a_worker_is_stopped_while_it_writes_its_result(tmp_path, how):
    try:
        out = subprocess.run(
            [sys.executable, "-c", SCRIPT, how, str(tmp_path / "writing")],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the process did not leave within 60 s of Workers.{how}(): {exc.stdout!r} {exc.stderr!r}")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "leaving"
