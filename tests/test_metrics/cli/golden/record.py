"""Record trec_eval 10.0's output for the golden cases (tests/test_metrics/cli/test_golden.py).

The inputs are small collections made by ``tests/conftest.random_collection``
(ties, negative grades, grades up to 3 or wider, unjudged documents,
run-only and qrels-only queries, ids whose byte order differs from their
numeric order).  For every case of ``CASES`` this runs a trec_eval 10.0
binary and stores its output, so that the test suite checks ir-eval against
10.0 itself on every machine, not only where a binary is installed.

    TREC_EVAL_BIN=/path/to/trec_eval python tests/test_metrics/cli/golden/record.py
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from conftest import random_collection, write_trec  # noqa: E402

# name -> (seed of the collection, trec_eval arguments before the two files)
CASES = {
    "plain": (0, ["-q", "-m", "all_trec"]),
    "complete": (1, ["-q", "-c", "-m", "all_trec"]),
    "level2_cut": (2, ["-q", "-l2", "-M", "15", "-m", "all_trec"]),
    "judged_only": (3, ["-q", "-J", "-m", "all_trec"]),
    "negative_level": (4, ["-q", "-l-1", "-m", "all_trec"]),
    "negative_level_complete": (5, ["-q", "-l-2", "-c", "-m", "all_trec"]),
    "parameters": (
        6,
        [
            "-q",
            "-m",
            "P.3,7",
            "-m",
            "ndcg.1=3,2=9,3=-1",
            "-m",
            "rbp.p=0.6",
            "-m",
            "iprec_at_recall..15,.55",
            "-m",
            "Rprec_mult.0.3,1.5",
            "-m",
            "utility.2,-1,0,1",
            "-m",
            "11pt_avg..25,.5",
            "-m",
            "relstring.15",
            "-m",
            "success.2,5",
            "-m",
            "ndcg_cut.4,30",
        ],
    ),
    "rbp_rescaled": (7, ["-q", "-m", "rbp.1=-2,2=4", "-m", "rbp_resid.1=-2,2=4"]),
    "utility_collection": (8, ["-q", "-N", "5000", "-m", "utility.1,-1,0,0.01", "-m", "num_rel"]),
}


def collection(seed: int):
    qrels, run = random_collection(seed, n_queries=12, n_docs=60, depth=50, name=f"golden{seed}")
    return qrels, run


def main() -> int:
    binary = os.environ.get("TREC_EVAL_BIN")
    if not binary:
        print("set TREC_EVAL_BIN to a trec_eval 10.0 binary", file=sys.stderr)
        return 2
    for name, (seed, args) in CASES.items():
        case = HERE / name
        case.mkdir(exist_ok=True)
        qrels, run = collection(seed)
        if "-c" not in args:
            # trec_eval 10.0 aborts on qrels queries without results unless -c
            qrels = qrels[qrels["query_id"].isin(set(run["query_id"]))]
        qpath, rpath = write_trec(qrels, run, case)
        out = subprocess.run([binary, *args, qpath, rpath], capture_output=True, check=True)
        (case / "args").write_text(" ".join(args) + "\n")
        (case / "expected.txt").write_bytes(out.stdout)
        print(f"{name}: {len(out.stdout.splitlines())} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
