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
* ``7m`` (only when asked for: it takes minutes): MS MARCO-sized, 7,000 x 1,000;
* ``10k``: 10,000 queries x 100 documents (MS MARCO dev, BEIR) evaluated per query (``-q``), as for
  significance tests: trec_eval's lines and ``--format json``.

Contenders: ``ir-eval -m all_trec`` and ``-m ndcg_cut.10``; five runs in one
``ir-eval`` call against five ``trec_eval`` calls; trec_eval 10.0 built with
upstream's Makefile (``-g``, no optimisation flag: built from ``../shared/reference``
like the tests do, or ``$TREC_EVAL_BIN``) and the same source built with ``-O2`` added to
upstream's flags (``--trec-eval-o2 PATH`` or ``$TREC_EVAL_O2_BIN``; else built here from
trec_eval's source into the tests' cache folder); pytrec_eval and the ir_measures command line when
installed; and the floor, ``python -c "import numpy"``, the least any numpy-based tool can take.

    python benchmarks/everyday.py [--sizes dl19 robust 1m 10k] [--rounds 5] [--trec-eval-o2 PATH]
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
    "10k": (10000, 100, 10),
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


#: the names of the two trec_eval builds' contenders: upstream's flags, and -O2 added to them
BUILDS = ("trec_eval", "trec_eval -O2")

#: the large synthetic runs are scored with -c, as the speed issue's table has them; 10k per query
FLAGS = {"1m": ["-c"], "7m": ["-c"], "10k": ["-q"]}


def contenders(
    qrels: Path, runs: list[Path], trec_eval: str | None, flags=(), trec_eval_o2: str | None = None
) -> dict[str, list[list[str]]]:
    py = sys.executable
    f = list(flags)
    c = "".join(f" {flag}" for flag in f)
    builds = [(base, binary) for base, binary in zip(BUILDS, (trec_eval, trec_eval_o2)) if binary]
    out = {
        "floor (python -c 'import numpy')": [[py, "-c", "import numpy"]],
        f"ir-eval{c} -m all_trec": [[py, "-m", "metrics", *f, "-m", "all_trec", str(qrels), str(runs[0])]],
    }
    if "-q" in f:  # per query: trec_eval's lines and JSON, all measures
        out[f"ir-eval{c} -m all_trec --format json"] = [
            [py, "-m", "metrics", *f, "-m", "all_trec", "--format", "json", str(qrels), str(runs[0])]
        ]
    else:
        out[f"ir-eval{c} -m ndcg_cut.10"] = [[py, "-m", "metrics", *f, "-m", "ndcg_cut.10", str(qrels), str(runs[0])]]
    for base, binary in builds:
        out[f"{base}{c} -m all_trec"] = [[binary, *f, "-m", "all_trec", str(qrels), str(runs[0])]]
        if "-q" not in f:
            out[f"{base}{c} -m ndcg_cut.10"] = [[binary, *f, "-m", "ndcg_cut.10", str(qrels), str(runs[0])]]
    if "-q" in f:
        return out
    if len(runs) > 1:
        out[f"ir-eval, {len(runs)} runs in one call"] = [
            [py, "-m", "metrics", "-m", "all_trec", str(qrels), *map(str, runs)]
        ]
        for base, binary in builds:
            out[f"{base}, {len(runs)} calls"] = [[binary, "-m", "all_trec", str(qrels), str(r)] for r in runs]
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


def build_o2(source: str | None) -> tuple[str | None, str]:
    """trec_eval built from ``source`` (its source tree) as upstream's Makefile builds it, with ``-O2``
    added to the Makefile's CFLAGS, in the tests' cache folder (built once); (binary, reason if none)."""
    import re

    import trec_eval_ref

    if not source or not (Path(source) / "Makefile").is_file():
        return None, "no trec_eval source tree (TREC_EVAL_SRC) to build an -O2 trec_eval from"
    target = trec_eval_ref._cache().parent / "trec_eval-10.0-O2"
    binary = target / "trec_eval"
    if binary.is_file() and os.access(binary, os.X_OK):
        return str(binary), ""
    flags = re.search(r"^CFLAGS\s*=(.*)$", (Path(source) / "Makefile").read_text(), re.MULTILINE)
    if flags is None or shutil.which("make") is None:
        return None, "cannot build an -O2 trec_eval: no CFLAGS in its Makefile, or no make"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("trec_eval", "*.o"))
    cflags = flags.group(1).strip() + " -O2"
    proc = subprocess.run(["make", "-C", str(target), f"CFLAGS={cflags}"], capture_output=True, text=True)
    if proc.returncode != 0:
        return None, f"building an -O2 trec_eval failed: {proc.stderr.strip()[-300:]}"
    return str(binary), ""


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


def add_trec_eval_o2(parser: argparse.ArgumentParser) -> None:
    """The ``--trec-eval-o2 PATH`` option every benchmark against trec_eval -O2 takes."""
    parser.add_argument(
        "--trec-eval-o2",
        default=os.environ.get("TREC_EVAL_O2_BIN"),
        metavar="PATH",
        help="trec_eval 10.0 built with -O2 added to upstream's flags (default: $TREC_EVAL_O2_BIN, else built here)",
    )


def compile_metrics() -> None:
    """The project byte-compiled as an installed package is (pip writes the .pyc files; an environment with
    PYTHONDONTWRITEBYTECODE would otherwise compile every module on every start)."""
    import compileall

    import metrics

    compileall.compile_dir(os.path.dirname(metrics.__file__), quiet=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=["dl19", "robust", "1m"], choices=list(SHAPES))
    parser.add_argument("--rounds", type=int, default=5)
    add_trec_eval_o2(parser)
    args = parser.parse_args()

    import trec_eval_ref  # the tests' way of finding (or building) trec_eval 10.0

    compile_metrics()

    trec_eval = trec_eval_ref.BIN
    if not trec_eval:
        print(f"(no trec_eval: {trec_eval_ref.REASON})")
    trec_eval_o2 = args.trec_eval_o2
    if not trec_eval_o2:
        trec_eval_o2, why = build_o2(trec_eval_ref.SRC)
        if not trec_eval_o2:
            print(f"(no -O2 trec_eval: {why})")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.sizes:
            qrels, runs = generate(Path(tmp), name, runs=5 if name == "dl19" else 1)
            lines = sum(1 for _ in open(runs[0]))
            table = contenders(qrels, runs, trec_eval, FLAGS.get(name, []), trec_eval_o2)
            times: dict[str, list[float]] = {k: [] for k in table}
            peaks = {k: 0 for k in table}
            for _ in range(args.rounds):  # interleaved: every contender once per round
                for key, commands in table.items():
                    seconds, peak = time_once(commands)
                    times[key].append(seconds)
                    peaks[key] = max(peaks[key], peak)
            med = {k: statistics.median(v) for k, v in times.items()}
            floor = med["floor (python -c 'import numpy')"]
            # the ratios: to trec_eval's all_trec with the same flags, upstream's build and the -O2 one
            c = "".join(f" {flag}" for flag in FLAGS.get(name, []))
            refs = [k if k in med else None for k in (f"{base}{c} -m all_trec" for base in BUILDS)]
            print(
                f"\n{name}: {lines:,} run lines, {sum(1 for _ in open(qrels)):,} qrels lines "
                f"(median of {args.rounds}, whole process; peak memory: the largest of the rounds)"
            )
            print(
                f"{'contender':<44} {'seconds':>8} {'x trec_eval':>12} {'x -O2':>6} {'x floor':>8} {'peak MiB':>9} "
                f"{'x trec_eval':>12} {'x -O2':>6}"
            )
            for key in table:
                x_ref = [f"{med[key] / med[r]:.2f}" if r else "-" for r in refs]
                x_peak = [f"{peaks[key] / peaks[r]:.2f}" if r and peaks[r] else "-" for r in refs]
                print(
                    f"{key:<44} {med[key]:>8.3f} {x_ref[0]:>12} {x_ref[1]:>6} {med[key] / floor:>8.2f} "
                    f"{peaks[key] / 1024:>9.1f} {x_peak[0]:>12} {x_peak[1]:>6}"
                )


if __name__ == "__main__":
    main()
