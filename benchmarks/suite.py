"""How long the test suite takes, against its budget: at most 6 minutes for the suite, 8 for ``bash .ci/run``.

Runs the suite as README.md's command does (``python -m pytest -q``: spread over the machine's cores by
pytest-xdist, the tests marked ``alone`` run while no other does), with ``--durations`` to name the
slowest tests, and prints the wall-clock time beside the budget.  ``--serial`` runs it in one process too
(``-n 0``), to show what the spreading saves on this machine.  Run it on a quiet machine: the suite's
time is what the budget is about, and another job on the cores slows every test.

    python benchmarks/suite.py [--serial] [--slowest 15] [-- extra pytest arguments]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUDGET_S = 6 * 60


def run(extra: list[str], slowest: int) -> tuple[float, str]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--durations={slowest}", *extra]
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True)
    took = time.perf_counter() - start
    return took, done.stdout


def report(label: str, took: float, out: str) -> None:
    summary = [line for line in out.splitlines() if re.search(r"\d+ (passed|failed)", line)]
    slow = out.split("slowest", 1)[1].split("\n", 1)[1].split("=====", 1)[0] if "slowest" in out else ""
    print(f"{label}: {took / 60:.1f} min ({took:.0f} s; budget {BUDGET_S // 60} min: {took / BUDGET_S:.2f}x)")
    print("  " + (summary[-1].strip("= ") if summary else "no summary line"))
    for line in slow.strip().splitlines():
        print("   ", line)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--serial", action="store_true", help="also run the suite in one process (-n 0)")
    ap.add_argument("--slowest", type=int, default=15, help="slowest tests named (default 15)")
    args, extra = ap.parse_known_args()
    extra = [a for a in extra if a != "--"]
    report("spread over the cores", *run(extra, args.slowest))
    if args.serial:
        report("one process (-n 0)", *run(["-n", "0", *extra], args.slowest))


if __name__ == "__main__":
    main()
