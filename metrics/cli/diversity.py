"""``ir-eval -m alpha_nDCG@20 INTENT_QRELS RUN``: the diversity measures (ndeval's values) against intent
qrels (``qid intent docid grade``), in trec_eval's layout under the names given."""

from __future__ import annotations

import sys

from metrics.cli.common import STDIN, UsageError, read_path, settings_of_args, told_nothing_scored, unreadable
from metrics.cli.output import _print_csv, _print_json
from metrics.errors import EXIT_INPUT, EXIT_USAGE, InputError


def diversity_names(names) -> list[str]:
    """The names among ``names`` that name diversity measures (scored against intent qrels; also those with
    parameters that do not fit: evaluate_diversity says why)."""
    from metrics.measures.registry import is_intent_name

    return [n for n in names if is_intent_name(n)]


def read_intents(path: str):
    """The intent qrels at ``path`` (``-``: standard input); refused when column 2 holds one value per query
    (ad hoc qrels, which read as intent qrels of one intent)."""
    from metrics.engine.intents import read_intent_qrels

    qrels = read_path(path, read_intent_qrels)
    if not len(qrels) or qrels.groupby("query_id")["intent"].nunique().max() < 2:
        raise InputError(
            "column 2 holds one value per query: ad hoc qrels, not intent qrels; the diversity measures "
            "need a query's intents in column 2 (ir-eval --irm reads any 4-column file as intent qrels)",
            path=STDIN if path == "-" else path,
            expected="intent qrels, 'qid intent docid grade'",
        )
    return qrels


def unused_flags(args, *more: tuple[str, bool]) -> list[str]:
    """The options given that the diversity measures do not take: trec_eval's -M, -J and -N, and ``more``
    (``(flag, whether it was given)`` pairs of the command)."""
    given = (("-M", args.max_docs is not None), ("-J", args.judged_only), ("-N", args.num_docs != 0), *more)
    return [flag for flag, used in given if used]


def run_diversity(args, names: list[str], out) -> int:
    """``-m alpha_nDCG@20 ...``: the diversity measures against intent qrels (``qid intent docid grade``), in
    trec_eval's layout (``-q``: per query, then ``all``), under the names given."""
    from metrics.engine.intents import evaluate_diversity, parse_diversity_measures
    from metrics.io.readers import read_run

    diverse = diversity_names(names)
    try:
        if len(diverse) < len(names):
            other = next(n for n in names if n not in diverse)
            raise UsageError(
                f"{diverse[0]} is a diversity measure, scored against intent qrels ('qid intent docid grade'), "
                f"{other} against ad hoc qrels: score them in two calls (ir-eval -m {diverse[0]} INTENT_QRELS RUN; "
                f"ir-eval -m {other} QRELS RUN)"
            )
        unused = unused_flags(
            args,
            ("--ranked", args.ranked),
            ("--compare", args.compare),
            ("--all-pairs", args.all_pairs),
            ("--dask", args.dask is not None),
        )
        if unused:
            raise UsageError(f"{', '.join(unused)}: not offered with the diversity measures ({', '.join(diverse)})")
        parse_diversity_measures(names, args.level)
    except (UsageError, ValueError) as exc:
        print(f"ir-eval: {exc}", file=sys.stderr)
        return EXIT_USAGE

    try:
        qrels = read_intents(args.qrels)
        runs = [read_path(p, read_run) for p in args.runs]
        ev = evaluate_diversity(qrels, runs, names, settings=settings_of_args(args))
    except (InputError, FileNotFoundError) as exc:
        return unreadable(exc)
    if told_nothing_scored(ev):
        return EXIT_INPUT
    if args.format != "trec":
        {"csv": _print_csv, "json": _print_json}[args.format](ev, args, out)
    else:
        for run in ev.runs:
            out.write("".join(line + "\n" for line in ev.trec_lines(run, queries=args.query, summary=args.summary)))
    out.flush()
    return 0
