"""End-to-end speed of ``ir-eval`` against its peers, in one run.

Each contender starts from the same files on disk, in a fresh process, and
is timed by wall clock; peak memory is the child's maximum resident set
(``wait4``).  Contenders:

* ``ir-eval -m all_trec`` (this project);
* ``trec_eval -m all_trec`` (10.0, C), when a binary is found (``--trec-eval``,
  ``$TREC_EVAL`` or ``trec_eval`` on ``PATH``);
* ``pytrec_eval`` (trec_eval compiled as a Python module), all_trec measures,
  parsing with its own ``parse_qrel``/``parse_run``;
* ``ranx`` with seven measures (map, mrr, ndcg@10, precision@10, recall@100,
  r-precision, bpref), reading the TREC files with ``Qrels.from_file`` and
  ``Run.from_file``.

Run ``python benchmarks/generate.py`` first (MS MARCO-sized data), then
``python benchmarks/bench.py``.  The table ends with each peer's time divided
by ``ir-eval``'s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

HERE = Path(__file__).parent

PYTREC = textwrap.dedent("""
    import sys, pytrec_eval
    with open(sys.argv[1]) as f:
        qrels = pytrec_eval.parse_qrel(f)
    with open(sys.argv[2]) as f:
        run = pytrec_eval.parse_run(f)
    measures = pytrec_eval.supported_measures
    ev = pytrec_eval.RelevanceEvaluator(qrels, measures)
    res = ev.evaluate(run)
    print(len(res))
""")

RANX = textwrap.dedent("""
    import sys
    from ranx import Qrels, Run, evaluate
    qrels = Qrels.from_file(sys.argv[1], kind="trec")
    run = Run.from_file(sys.argv[2], kind="trec")
    print(evaluate(qrels, run, ["map", "mrr", "ndcg@10", "precision@10",
                                "recall@100", "r-precision", "bpref"]))
""")


def timed(cmd: list[str], repeat: int) -> tuple[float, float, str]:
    """Best wall time (s), peak RSS (MiB) and output of ``cmd`` over ``repeat`` runs."""
    best, peak, out = float("inf"), 0.0, ""
    for _ in range(repeat):
        with tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
            start = time.perf_counter()
            proc = subprocess.Popen(cmd, stdout=stdout, stderr=stderr)
            _, status, usage = os.wait4(proc.pid, 0)
            elapsed = time.perf_counter() - start
            proc.returncode = os.waitstatus_to_exitcode(status)
            stdout.seek(0)
            stderr.seek(0)
            if proc.returncode:
                message = stderr.read().decode(errors="replace")[-2000:]
                raise RuntimeError(f"exit {proc.returncode}: {message}")
            out = stdout.read().decode(errors="replace")
        best = min(best, elapsed)
        peak = max(peak, usage.ru_maxrss / 1024)
    return best, peak, out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=HERE / "data")
    parser.add_argument("--trec-eval", default=os.environ.get("TREC_EVAL") or shutil.which("trec_eval"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--skip", action="append", default=[], help="contender to leave out (trec_eval, pytrec_eval, ranx)"
    )
    args = parser.parse_args(argv)
    qrels, run = str(args.data / "qrels.txt"), str(args.data / "run.txt")
    if not Path(run).exists():
        print(f"no data in {args.data}: run python benchmarks/generate.py first", file=sys.stderr)
        return 2
    lines = sum(1 for _ in open(run, "rb"))
    print(f"data: {run} ({lines:,} lines), {qrels}")
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}")

    contenders: list[tuple[str, list[str]]] = [
        ("ir-eval all_trec", [sys.executable, "-m", "metrics.cli.ir_eval", "-m", "all_trec", qrels, run]),
    ]
    if args.trec_eval and "trec_eval" not in args.skip:
        contenders.append(("trec_eval 10.0 all_trec", [args.trec_eval, "-m", "all_trec", qrels, run]))
    if "pytrec_eval" not in args.skip:
        contenders.append(("pytrec_eval all_trec", [sys.executable, "-c", PYTREC, qrels, run]))
    if "ranx" not in args.skip:
        contenders.append(("ranx 7 measures", [sys.executable, "-c", RANX, qrels, run]))

    results = []
    for name, cmd in contenders:
        try:
            wall, rss, _ = timed(cmd, args.repeat)
        except (RuntimeError, FileNotFoundError) as exc:
            print(f"{name:28s} skipped: {exc}")
            continue
        results.append((name, wall, rss))
        print(f"{name:28s} {wall:8.2f} s  {rss:8.0f} MiB", flush=True)
    if not results or not results[0][0].startswith("ir-eval"):
        return 1
    ours = results[0][1]
    print("\nwall time relative to ir-eval (peer time / ir-eval time):")
    for name, wall, _ in results[1:]:
        print(f"  {name:28s} {wall / ours:6.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
