"""In-process speed on dicts, ``{qid: {docid: score}}``, as pytrec_eval and ranx users hold them, side by side
with pytrec_eval in the same run.

Generates DL19-shaped (43 queries x 1,000 documents, about 200 judgments a query) and Robust04-shaped (250 x
1,000, a 311k-line qrels) data with ``benchmarks/everyday.py``'s generator, reads them into dicts with
pytrec_eval's own parsers, then times, interleaved round by round (a busy machine slows every contender alike):

* ``pytrec_eval``: ``RelevanceEvaluator(qrels, measures).evaluate(run)``, a new evaluator each time, and one
  evaluator made once (``evaluate(run)`` only);
* ``metrics.evaluate(qrels, run, measures)`` on the same dicts, and ``metrics.evaluator(qrels, measures)``
  made once (``.evaluate(run)`` only).

The measures are pytrec_eval's ``map``, ``ndcg_cut``, ``P`` and ``recall`` (trec_eval's cutoffs: 5 to 1,000),
the same numbers either way.  Prints each contender's median and its ratio to pytrec_eval's.

    python benchmarks/dicts.py [--sizes dl19 robust] [--rounds 7]
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

MEASURES = ["map", "ndcg_cut", "P", "recall"]


def _contenders(qrels: dict, run: dict):
    import pytrec_eval

    import metrics

    reused_pytrec = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES))
    reused_ours = metrics.evaluator(qrels, MEASURES)
    return {
        "pytrec_eval": lambda: pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES)).evaluate(run),
        "metrics.evaluate": lambda: metrics.evaluate(qrels, run, MEASURES),
        "pytrec_eval, evaluator reused": lambda: reused_pytrec.evaluate(run),
        "metrics.evaluator, reused": lambda: reused_ours.evaluate(run),
    }


def _check(qrels: dict, run: dict) -> None:
    """The two give the same numbers (the benchmark times the same work)."""
    import pytrec_eval

    import metrics

    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut"}).evaluate(run)
    ours = metrics.evaluate(qrels, run, ["map", "ndcg_cut.10"]).per_query_wide("map")
    worst = max(abs(theirs[q]["map"] - ours.loc[q].iloc[0]) for q in ours.index)
    assert worst < 1e-12, worst


def main(argv: list[str] | None = None) -> None:
    import pytrec_eval
    from everyday import generate

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="+", default=["dl19", "robust"], choices=["dl19", "robust"])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        for size in args.sizes:
            qrels_path, (run_path,) = generate(Path(folder), size)
            with open(qrels_path) as fh:
                qrels = pytrec_eval.parse_qrel(fh)
            with open(run_path) as fh:
                run = pytrec_eval.parse_run(fh)
            _check(qrels, run)
            contenders = _contenders(qrels, run)
            times: dict[str, list[float]] = {name: [] for name in contenders}
            for name, work in contenders.items():  # a warm-up round, not counted
                work()
            for _ in range(args.rounds):
                for name, work in contenders.items():
                    start = time.perf_counter()
                    work()
                    times[name].append(time.perf_counter() - start)
            lines = sum(len(d) for d in run.values())
            print(f"{size}: {len(run)} queries, {lines:,} run lines, {sum(len(d) for d in qrels.values()):,} judgments")
            base = {
                "": statistics.median(times["pytrec_eval"]),
                "reused": statistics.median(times["pytrec_eval, evaluator reused"]),
            }
            for name, got in times.items():
                median = statistics.median(got)
                against = base["reused"] if "reused" in name else base[""]
                print(f"  {name:<32} {1000 * median:8.1f} ms   {median / against:5.2f} x pytrec_eval")


if __name__ == "__main__":
    main()
