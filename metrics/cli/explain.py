"""``ir-eval --explain MEASURE --query QID QRELS RUN``: how one value was computed, as text.

The text is the explanation's Markdown (:meth:`metrics.explain.Explanation.to_text`); its last line
is trec_eval's ``-q`` line for that measure and query (the ``all`` line for ``--query all``).
``--format json`` prints the same as JSON (the rows, the tables, the value), with the gain curve
(``--gain-curve``, ``--depth K``) when asked for.  Options ``-l``, ``-c``, ``-M``, ``-J``, ``-N`` are trec_eval's;
nDCG variants are chosen by the measure's name (``'nDCG(gain=exp)@5'``,
``'nDCG(discount=jk,base=2)@6'``, ``'ndcg.1=3,2=9'``).  A diversity measure (``alpha_nDCG@20``,
``ERR_IA@20``, ``P_IA@10``, ``StRecall@10``, ``NRBP``) is explained from intent qrels (``qid intent docid
grade``) given as QRELS, with ``-l`` and ``-c``.
"""

from __future__ import annotations

import json
import sys

from metrics.cli.common import settings_of_args, unreadable
from metrics.errors import EXIT_INPUT, EXIT_USAGE, InputError

__all__ = ["main", "parser"]


def parser():
    from metrics.cli.common import Parser, add_level_option

    p = Parser(
        prog="ir-eval --explain",
        description="Show how one value was computed: the measure's formula with the query's numbers, "
        "from the ranked list it came from. The last line is trec_eval's -q line for that measure and query.",
    )
    p.add_argument("--explain", dest="measure", metavar="MEASURE", required=True, help="the measure (one)")
    p.add_argument("--query", required=True, metavar="QID", help="the query ('all': the summary over the queries)")
    p.add_argument(
        "qrels",
        metavar="QRELS",
        help="relevance judgments: qid iter docid rel (for a diversity measure, intent qrels: qid intent docid grade)",
    )
    p.add_argument("run", metavar="RUN", help="run file: qid Q0 docid rank score tag")
    add_level_option(p)
    p.add_argument("-c", dest="complete", action="store_true", help="queries missing from the run score 0")
    p.add_argument("-M", dest="max_docs", type=int, default=None, metavar="N", help="read only the first N documents")
    p.add_argument("-N", dest="num_docs", type=int, default=0, metavar="N", help="documents in the collection")
    p.add_argument("-J", dest="judged_only", action="store_true", help="drop unjudged documents before ranking")
    p.add_argument(
        "--format", choices=("text", "trec", "json"), default="text", help="text (Markdown; the default) or json"
    )
    p.add_argument(
        "--gain-curve",
        dest="gain_curve",
        action="store_true",
        help="also the run's cumulative gain DCG@k against the ideal ranking's, k = 1..K",
    )
    p.add_argument(
        "--conventions",
        action="store_true",
        help="also the textbook conventions of the measure side by side with trec_eval's (AP over the relevant "
        "retrieved, interpolated AP, the Järvelin-Kekäläinen discount, exponential gain, other -l levels, ...)",
    )
    p.add_argument(
        "--depth", type=int, default=None, metavar="K", help="K of --gain-curve (default: the cutoff, else up to 100)"
    )
    p.add_argument("--debug", action="store_true", help="show the traceback of an unexpected error")
    return p


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    from metrics.explain import Prepared, UnknownQuery, resolve_measure
    from metrics.measures import FAMILIES

    if _is_diversity(args.measure):
        return _explain_diversity(args)
    try:
        if args.max_docs is not None and args.max_docs < 0:
            raise ValueError(f"-M must be 0 or more, not {args.max_docs}")
        if args.depth is not None and args.depth < 1:
            raise ValueError(f"--depth must be 1 or more, not {args.depth}")
        measure = resolve_measure(args.measure)
    except (ValueError, KeyError, OverflowError) as exc:
        print(f"ir-eval: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        prep = Prepared(args.qrels, args.run, settings=settings_of_args(args))
    except (InputError, FileNotFoundError) as exc:
        return unreadable(exc)
    if not prep.query_ids:
        print("ir-eval: no queries with both results and relevance info", file=sys.stderr)
        return EXIT_INPUT
    try:
        explanation = prep.explain(measure, args.query)
        curve = None
        if args.gain_curve and args.query != "all":
            curve = prep.gain_curve(args.query, measure, args.depth)
        side = prep.side_by_side(measure, args.query) if args.conventions and explanation.value is not None else None
    except UnknownQuery as exc:
        print(f"ir-eval: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.measure.partition(".")[0] not in FAMILIES and args.measure != measure.trec_name:
        explanation = _asked(explanation, args.measure)
    out = sys.stdout
    if args.format == "json":
        data = explanation.to_dict()
        if curve is not None:
            data["gain_curve"] = curve.to_dict()
        if side is not None:
            from metrics.explain.textbook import records

            data["conventions_side_by_side"] = records(side)
        json.dump(data, out, indent=1, ensure_ascii=False, allow_nan=False)
        out.write("\n")
    else:
        text = explanation.to_text()
        extra = [] if curve is None else [_curve_text(curve)]
        if side is not None:
            from metrics.explain.textbook import as_table

            what = "the summary" if args.query == "all" else f"query {args.query}"
            extra.append("\n".join(as_table(side, f"{args.measure}, {what}").markdown()))
        for part in extra:  # before the last line, which stays trec_eval's
            head, sep, last = text.rstrip("\n").rpartition("\n\n")
            text = (head + "\n\n" + part + sep + last + "\n") if sep else text + part + "\n"
        out.write(text)
    out.flush()
    return 0


def _is_diversity(name: str) -> bool:
    """Whether ``name`` is a diversity measure's (also with parameters that do not fit: said when it is
    explained)."""
    from metrics.measures.registry import is_intent_name

    return is_intent_name(name)


def _explain_diversity(args) -> int:
    """A diversity measure's value explained from intent qrels (``-l`` and ``-c`` apply, the rest does not)."""
    from metrics.cli.common import read_path
    from metrics.cli.diversity import read_intents, unused_flags
    from metrics.explain import PreparedDiversity, UnknownQuery
    from metrics.io.readers import read_run

    unused = unused_flags(args, ("--gain-curve", args.gain_curve), ("--depth", args.depth is not None))
    if unused:
        what = ", ".join(unused)
        print(f"ir-eval: {what}: not offered with the diversity measures ({args.measure})", file=sys.stderr)
        return EXIT_USAGE
    try:
        PreparedDiversity.measure_named(args.measure, args.level)
    except ValueError as exc:
        print(f"ir-eval: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        qrels = read_intents(args.qrels)
        run = read_path(args.run, read_run)
        prep = PreparedDiversity(qrels, run, settings=settings_of_args(args))
    except (InputError, FileNotFoundError) as exc:
        return unreadable(exc)
    if not prep.query_ids:
        print("ir-eval: no queries with both results and intent qrels", file=sys.stderr)
        return EXIT_INPUT
    try:
        explanation = prep.explain(args.measure, args.query)
    except UnknownQuery as exc:
        print(f"ir-eval: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.format == "json":
        json.dump(explanation.to_dict(), sys.stdout, indent=1, ensure_ascii=False, allow_nan=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(explanation.to_text())
    sys.stdout.flush()
    return 0


def _asked(explanation, name: str):
    from dataclasses import replace

    return replace(explanation, asked=name)


def _curve_text(curve) -> str:
    from metrics.explain.model import number_text

    lines = [f"Cumulative gain, the run against the ideal ranking ({curve.variant}):", ""]
    lines += ["| k | DCG@k | ideal DCG@k |", "|---:|---:|---:|"]
    lines += [f"| {k} | {number_text(d)} | {number_text(i)} |" for k, d, i in zip(curve.k, curve.dcg, curve.ideal)]
    marks = [
        f"{m.docid} (gain {m.gain:g}): run rank {m.run_rank or '-'}, ideal rank {m.ideal_rank or '-'}"
        for m in curve.relevant
        if (m.run_rank or curve.depth + 1) <= curve.depth or (m.ideal_rank or curve.depth + 1) <= curve.depth
    ]
    if marks:
        lines += ["", f"Documents with a gain in the top {curve.depth} of either ranking: " + "; ".join(marks)]
    if curve.unjudged:
        lines += ["", "Unjudged in the top k: ranks " + ", ".join(map(str, curve.unjudged))]
    return "\n".join(lines)
