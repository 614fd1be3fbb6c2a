"""Rank overlap of every pair of many runs: ``metrics.analysis.rank_overlap`` against a Python peer.

Generates ``--runs`` DL19-shaped runs (43 queries x 1,000 documents; each run scores a query's pool of
3,000 candidates by a relevance the runs share plus noise of its own, so that their top 100s overlap as
real runs' do, about half of each top 100 shared with another run's) and times, in this process:

* reading the run files into columns (``metrics.io.columns.read_columns``), once;
* ``rank_overlap`` of every pair of runs at ``--depth`` (default 100), from those columns: Jaccard and
  RBO_ext for every pair and query (the issue's goal: 100 runs, K=100, within 3 s in one process);
* the same when every run has the same top documents (the most shared documents there can be: each
  pair shares all ``--depth`` of every query), ``--identical``;
* the whole ``ir-eval --overlap K --format csv QRELS RUN...`` process (the best of 3);
* the ``rbo`` package (``pip install rbo``; ``RankingSimilarity(a, b).rbo_ext(p)``, one pair and query
  at a time, as scripts compute it), on ``--peer-pairs`` pairs and scaled to all pairs, when installed;
  its values are compared with ours on those pairs.

    python benchmarks/overlap.py [--runs 100] [--depth 100] [--peer-pairs 200]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

QUERIES, DEPTH, POOL = 43, 1000, 3000


def write_runs(folder: Path, runs: int, identical: bool = False, seed: int = 19) -> tuple[Path, list[Path]]:
    """A qrels file and ``runs`` DL19-shaped run files in ``folder``."""
    rng = np.random.default_rng(seed)
    qids = np.sort(rng.choice(np.arange(19000, 1_200_000), size=QUERIES, replace=False))
    pool = np.stack([rng.choice(8_841_823, size=POOL, replace=False) for _ in range(QUERIES)])
    merit = rng.standard_normal((QUERIES, POOL))
    qrels = folder / "dl19.qrels"
    with open(qrels, "w") as fh:
        for qi, q in enumerate(qids):
            judged = np.argsort(-merit[qi])[:200]
            grades = np.clip((merit[qi, judged] - 1.2) * 1.5, 0, 3).astype(int)
            fh.write("".join(f"{q} Q0 {pool[qi, j]} {g}\n" for j, g in zip(judged, grades)))
    paths = []
    for r in range(runs):
        noise = 0.0 if identical else 0.6
        score = merit + noise * rng.standard_normal((QUERIES, POOL))
        top = np.argsort(-score, axis=1)[:, :DEPTH]
        path = folder / f"run{r:03d}.txt"
        with open(path, "w") as fh:
            for qi, q in enumerate(qids):
                s = np.round(score[qi, top[qi]], 4)
                fh.write(
                    "".join(f"{q} Q0 {pool[qi, j]} {k + 1} {v} r{r}\n" for k, (j, v) in enumerate(zip(top[qi], s)))
                )
        paths.append(path)
    return qrels, paths


def timed(fn, rounds: int = 3):
    """(the best of ``rounds`` wall times in seconds, the last result): the machine may be busy."""
    best, out = float("inf"), None
    for _ in range(rounds):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--peer-pairs", type=int, default=200)
    args = parser.parse_args()
    from metrics.analysis import rank_overlap
    from metrics.io.columns import read_columns

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for identical in (False, True):
            qrels, paths = write_runs(folder, args.runs, identical)
            kind = "the same top documents in every run" if identical else "runs of their own"
            read, columns = timed(lambda: {p.stem: read_columns(p, "run") for p in paths}, rounds=1)
            seconds, table = timed(lambda: rank_overlap(columns, args.depth, qrels=qrels))
            pairs = args.runs * (args.runs - 1) // 2
            print(f"{args.runs} DL19-shaped runs, {kind}: {pairs} pairs x {QUERIES} queries at K={args.depth}")
            print(f"  reading the runs:        {read:7.2f} s")
            print(f"  rank_overlap (in memory): {seconds:6.2f} s   mean shared documents {table['shared'].mean():.1f}")
            if identical:
                continue
            cmd = [sys.executable, "-m", "metrics", "--overlap", str(args.depth), "--format", "csv", str(qrels)]
            whole, _ = timed(
                lambda: subprocess.run(cmd + [str(p) for p in paths], check=True, stdout=subprocess.DEVNULL)
            )
            print(f"  ir-eval --overlap {args.depth} --format csv (whole process, reading included): {whole:5.2f} s")
            _peer(table, columns, args)


def _peer(table, columns, args) -> None:
    try:
        import rbo  # the rbo package: one pair of lists at a time
    except ImportError:
        print("  rbo package: not installed (pip install rbo)")
        return
    from metrics.analysis.ranked import top_documents

    top = top_documents(columns, args.depth)
    lists: dict = {}
    for r, q, d in zip(top.run.tolist(), top.query.tolist(), top.doc.tolist()):
        lists.setdefault((r, q), []).append(d)
    sample = table.head(args.peer_pairs * QUERIES)
    index = {name: i for i, name in enumerate(top.runs)}
    queries = {q: i for i, q in enumerate(top.queries)}
    start = time.perf_counter()
    values = [
        rbo.RankingSimilarity(lists[index[a], queries[q]], lists[index[b], queries[q]]).rbo_ext(0.9)
        for a, b, q in zip(sample["run_a"], sample["run_b"], sample["query_id"])
    ]
    seconds = (time.perf_counter() - start) * len(table) / len(sample)
    gap = float(np.max(np.abs(np.array(values) - sample["rbo"].to_numpy())))
    print(f"  rbo package, one pair and query at a time: {seconds:6.2f} s for all pairs (scaled from {len(sample)})")
    print(f"  largest difference from rbo's values: {gap:.2e}")


if __name__ == "__main__":
    main()
