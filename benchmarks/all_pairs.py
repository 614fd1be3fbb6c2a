"""All-pairs comparisons of many runs: bootstrap intervals per pair, one by one and all at once; ir-eval.

Generates ``--runs`` runs x ``--queries`` queries and times

* the bootstrap intervals of every pair's mean difference (10,000 resamples),
  one pair at a time with ``metrics.compare.bootstrap_ci`` (as ``--all-pairs``
  computed them before) and all pairs at once with
  ``metrics.compare.allpairs.paired_bootstrap_intervals`` (one shared resampling);
* ``compare_all_pairs`` in this process with each test;
* the whole ``ir-eval --all-pairs -m map -m P.10 --format json`` process on
  generated qrels and run files (``--queries`` queries x 100 documents).

    python benchmarks/all_pairs.py [--runs 50] [--queries 200] [--tests t,tukey]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def per_query_frame(runs: int, queries: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    base = rng.random(queries)
    values = np.clip(base[:, None] + 0.002 * np.arange(runs) + 0.05 * rng.standard_normal((queries, runs)), 0, 1)
    return pd.DataFrame(
        {
            "run": np.repeat([f"run{r:03d}" for r in range(runs)], queries),
            "query_id": np.tile([f"q{q}" for q in range(queries)], runs),
            "measure": "map",
            "value": values.T.ravel(),
        }
    )


def write_files(directory: Path, runs: int, queries: int, docs: int = 100, seed: int = 1) -> list[str]:
    rng = np.random.default_rng(seed)
    grades = rng.choice([0, 0, 0, 1, 2], size=(queries, docs))
    qrels = directory / "qrels.txt"
    qrels.write_text("".join(f"q{q} 0 d{d} {grades[q, d]}\n" for q in range(queries) for d in range(docs)))
    paths = [str(qrels)]
    for r in range(runs):
        # scores that lean towards the relevant documents, more so for later runs
        scores = rng.random((queries, docs)) + (0.2 + 0.01 * r) * grades
        order = np.argsort(-scores, axis=1)
        lines = [
            f"q{q} Q0 d{d} {rank} {scores[q, d]:.6f} run{r:03d}\n"
            for q in range(queries)
            for rank, d in enumerate(order[q], 1)
        ]
        path = directory / f"run{r:03d}.txt"
        path.write_text("".join(lines))
        paths.append(str(path))
    return paths


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--tests", default="t,wilcoxon,bootstrap,tukey")
    args = parser.parse_args()
    from metrics.compare import _clean, bootstrap_ci
    from metrics.compare.allpairs import _pair_intervals, compare_all_pairs, paired_bootstrap_intervals

    frame = per_query_frame(args.runs, args.queries)
    table = frame.pivot(index="query_id", columns="run", values="value").to_numpy()
    pairs = [(i, j) for i in range(args.runs) for j in range(i + 1, args.runs)]
    d = _clean(table[:, [i for i, _ in pairs]] - table[:, [j for _, j in pairs]])
    print(f"{args.runs} runs x {args.queries} queries: {len(pairs)} pairs, 10,000 bootstrap resamples")

    one, singles = timed(lambda: [bootstrap_ci(d[:, k], 10000, 0.95, k) for k in range(d.shape[1])])
    print(f"{'intervals, one pair at a time':<44} {one:8.2f} s")
    many, (low, high) = timed(lambda: paired_bootstrap_intervals(d, 10000, 0.95, 0))
    print(f"{'intervals, all pairs at once':<44} {many:8.2f} s   ({one / many:.0f}x)")
    width = np.array([h - lo for lo, h in singles])
    print(f"{'mean interval width, one at a time / at once':<44} {width.mean():.5f} / {(high - low).mean():.5f}")
    t, _ = timed(lambda: _pair_intervals(table, pairs, 10000, 0.95, 0, "map"))
    print(f"{'intervals as compare_all_pairs groups them':<44} {t:8.2f} s")

    for test in args.tests.split(","):
        t, _ = timed(lambda test=test: compare_all_pairs(frame, test=test, permutations=10000, seed=0))
        print(f"{'compare_all_pairs, --test ' + test:<44} {t:8.2f} s")

    with tempfile.TemporaryDirectory() as tmp:
        files = write_files(Path(tmp), args.runs, args.queries)
        cmd = [sys.executable, "-m", "metrics", "--all-pairs", "-m", "map", "-m", "P.10", "--format", "json", *files]
        t, out = timed(lambda: subprocess.run(cmd, capture_output=True, check=True))
        print(f"{'ir-eval --all-pairs -m map -m P.10 (t)':<44} {t:8.2f} s   ({len(out.stdout) >> 10} KiB of JSON)")


if __name__ == "__main__":
    main()
