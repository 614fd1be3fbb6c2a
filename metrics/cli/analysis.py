"""``ir-eval --overlap K``, ``--coverage K``, ``--versus MEASURE``, ``--traits MEASURE``, ``--agreement``: why
runs differ (:mod:`metrics.analysis`), as text (the default), ``--format csv`` or ``--format json``.

* ``--overlap K [--rbo-p P] QRELS RUN RUN...``: Jaccard of the top-K sets and RBO_ext at depth K of every
  pair of runs, per query of the qrels both answer and the mean over them (query ``all``).  CSV: one
  row per pair and query, ``run_a,run_b,query,jaccard,rbo``, each pair's ``all`` row after its queries.
* ``--coverage K[,K...] [-m MEASURE]... [--gap G] QRELS RUN...``: Judged@k of every run (mean, and per
  query with the unjudged documents of the top K, the first cutoff), the runs well below the others
  flagged (a warning on standard error too), and with ``-m`` each measure as scored and on the
  condensed list (trec_eval's ``-J``).
* ``--versus MEASURE QRELS RUN_A RUN_B``: both runs' values per query, the difference and win, loss or
  tie for RUN_A.
* ``--traits MEASURE [--queries FILE] [--top N] QRELS RUN...``: per query its judged and relevant
  documents, its length in terms (with the query texts), the mean and spread of MEASURE over the runs;
  Spearman's rho of each trait against the mean; the hardest, easiest and most disputed queries.
* ``--agreement [-m MEASURE]... QRELS RUN...``: Kendall's tau between the orderings of the runs by every
  two measures, and the pairs of runs whose order flips.

This module is imported by ``ir-eval`` for :data:`OPTIONS` alone: it imports nothing heavy at the top.
"""

from __future__ import annotations

import sys

from metrics.cli.common import (
    Parser,
    UsageError,
    add_level_option,
    checked_measures,
    read_path,
    settings_of_args,
    unreadable,
)
from metrics.errors import EXIT_INPUT, EXIT_USAGE, InputError

__all__ = ["OPTIONS", "main", "parser"]

#: the options that choose this command (ir-eval hands them here)
OPTIONS = ("--overlap", "--coverage", "--versus", "--traits", "--agreement")
#: the measures --agreement compares when -m is not given
AGREEMENT_MEASURES = ("map", "ndcg_cut.10", "P.10", "recip_rank", "Rprec", "bpref")


def parser() -> Parser:
    p = Parser(
        prog="ir-eval",
        description="Why runs differ: rank overlap, judgment coverage, one run against another per query, "
        "query traits and difficulty, agreement of the measures.",
    )
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--overlap", type=int, metavar="K", help="Jaccard and RBO_ext of every pair of runs at depth K")
    which.add_argument(
        "--coverage", metavar="K[,K...]", help="Judged@k of every run at these cutoffs (the first compared)"
    )
    which.add_argument("--versus", metavar="MEASURE", help="RUN_A against RUN_B per query on MEASURE")
    which.add_argument("--traits", metavar="MEASURE", help="query traits and difficulty on MEASURE over the runs")
    which.add_argument("--agreement", action="store_true", help="Kendall's tau between the measures' run orders")
    p.add_argument("qrels", metavar="QRELS", help="relevance judgments: qid iter docid rel")
    p.add_argument("runs", metavar="RUN", nargs="+", help="run files: qid Q0 docid rank score tag")
    p.add_argument(
        "--rbo-p", dest="rbo_p", type=float, default=None, metavar="P", help="RBO's persistence (default 0.9)"
    )
    p.add_argument(
        "--gap", type=float, default=None, metavar="G", help="--coverage: flag a run this far below the others' median"
    )
    p.add_argument("--queries", metavar="FILE", help="--traits: query texts (qid<TAB>text or TREC topics)")
    p.add_argument("--top", type=int, default=5, metavar="N", help="--traits: queries in each list (default 5)")
    p.add_argument(
        "-m",
        dest="measures",
        action="append",
        metavar="MEASURE",
        help="--coverage: measures also scored on the condensed list (-J); --agreement: the measures compared",
    )
    p.add_argument("-q", dest="query", action="store_true", help="text: also the rows of each query")
    p.add_argument("-c", dest="complete", action="store_true", help="queries missing from a run score 0")
    add_level_option(p)
    p.add_argument("--format", choices=("text", "csv", "json"), default="text", help="output format (default text)")
    p.add_argument("--debug", action="store_true", help="show the traceback of an unexpected error")
    return p


def _check(args) -> None:
    if args.measures and args.coverage is None and not args.agreement:
        raise UsageError("-m MEASURE goes with --coverage or --agreement (--versus and --traits name theirs)")
    if (args.queries is not None or args.top != 5) and args.traits is None:
        raise UsageError("--queries and --top go with --traits")
    if args.overlap is not None and args.overlap < 1:
        raise UsageError(f"--overlap K: K must be 1 or more, not {args.overlap}")
    if args.rbo_p is not None and (args.overlap is None or not 0.0 < args.rbo_p < 1.0):
        raise UsageError("--rbo-p P goes with --overlap, and P must lie strictly between 0 and 1")
    if args.gap is not None and (args.coverage is None or not args.gap >= 0):
        raise UsageError("--gap G goes with --coverage, and G must be 0 or more")
    if args.coverage is not None:
        try:
            args.cutoffs = [int(k) for k in args.coverage.split(",")]
        except ValueError:
            raise UsageError(f"--coverage K[,K...]: cutoffs are whole numbers, not {args.coverage!r}") from None
        if min(args.cutoffs) < 1:
            raise UsageError(f"--coverage K[,K...]: cutoffs must be 1 or more, not {args.coverage!r}")
    if args.versus is not None and len(args.runs) != 2:
        raise UsageError("--versus MEASURE QRELS RUN_A RUN_B: two runs")
    if (args.overlap is not None or args.agreement) and len(args.runs) < 2:
        raise UsageError(f"{'--agreement' if args.agreement else '--overlap'} needs at least two runs")
    if args.top < 1:
        raise UsageError(f"--top must be 1 or more, not {args.top}")
    if args.runs.count("-") + (args.qrels == "-") > 1:
        raise UsageError("standard input ('-') can be read only once")


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    try:
        _check(args)
        if args.measures:
            args.measures = checked_measures(args.measures)
    except (UsageError, ValueError, KeyError) as exc:
        print(f"ir-eval: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        qrels, runs = _read(args)
        from metrics.cli import analysis_output as output

        if args.overlap is not None:
            return output.overlap(qrels, runs, args, sys.stdout)
        if args.coverage is not None:
            return output.coverage(qrels, runs, args, sys.stdout)
        evaluation = _evaluate(qrels, runs, args)
        if evaluation is None:
            return EXIT_INPUT
        if args.versus is not None:
            return output.versus(evaluation, args, sys.stdout)
        if args.traits is not None:
            return output.traits(evaluation, qrels, args, sys.stdout)
        return output.agreement(evaluation, args, sys.stdout)
    except (InputError, FileNotFoundError) as exc:
        return unreadable(exc)
    except (UsageError, ValueError) as exc:
        print(f"ir-eval: {exc}", file=sys.stderr)
        return EXIT_USAGE


def _read(args):
    """(the qrels encoded, the runs as a dict label -> columns, labelled as ir-eval labels them)."""
    from metrics.analysis.ranked import loaded_runs
    from metrics.io.columns import read_columns
    from metrics.ranking.qrels_index import encode_qrels

    qrels = encode_qrels(read_path(args.qrels, lambda path: read_columns(path, "qrels")), consume=True)
    runs = [read_path(path, lambda p: read_columns(p, "run")) for path in args.runs]
    return qrels, loaded_runs(runs)


def _evaluate(qrels, runs, args):
    """The evaluation --versus, --traits and --agreement read (None, after saying so: nothing scored)."""
    from metrics.cli.common import told_nothing_scored
    from metrics.engine.evaluate import evaluate

    if args.versus is not None:
        measures = [args.versus]
    elif args.traits is not None:
        measures = [args.traits]
    else:
        measures = list(args.measures or AGREEMENT_MEASURES)
    from metrics.errors import NoSharedQueries

    try:
        ev = evaluate(qrels, runs, measures, settings=settings_of_args(args))
    except NoSharedQueries as exc:  # said below, as ir-eval says it
        ev = exc.evaluation
    return None if told_nothing_scored(ev) else ev
