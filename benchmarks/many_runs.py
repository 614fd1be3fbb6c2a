"""Many runs against one qrels: ir-eval in one process, in one process per core, and trec_eval per run.

Generates ``--runs`` DL19-shaped runs (43 queries x 1,000 documents each) and
times, as whole processes, ``ir-eval --jobs 1``, ``ir-eval --jobs N`` (N = the
cores here) and one ``trec_eval`` process per run, and prints the speed-up per
core.  The outputs of ``--jobs 1`` and ``--jobs N`` are compared byte for byte.

    python benchmarks/many_runs.py [--runs 100]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    args = parser.parse_args()
    import trec_eval_ref
    from everyday import generate

    from metrics.parallel import default_jobs

    cores = default_jobs()
    with tempfile.TemporaryDirectory() as tmp:
        qrels, runs = generate(Path(tmp), "dl19", runs=args.runs)
        py = sys.executable
        outputs, times = {}, {}
        for jobs in (1, cores):
            start = time.perf_counter()
            out = subprocess.run(
                [py, "-m", "metrics", "--jobs", str(jobs), "-m", "all_trec", str(qrels), *map(str, runs)],
                capture_output=True,
                check=True,
            )
            times[f"ir-eval --jobs {jobs}"] = time.perf_counter() - start
            outputs[jobs] = out.stdout
        assert outputs[1] == outputs[cores], "--jobs changed the output"
        if trec_eval_ref.BIN:
            start = time.perf_counter()
            for run in runs:
                subprocess.run(
                    [trec_eval_ref.BIN, "-m", "all_trec", str(qrels), str(run)], capture_output=True, check=True
                )
            times[f"trec_eval, {len(runs)} processes"] = time.perf_counter() - start
    print(f"{args.runs} DL19-shaped runs (43 queries x 1,000 documents), {cores} cores, whole processes")
    for key, seconds in times.items():
        print(f"{key:<32} {seconds:8.2f} s")
    one, many = times["ir-eval --jobs 1"], times[f"ir-eval --jobs {cores}"]
    print(f"speed-up with {cores} processes: {one / many:.2f}x ({one / many / cores:.2f} per core)")


if __name__ == "__main__":
    main()
