"""Whole-process speed where users live: everyday runs, side by side with trec_eval and the Python peers.

Generates data shaped like the runs people evaluate every day and times each
contender as a fresh process (what a user waits for), interleaved round by
round so that a busy machine slows every contender alike, and prints medians
and ratios:

* ``dl19``: a TREC DL 2019 passage run, 43 queries x 1,000 documents (43k
  lines), about 200 graded judgments per query, ``Q0`` in the qrels;
* ``robust``: a Robust04 run, 250 queries x 1,000 (250k lines), a 311k-line qrels with Robust04's
  mix of grades (94% non-relevant, 5.3% grade 1, 0.3% grade 2) and its kind of document ids
  (``FBIS3-10082``, ``LA010189-0001``, ``FT911-3``, ``FR940104-0-00001``: 7 to 16 characters);
* ``1m``: 1,000 queries x 1,000 documents, 10 judgments per query;
* ``7m`` (only when asked for: it takes minutes): MS MARCO-sized, 7,000 x 1,000.

Contenders: ``ir-eval -m all_trec`` and ``-m ndcg_cut.10``; five runs in one
``ir-eval`` call against five ``trec_eval`` calls; trec_eval 10.0 (built from
``../shared/reference`` like the tests do, or ``$TREC_EVAL_BIN``);
pytrec_eval and the ir_measures command line when installed; and the floor,
``python -c "import numpy"``, the least any numpy-based tool can take.

    python benchmarks/everyday.py [--sizes dl19 robust 1m] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

#: grades and their probabilities: TREC DL's 0-3 (and the synthetic runs'), Robust04's 0-2
GRADES = {"robust": [0.944, 0.053, 0.003]}
DEFAULT_GRADES = [0.5, 0.25, 0.15, 0.1]

SHAPES = {  # queries, depth, judgments per query
    "dl19": (43, 1000, 200),
    "robust": (250, 1000, 1245),
    "1m": (1000, 1000, 10),
    "7m": (7000, 1000, 10),
}
PYTREC = (
    "import sys, pytrec_eval\n"
    "q = pytrec_eval.parse_qrel(open(sys.argv[1]))\nr = pytrec_eval.parse_run(open(sys.argv[2]))\n"
    "ev = pytrec_eval.RelevanceEvaluator(q, {'map', 'ndcg_cut', 'P', 'recall'})\n"
    "res = ev.evaluate(r)\nprint(len(res))\n"
)


def generate(folder: Path, name: str, runs: int = 1, seed: int = 7) -> tuple[Path, list[Path]]:
    queries, depth, judged = SHAPES[name]
    rng = np.random.default_rng(seed)
    qids = np.sort(rng.choice(np.arange(19000, 1_200_000), size=queries, replace=False))
    collection = 8_841_823
    docno = _robust_docno if name == "robust" else str
    qrels = folder / f"{name}.qrels"
    run_paths = [folder / f"{name}.{i}.run" for i in range(runs)]
    # each query's documents distinct (a run lists a document once per query)
    docs = [np.stack([rng.choice(collection, size=depth, replace=False) for _ in range(queries)]) for _ in range(runs)]
    with open(qrels, "w") as fh:
        for qi, q in enumerate(qids):
            pool = np.unique(
                np.concatenate(
                    [d[qi, : min(depth, judged // 2 + 1)] for d in docs] + [rng.choice(collection, size=judged)]
                )
            )[:judged]
            p = GRADES.get(name, DEFAULT_GRADES)
            grades = rng.choice(len(p), size=len(pool), p=p)
            fh.write("".join(f"{q} Q0 {docno(d)} {g}\n" for d, g in zip(pool, grades)))
    for path, d in zip(run_paths, docs):
        scores = np.round(np.sort(rng.normal(10, 2, size=(queries, depth)), axis=1)[:, ::-1], 4)
        with open(path, "w") as fh:
            for qi, q in enumerate(qids):
                fh.write(
                    "".join(
                        f"{q} Q0 {docno(doc)} {r + 1} {s} bm25\n" for r, (doc, s) in enumerate(zip(d[qi], scores[qi]))
                    )
                )
    return qrels, run_paths


def _robust_docno(d: int) -> str:
    """A TREC disks 4 and 5 document id for document number ``d`` (one id per number)."""
    source, k = int(d) % 4, int(d) // 4
    month, day = k % 12 + 1, (k // 12) % 28 + 1
    if source == 0:
        return f"FBIS{3 + k % 2}-{k // 2}"
    if source == 1:
        return f"LA{month:02d}{day:02d}89-{k // 336:04d}"
    if source == 2:
        return f"FT9{k % 5}{(k // 5) % 4}-{k // 20}"
    return f"FR94{month:02d}{day:02d}-{(k // 336) % 3}-{k // 1008:05d}"


#: the large synthetic runs are scored with -c, as the speed issue's table has them
COMPLETE = {"1m", "7m"}


def contenders(qrels: Path, runs: list[Path], trec_eval: str | None, flags=()) -> dict[str, list[list[str]]]:
    py = sys.executable
    f = list(flags)
    c = " -c" if f else ""
    out = {
        "floor (python -c 'import numpy')": [[py, "-c", "import numpy"]],
        f"ir-eval{c} -m all_trec": [[py, "-m", "metrics", *f, "-m", "all_trec", str(qrels), str(runs[0])]],
        f"ir-eval{c} -m ndcg_cut.10": [[py, "-m", "metrics", *f, "-m", "ndcg_cut.10", str(qrels), str(runs[0])]],
    }
    if trec_eval:
        out[f"trec_eval{c} -m all_trec"] = [[trec_eval, *f, "-m", "all_trec", str(qrels), str(runs[0])]]
        out[f"trec_eval{c} -m ndcg_cut.10"] = [[trec_eval, *f, "-m", "ndcg_cut.10", str(qrels), str(runs[0])]]
    if len(runs) > 1:
        out[f"ir-eval, {len(runs)} runs in one call"] = [
            [py, "-m", "metrics", "-m", "all_trec", str(qrels), *map(str, runs)]
        ]
        if trec_eval:
            out[f"trec_eval, {len(runs)} calls"] = [[trec_eval, "-m", "all_trec", str(qrels), str(r)] for r in runs]
    try:
        import pytrec_eval  # noqa: F401

        out["pytrec_eval (4 measure families)"] = [[py, "-c", PYTREC, str(qrels), str(runs[0])]]
        four = ["-m", "map", "-m", "ndcg_cut", "-m", "P", "-m", "recall"]
        out["ir-eval, the same 4 families"] = [[py, "-m", "metrics", *f, *four, str(qrels), str(runs[0])]]
    except ImportError:
        pass
    irm = shutil.which("ir_measures") or (
        str(Path(py).parent / "ir_measures") if (Path(py).parent / "ir_measures").exists() else None
    )
    if irm:
        out["ir_measures CLI (AP nDCG@10 P@10 R@100)"] = [[irm, str(qrels), str(runs[0]), "AP nDCG@10 P@10 R@100"]]
        out["ir-eval -m 'AP nDCG@10 P@10 R@100'"] = [
            [py, "-m", "metrics", *f, "-m", "AP nDCG@10 P@10 R@100", str(qrels), str(runs[0])]
        ]
    return out


GNU_TIME = "/usr/bin/time" if os.path.exists("/usr/bin/time") else None


def time_once(commands: list[list[str]]) -> tuple[float, int]:
    """Wall-clock seconds of the commands one after the other, and the largest peak memory (KiB).

    Peak memory comes from GNU time where there is one (a forked child's own maximum resident set
    would include the benchmark's memory from before the exec); 0 otherwise.
    """
    start = time.perf_counter()
    peak = 0
    for cmd in commands:
        full = [GNU_TIME, "-f", "%M", *cmd] if GNU_TIME else cmd
        proc = subprocess.run(full, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd[:3])}... failed with status {proc.returncode}")
        if GNU_TIME:
            peak = max(peak, int(proc.stderr.strip().splitlines()[-1]))
    return time.perf_counter() - start, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=["dl19", "robust", "1m"], choices=list(SHAPES))
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    # byte-compiled as an installed package is (pip writes the .pyc files; an environment with
    # PYTHONDONTWRITEBYTECODE would otherwise compile every module on every start)
    import compileall

    import trec_eval_ref  # the tests' way of finding (or building) trec_eval 10.0

    import metrics

    compileall.compile_dir(os.path.dirname(metrics.__file__), quiet=1)

    trec_eval = trec_eval_ref.BIN
    if not trec_eval:
        print(f"(no trec_eval: {trec_eval_ref.REASON})")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.sizes:
            qrels, runs = generate(Path(tmp), name, runs=5 if name == "dl19" else 1)
            lines = sum(1 for _ in open(runs[0]))
            table = contenders(qrels, runs, trec_eval, ["-c"] if name in COMPLETE else [])
            times = {k: [] for k in table}
            peaks = {k: 0 for k in table}
            for _ in range(args.rounds):  # interleaved: every contender once per round
                for key, commands in table.items():
                    seconds, peak = time_once(commands)
                    times[key].append(seconds)
                    peaks[key] = max(peaks[key], peak)
            med = {k: statistics.median(v) for k, v in times.items()}
            floor = med["floor (python -c 'import numpy')"]
            ref_key = next((k for k in med if k.startswith("trec_eval") and k.endswith("-m all_trec")), None)
            ref, ref_peak = (med[ref_key], peaks[ref_key]) if ref_key else (None, None)
            print(
                f"\n{name}: {lines:,} run lines, {sum(1 for _ in open(qrels)):,} qrels lines "
                f"(median of {args.rounds}, whole process; peak memory: the largest of the rounds)"
            )
            print(
                f"{'contender':<44} {'seconds':>8} {'x trec_eval':>12} {'x floor':>8} {'peak MiB':>9} "
                f"{'x trec_eval':>12}"
            )
            for key in table:
                x_ref = f"{med[key] / ref:.2f}" if ref else "-"
                x_peak = f"{peaks[key] / ref_peak:.2f}" if ref_peak else "-"
                print(
                    f"{key:<44} {med[key]:>8.3f} {x_ref:>12} {med[key] / floor:>8.2f} {peaks[key] / 1024:>9.1f} "
                    f"{x_peak:>12}"
                )


if __name__ == "__main__":
    main()
