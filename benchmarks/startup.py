"""What a command pays for: the everyday ``ir-eval`` against the floor, pytrec_eval and trec_eval -O2.

Generates a TREC DL 2019-shaped run (43 queries x 1,000 documents, about 200 graded judgments a query:
``benchmarks/everyday.py``'s generator) and times, as fresh processes interleaved round by round (a busy
machine slows every contender alike):

* ``ir-eval -m all_trec`` and ``ir-eval -m ndcg_cut.10``;
* the floor, ``python -c "import numpy"``: the least any numpy-based tool can take;
* pytrec_eval's one-line script for ``ndcg_cut_10`` (its parsers, one evaluator, ``evaluate``);
* trec_eval 10.0 built with ``-O2`` added to upstream's flags (``--trec-eval-o2 PATH``,
  ``$TREC_EVAL_O2_BIN``, else built from ``$TREC_EVAL_SRC`` into the tests' cache folder), both measures.

Then, in this process, ``metrics.evaluate(qrels, run, measures)`` on dicts against
``pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)`` for five measures (map, ndcg_cut_10, P_10,
recip_rank, recall_1000), the dicts read by pytrec_eval's parsers.  Prints medians and the ratios the speed
issue (#46) sets goals for: the whole process against the floor (<= 1.2) and against pytrec_eval's script
(<= 1.0).

    python benchmarks/startup.py [--rounds 11] [--trec-eval-o2 PATH]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

PYTREC_NDCG = (
    "import sys, pytrec_eval\n"
    "q = pytrec_eval.parse_qrel(open(sys.argv[1]))\nr = pytrec_eval.parse_run(open(sys.argv[2]))\n"
    "print(len(pytrec_eval.RelevanceEvaluator(q, {'ndcg_cut.10'}).evaluate(r)))\n"
)
FLOOR = "floor (python -c 'import numpy')"
PYTREC = "pytrec_eval script, ndcg_cut_10"
#: the five measures of the in-process comparison, in pytrec_eval's spelling and in ours
PYTREC_MEASURES = {"map", "ndcg_cut.10", "P.10", "recip_rank", "recall.1000"}
OUR_MEASURES = ["map", "ndcg_cut_10", "P_10", "recip_rank", "recall_1000"]


def contenders(qrels: Path, run: Path, trec_eval_o2: str | None) -> dict[str, list[list[str]]]:
    py = sys.executable
    out = {
        FLOOR: [[py, "-c", "import numpy"]],
        "ir-eval -m all_trec": [[py, "-m", "metrics", "-m", "all_trec", str(qrels), str(run)]],
        "ir-eval -m ndcg_cut.10": [[py, "-m", "metrics", "-m", "ndcg_cut.10", str(qrels), str(run)]],
    }
    try:
        import pytrec_eval  # noqa: F401

        out[PYTREC] = [[py, "-c", PYTREC_NDCG, str(qrels), str(run)]]
    except ImportError:
        print("(no pytrec_eval: pip install pytrec-eval-terrier)")
    if trec_eval_o2:
        out["trec_eval -O2 -m all_trec"] = [[trec_eval_o2, "-m", "all_trec", str(qrels), str(run)]]
        out["trec_eval -O2 -m ndcg_cut.10"] = [[trec_eval_o2, "-m", "ndcg_cut.10", str(qrels), str(run)]]
    return out


def whole_processes(qrels: Path, run: Path, trec_eval_o2: str | None, rounds: int) -> None:
    from everyday import time_once

    table = contenders(qrels, run, trec_eval_o2)
    times: dict[str, list[float]] = {k: [] for k in table}
    for _ in range(rounds):  # interleaved: every contender once per round
        for key, commands in table.items():
            times[key].append(time_once(commands)[0])
    med = {k: statistics.median(v) for k, v in times.items()}
    o2 = med.get("trec_eval -O2 -m all_trec")
    print(f"\nwhole process, median of {rounds} (seconds; ratios of the medians)")
    print(f"{'contender':<34} {'seconds':>8} {'x floor':>8} {'x pytrec_eval':>14} {'x trec_eval -O2':>16}")
    for key in table:
        x_pytrec = f"{med[key] / med[PYTREC]:.2f}" if PYTREC in med else "-"
        x_o2 = f"{med[key] / o2:.2f}" if o2 else "-"
        print(f"{key:<34} {med[key]:>8.3f} {med[key] / med[FLOOR]:>8.2f} {x_pytrec:>14} {x_o2:>16}")


def in_process(qrels_path: Path, run_path: Path, rounds: int) -> None:
    try:
        import pytrec_eval
    except ImportError:
        return
    import metrics

    with open(qrels_path) as fh:
        qrels = pytrec_eval.parse_qrel(fh)
    with open(run_path) as fh:
        run = pytrec_eval.parse_run(fh)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, PYTREC_MEASURES).evaluate(run)
    ours = metrics.evaluate(qrels, run, OUR_MEASURES).per_query_wide("ndcg_cut_10")
    worst = max(abs(theirs[q]["ndcg_cut_10"] - ours.loc[q].iloc[0]) for q in ours.index)
    assert worst < 1e-12, worst  # the same numbers: the same work timed
    work = {
        "pytrec_eval.RelevanceEvaluator(...).evaluate": lambda: pytrec_eval.RelevanceEvaluator(
            qrels, PYTREC_MEASURES
        ).evaluate(run),
        "metrics.evaluate(qrels, run, measures)": lambda: metrics.evaluate(qrels, run, OUR_MEASURES),
    }
    times: dict[str, list[float]] = {k: [] for k in work}
    for _ in range(rounds):
        for key, call in work.items():
            start = time.perf_counter()
            call()
            times[key].append(time.perf_counter() - start)
    med = {k: statistics.median(v) for k, v in times.items()}
    base = med["pytrec_eval.RelevanceEvaluator(...).evaluate"]
    print(f"\nin process, dicts, {len(OUR_MEASURES)} measures ({', '.join(OUR_MEASURES)}), median of {rounds}")
    print(f"{'contender':<46} {'ms':>8} {'x pytrec_eval':>14}")
    for key in work:
        print(f"{key:<46} {med[key] * 1000:>8.1f} {med[key] / base:>14.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=11)
    from everyday import add_trec_eval_o2, build_o2, compile_metrics, generate

    add_trec_eval_o2(parser)
    args = parser.parse_args()

    import trec_eval_ref

    compile_metrics()
    trec_eval_o2 = args.trec_eval_o2
    if not trec_eval_o2:
        trec_eval_o2, why = build_o2(trec_eval_ref.SRC)
        if not trec_eval_o2:
            print(f"(no -O2 trec_eval: {why})")
    with tempfile.TemporaryDirectory() as tmp:
        qrels, (run,) = generate(Path(tmp), "dl19")
        lines = sum(1 for _ in open(run))
        print(f"dl19: {lines:,} run lines, {sum(1 for _ in open(qrels)):,} qrels lines")
        whole_processes(qrels, run, trec_eval_o2, args.rounds)
        in_process(qrels, run, args.rounds)


if __name__ == "__main__":
    main()
