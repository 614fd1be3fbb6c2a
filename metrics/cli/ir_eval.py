"""``ir-eval``: trec_eval 10.0's command line, on the ir-workbench core.

``ir-eval [-q] [-c] [-n] [-J] [-l N] [-M N] [-N N] [-m MEASURE]... QRELS RUN [RUN...]``

For one run the output is byte for byte trec_eval 10.0's
(``%-22s\\t%s\\t%6.4f`` rows; with ``-q`` the per-query rows first, query by
query in trec_eval's order).  Several runs give one such block per run, in
the order given.  ``--format csv`` and ``--format json`` print the same
numbers (full precision) for scripts.  ``--compare BASELINE`` prints a paired
comparison of every run against the baseline instead (see
:mod:`metrics.compare`).

Differences from trec_eval 10.0, on purpose:

* Without ``-c``, a qrels query that a run does not retrieve for is skipped
  with a warning on standard error (trec_eval 9.x's behaviour; 10.0 aborts).
* Several run files may be given at once.
* The diversity measures (``-m alpha_nDCG@20 -m ERR_IA@20 -m NRBP``, ndeval's
  values) are scored against intent qrels (``qid intent docid grade``) and
  printed in this layout under the names given.
* Bad input is reported as ``ir-eval: FILE, line N: what was found; what
  was expected`` on standard error, with exit status 2 (usage errors: 1,
  before any file is read; an unexpected error: 3, one line, the traceback
  only with ``--debug``; Ctrl-C: 130).

Preference formats (``-R prefs``), z-scores (``-Z``) and ``-D`` debugging are
not supported.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings

from metrics.cli.analysis import OPTIONS as ANALYSES
from metrics.cli.common import (
    ListMeasuresAction,
    Parser,
    UsageError,
    VersionAction,
    add_level_option,
    guarded,
    read_path,
    settings_of_args,
    split_measures,
    told_nothing_scored,
    unreadable,
)
from metrics.engine.evaluate import evaluate
from metrics.engine.settings import Settings
from metrics.errors import (
    EXIT_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OUTPUT,
    EXIT_USAGE,
    InputError,
    IntentQrelsError,
    NoSharedQueries,
)
from metrics.io.columns import read_columns
from metrics.measures import parse_measures
from metrics.measures.registry import is_intent_name
from metrics.ranking.qrels_index import encode_qrels
from metrics.stat_methods import CORRECTIONS

EXIT_CODES = (
    "Exit status: 0 done, 1 usage error (options, measure names, --dask without dask or its scheduler), "
    "2 bad input (a file that cannot be read), 3 unexpected internal error or a worker process that died, "
    "4 the output could not be written, "
    "130 interrupted (Ctrl-C)."
)


#: the options that open another command instead of evaluating, and the module of each
DOORS = {
    "--inspect": "metrics.cli.inspect",
    "--explain": "metrics.cli.explain",
    "--example": "metrics.cli.example",  # a textbook's worked example (metrics.examples)
    "--fuse": "metrics.cli.fuse",  # runs fused into one (metrics.fusion)
    "--diff": "metrics.cli.diff",  # two runs compared on a page to share, with the documents (metrics.documents)
    **{option: "metrics.cli.analysis" for option in ANALYSES},  # why runs differ (metrics.analysis)
    # is the evaluation sound: two qrels, the pool's bias, a reproduction (metrics.judgments)
    **dict.fromkeys(("--qrels-vs", "--pool-bias", "--reproduce"), "metrics.cli.judgments"),
}


def _parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="ir-eval",
        description="Evaluate TREC runs against qrels; output identical to trec_eval 10.0.",
        epilog="Measures: trec_eval names with parameters (P.5,10  ndcg_cut.10  "
        "iprec_at_recall..10,.20), the sets 'official' and 'all_trec', or "
        "ir_measures-style names (AP, nDCG@10, P(rel=2)@5). "
        "ir-eval --inspect FILE... describes files without evaluating them; ir-eval --explain MEASURE "
        "--query QID QRELS RUN shows how one value was computed; ir-eval --example NAME shows a textbook's "
        "worked example ('list' names them); ir-eval --overlap K, --coverage K, --versus MEASURE, "
        "--traits MEASURE and --agreement show why runs differ (ir-eval --overlap 10 --help); "
        "ir-eval --fuse METHOD RUN RUN... -o FILE fuses runs (ir-eval --fuse rrf --help lists the methods); "
        "ir-eval --diff RUN_A RUN_B --docs COLLECTION -o page.html compares two runs with their documents; "
        "ir-eval --qrels-vs OTHER QRELS [RUN...], --pool-bias QRELS RUN... and --reproduce ORIG REPRO QRELS "
        "ask whether the evaluation is sound (each with --help). " + EXIT_CODES,
    )
    p.add_argument("--version", action=VersionAction, nargs=0, help="show the version and exit")
    p.add_argument("--debug", action="store_true", help="show the traceback of an unexpected error")
    p.add_argument(
        "--list-measures",
        action=ListMeasuresAction,
        nargs=0,
        help="list every measure name accepted by -m, with what it means, and exit",
    )
    p.add_argument("qrels", metavar="QRELS", help="relevance judgments: qid iter docid rel")
    p.add_argument(
        "runs", metavar="RUN", nargs="+", help="run file(s): qid Q0 docid rank score tag ('-' reads standard input)"
    )
    p.add_argument("-q", dest="query", action="store_true", help="also print the evaluation of each query")
    p.add_argument(
        "-m",
        dest="measures",
        action="append",
        metavar="MEASURE",
        help="measure or set of measures to compute (repeatable); default 'official'",
    )
    p.add_argument(
        "-c",
        dest="complete",
        action="store_true",
        help="average over all qrels queries; queries missing from a run score 0",
    )
    p.add_argument("-n", dest="summary", action="store_false", help="no summary ('all') rows")
    add_level_option(p)
    p.add_argument(
        "-M",
        dest="max_docs",
        type=int,
        default=None,
        metavar="N",
        help="evaluate only the first N documents of each query",
    )
    p.add_argument(
        "-N",
        dest="num_docs",
        type=int,
        default=0,
        metavar="N",
        help="number of documents in the collection (for utility; default 0)",
    )
    p.add_argument(
        "-J", dest="judged_only", action="store_true", help="drop unjudged documents before evaluating (use with care)"
    )
    p.add_argument(
        "--ranked",
        action="store_true",
        help="the RUN files are ranked judgments ('qid Q0 docid grade', best first): each is "
        "scored in its line order against QRELS (a 4-column file is otherwise never a run)",
    )
    p.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="score several RUN files in N processes, and a RUN of 64 MiB or more in N parts (default: one "
        "per core; the output is the same)",
    )
    p.add_argument(
        "--dask",
        metavar="ADDRESS",
        default=None,
        help="score the RUN files (paths or fsspec URLs the workers can read) on the Dask cluster whose "
        "scheduler is at ADDRESS (default: $DASK_SCHEDULER_ADDRESS when set and --jobs is not given; "
        "the output is the same; needs pip install 'ir-workbench[dask]')",
    )
    p.add_argument(
        "--format", choices=("trec", "csv", "json"), default="trec", help="output format (default: trec_eval's)"
    )
    p.set_defaults(cluster=None)  # the distributed.Client of --dask (set by _run_on_cluster)
    cmp = p.add_argument_group("comparison against a baseline")
    cmp.add_argument(
        "--compare",
        metavar="BASELINE",
        help="compare every run with this one (a RUN file or run label, or another file; or a number: the RUN "
        "at that position, 1 the first)",
    )
    cmp.add_argument(
        "--all-pairs", action="store_true", help="compare every pair of runs instead (tests: all five; letters per run)"
    )
    cmp.add_argument(
        "--test",
        choices=("t", "wilcoxon", "permutation", "bootstrap", "tukey"),
        default="t",
        help="significance test (default t); bootstrap and tukey (randomised Tukey HSD) with --all-pairs",
    )
    cmp.add_argument(
        "--correction",
        choices=tuple(CORRECTIONS),
        metavar="NAME",
        default="holm",
        help="multiple-testing correction over all runs and measures (see --correction-family), one of "
        "statsmodels' multipletests: "
        + ", ".join(CORRECTIONS)
        + " (default holm; bh and by: Benjamini-Hochberg and -Yekutieli, tsbh and tsbky: two-stage FDR, gbs: "
        "Gavrilov-Benjamini-Sarkar, lfdr: the local FDR)",
    )
    cmp.add_argument(
        "--correction-family",
        choices=("all", "measure"),
        default="all",
        help="the tests one correction is over with --compare: all runs and measures (default), or measure: "
        "the runs against the baseline one measure at a time, as PyTerrier's Experiment and "
        "metrics.compare.compare correct; the output names it",
    )
    cmp.add_argument("--alpha", type=float, default=0.05, help="significance level, between 0 and 1 (default 0.05)")
    cmp.add_argument(
        "--permutations",
        type=int,
        default=10000,
        help="permutations of the randomization test and Tukey HSD, resamples of the bootstrap test "
        "(default 10000: a p-value near 0.05 within about 0.01)",
    )
    cmp.add_argument(
        "--seed", type=int, default=0, help="seed for permutations and bootstrap (the same seed, the same p-values)"
    )
    return p


def _read_runs(paths: list[str], ranked: bool = False):
    """Yield the runs one at a time, read when asked for: the evaluation
    ranks each one and lets it go before the next is read."""

    def read(path):
        if ranked:
            from metrics.io.readers import read_ranked_judgments

            return read_ranked_judgments(path)[0]
        return read_columns(path, "run")

    def read_stdin():
        run = read_path("-", read)
        if hasattr(run, "attrs"):
            run.attrs["path"] = "-"
        else:
            run.path = "-"
        return run

    for path in paths:
        # yielded without a name in this frame: the run goes as soon as its consumer lets it go,
        # not when the next one is asked for
        yield read_stdin() if path == "-" else read(path)


PARALLEL_BYTES = 32 << 20  # below this much run text, starting a pool of workers costs more than it saves


def _jobs(args, run_paths) -> tuple[int, bool] | None:
    """How many processes score several run files one after the other, each written out as soon as
    it is done (memory holds one run's values, not every run's), and whether they are copies of this
    process forked once the qrels are encoded (:mod:`metrics.scale.forked`) rather than a pool of workers:
    ``--jobs`` (a pool), else every core, as a pool when the runs are large enough to gain from one, else
    as forked copies; on one core, 1.
    None: the runs are scored together in memory, as comparisons, CSV and JSON need them (and standard
    input, a single run that is not large enough to be scored in parts by several processes: see
    :mod:`metrics.scale.parallel`)."""
    from metrics.scale.split import split_threshold

    if args.format != "trec" or args.compare or args.all_pairs or "-" in run_paths:
        return None
    if len(run_paths) < 2:
        if args.ranked or args.jobs == 1 or _smaller(run_paths[0], split_threshold()):
            return None  # one task, here: the worker processes' modules are not imported
        from metrics.scale.parallel import default_jobs
        from metrics.scale.parts import partitions

        jobs = default_jobs() if args.jobs is None else args.jobs
        return (jobs, False) if partitions(run_paths[0], jobs, split_threshold(), args.ranked) > 1 else None
    if args.jobs is not None:
        return args.jobs, False
    from metrics.scale.parallel import default_jobs

    if default_jobs() < 2:
        return 1, False
    try:
        large = sum(os.path.getsize(p) for p in run_paths) >= PARALLEL_BYTES
    except OSError:
        large = False  # the reader reports the missing file
    return default_jobs(), not large


def _smaller(path: str, size: int) -> bool:
    """Whether the file at ``path`` is a file of fewer than ``size`` bytes (False when it cannot be told: the
    one scoring it in parts says what is wrong)."""
    try:
        return os.path.getsize(path) < size
    except OSError:
        return False


def _score_run_by_run(qrels, run_paths, measures, settings: Settings, args, out, jobs: int, forked: bool) -> int:
    from contextlib import closing

    from metrics.scale.parallel import score_runs, state

    encoded = encode_qrels(qrels)  # once, shared with every worker (encoded already by _run)
    if args.cluster is not None:  # --dask: the same, on the workers of a Dask cluster
        from metrics.scale.distributed import score_runs as score_on_cluster

        shared = state(encoded, measures, settings, args.ranked, args.query, args.summary)
        results = score_on_cluster(args.cluster, shared, run_paths)
    else:
        flags = dict(ranked=args.ranked, queries=args.query, summary=args.summary, forked=forked)
        results = score_runs(encoded, run_paths, measures, settings, jobs=jobs, **flags)
    evaluated = False
    with closing(results):  # (the output closed, Ctrl-C: the processes scoring ahead are stopped now)
        for scored in results:
            for message in scored.warnings:
                print(f"ir-eval: warning: {message}", file=sys.stderr)
            evaluated |= scored.evaluated
            out.write(scored.text)
    out.flush()
    if not evaluated:
        print("ir-eval: no queries with both results and relevance info", file=sys.stderr)
        return EXIT_INPUT
    return 0


def _check_options(args) -> None:
    """Options that argparse cannot judge alone; raises UsageError before any file is read."""
    if not 0.0 < args.alpha < 1.0:
        raise UsageError(f"--alpha must lie strictly between 0 and 1, not {args.alpha:g}")
    if not 1 <= args.permutations <= 10_000_000:
        raise UsageError(f"--permutations must be between 1 and 10,000,000, not {args.permutations}")
    if args.max_docs is not None and args.max_docs < 0:
        raise UsageError(f"-M must be 0 or more, not {args.max_docs}")
    if args.num_docs < 0:
        raise UsageError(f"-N must be 0 or more, not {args.num_docs}")
    if args.runs.count("-") + (args.qrels == "-") > 1:
        raise UsageError("standard input ('-') can be read only once")
    if args.all_pairs and args.compare:
        raise UsageError("--all-pairs and --compare are two kinds of comparison; choose one")
    if args.test in ("bootstrap", "tukey") and not args.all_pairs:
        raise UsageError(f"--test {args.test} compares all pairs: add --all-pairs")
    if args.all_pairs and len(args.runs) < 2:
        raise UsageError("--all-pairs needs at least two runs")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"--jobs must be 1 or more, not {args.jobs}")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if sys.stdout is None:  # started with its standard output closed (``ir-eval ... >&-``): Python sets None
        print("ir-eval: cannot write the output: standard output is closed", file=sys.stderr)
        return EXIT_OUTPUT
    if hasattr(sys.stdout, "reconfigure"):
        # ids that are not UTF-8 (Latin-1 in old collections) are read as lone surrogates: written back as the
        # bytes they were, as trec_eval writes them, in a UTF-8 locale too (whose stdout is strict)
        sys.stdout.reconfigure(errors="surrogateescape")
    if argv[:1] == ["--irm"]:  # ir_measures' command line (metrics.cli.irm)
        from metrics.cli.irm import main as irm_main

        return irm_main(argv[1:])
    door = next((d for d in DOORS if d in argv), None)
    if door:  # describe files, explain one value, show a worked example, why runs differ or fuse runs
        from importlib import import_module

        other = import_module(DOORS[door])
        return guarded(lambda: other.main(argv), "--debug" in argv)
    args = _parser().parse_args(argv)
    address = _dask_address(args)
    return guarded(lambda: _run_on_cluster(args, address) if address else _run(args), args.debug)


def run() -> None:
    """The ``ir-eval`` command: :func:`main`, then leave without Python's teardown of every module
    (numpy's alone takes about 10 ms, as long as scoring a 43k-line run).  Nothing needs it: main
    writes and closes its files itself, and only the standard streams are left to flush.  Where
    worker processes or a Dask cluster were used, their own exit handlers run as usual.

    Ctrl-C at any moment ends it with status 130 and one line: while the modules load, the entry point's
    handler (``ir_eval_launcher``); from here on, Python's ``KeyboardInterrupt``, which :func:`guarded`
    and this function turn into that line."""
    import signal

    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        code = main()
        if "multiprocessing" in sys.modules or "distributed" in sys.modules:
            sys.exit(code)
        try:
            if sys.stdout is not None:  # None: started with it closed (main said so)
                sys.stdout.flush()
        except BrokenPipeError:
            pass  # the reader is gone (as guarded treats it)
        except OSError as exc:
            print(f"ir-eval: cannot write the output: {exc.strerror or exc}", file=sys.stderr)
            code = EXIT_OUTPUT
    except KeyboardInterrupt:
        print("ir-eval: interrupted", file=sys.stderr)
        code = EXIT_INTERRUPTED
    try:
        if sys.stderr is not None:
            sys.stderr.flush()
    except OSError:
        pass
    os._exit(code)


def _dask_address(args) -> str | None:
    """The Dask scheduler to score on: ``--dask``, else ``$DASK_SCHEDULER_ADDRESS`` where --dask would
    serve (trec_eval's output of run files, --jobs not given); None: score here."""
    if args.dask is not None:
        return args.dask
    address = os.environ.get("DASK_SCHEDULER_ADDRESS", "").strip()
    if not address or args.jobs is not None or args.format != "trec" or args.compare or args.all_pairs:
        return None
    return None if "-" in args.runs else address


def _run_on_cluster(args, address: str) -> int:
    """``_run`` with the runs scored on a Dask cluster: connected once (dask missing or the scheduler
    unreachable: a usage error, before any file is read), closed at the end."""
    from metrics.scale.distributed import DaskUnavailable, connect, quiet_logs

    try:
        _check_options(args)
        if args.jobs is not None and args.dask is not None:
            raise UsageError("--dask and --jobs choose where to score the runs; give one")
        if args.format != "trec" or args.compare or args.all_pairs:
            raise UsageError("--dask prints trec_eval's output (not --format csv/json, --compare, --all-pairs)")
        if "-" in args.runs:
            raise UsageError("--dask: the workers read the RUN files; standard input ('-') cannot be sent")
        if not args.debug:
            quiet_logs()
        args.cluster = connect(address)
    except UsageError as exc:
        print(f"ir-eval: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except DaskUnavailable as exc:
        why = "" if args.dask is not None else f" ($DASK_SCHEDULER_ADDRESS is {address})"
        print(f"ir-eval: {exc}{why}", file=sys.stderr)
        return EXIT_USAGE
    try:
        return _run(args)
    finally:
        args.cluster.close()


def _run(args) -> int:
    out = sys.stdout
    try:
        _check_options(args)
        names = split_measures(args.measures)
        if any(map(is_intent_name, names)):  # scored against intent qrels
            from metrics.cli.diversity import run_diversity

            return run_diversity(args, names, out)
        # trec_eval's -m rules: a family's first parameter list wins, so
        # "-m all_trec -m relstring.20" gives relstring_20 only
        with warnings.catch_warnings(record=True) as told:  # a name other tools read otherwise (Accuracy@10)
            warnings.simplefilter("always")
            measures = parse_measures(split_measures(args.measures) or None, trec_rules=True)
        for w in told:
            print(f"ir-eval: warning: {w.message}", file=sys.stderr)
    except UsageError as exc:
        print(f"ir-eval: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (ValueError, KeyError, OverflowError) as exc:
        # unknown measure names and malformed measure parameters
        print(f"ir-eval: {exc}", file=sys.stderr)
        return EXIT_USAGE
    run_paths = list(args.runs)
    if args.compare and os.path.isfile(args.compare) and args.compare not in run_paths:
        run_paths.insert(0, args.compare)
    try:
        # encoded at once: the columns read go before the first run is read (the encoding is all
        # that scoring needs of them)
        read = read_path(args.qrels, lambda path: read_columns(path, "qrels"))
        for message in read.warnings:  # (a first line read one of two ways says which)
            print(f"ir-eval: warning: {message}", file=sys.stderr)
        qrels = encode_qrels(read, consume=True)
        del read
        settings = settings_of_args(args)
        plan = _jobs(args, run_paths)
        if args.cluster is not None or plan is not None:
            return _score_run_by_run(qrels, run_paths, measures, settings, args, out, *(plan or (1, False)))
        ev = evaluate(qrels, _read_runs(run_paths, args.ranked), measures, keep_names=False, settings=settings)
    except NoSharedQueries as exc:  # said below with the warnings, as trec_eval says it (exit 2)
        ev = exc.evaluation
    except InputError as exc:
        hint = (
            "; to score it in its line order, add --ranked"
            if "ranked-judgments file" in str(exc) and not args.ranked
            else f"; for the diversity measures: ir-eval -m alpha_nDCG@20 {args.qrels} RUN"
            if isinstance(exc, IntentQrelsError)
            else ""
        )
        return unreadable(exc, hint)
    except FileNotFoundError as exc:
        return unreadable(exc)
    if told_nothing_scored(ev):
        return EXIT_INPUT
    if args.format == "trec" and not (args.compare or args.all_pairs):
        _print_trec(ev, args, out)
        out.flush()
        return 0
    from metrics.cli import output  # the comparisons, CSV and JSON

    if args.compare:
        return output._compare(ev, args, run_paths, out)
    if args.all_pairs:
        return output._all_pairs(ev, args, out)
    {"csv": output._print_csv, "json": output._print_json}[args.format](ev, args, out)
    out.flush()
    return 0


def _print_trec(ev, args, out) -> None:
    """trec_eval's lines of every run, in the order given."""
    for run in ev.runs:  # written a block of queries at a time: memory for one block, not for every line
        for text in ev.trec_text(run, queries=args.query, summary=args.summary):
            out.write(text)


if __name__ == "__main__":
    sys.exit(main())
