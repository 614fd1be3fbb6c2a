"""``ir-eval --qrels-vs``, ``--pool-bias``, ``--reproduce``: is the evaluation itself sound
(:mod:`metrics.judgments`), as text (the default), ``--format csv`` or ``--format json``.

* ``--qrels-vs OTHER_QRELS [--top N] QRELS [RUN...] [-m MEASURE]``: the agreement of QRELS (a) and
  OTHER_QRELS (b) on the pairs both judged; with runs, each run's score and rank under each, Kendall's
  tau and tau_AP between the orderings and the pairs that flip (``-m``: the measure, default map).
* ``--pool-bias [--depth K] [-m MEASURE] [--judged-at K] [--group-sep SEP] QRELS RUN...``:
  leave-one-run-out; ``--group-sep``: runs whose labels agree up to the first SEP are left out together.
* ``--reproduce ORIG REPRO [--baseline-orig B --baseline-repro B2] [--qrels-repro Q2] [-m MEASURE]...
  [--depth K] [--rbo-p P] QRELS``: Breuer et al.'s measures of a reproduction (with ``--qrels-repro``:
  of a replication on another collection).

Text shows a value that cannot be computed as ``n/a (why)``; CSV prints each table after a ``# name``
line, a blank line between tables, every number in full and NaN as an empty field; JSON one document,
NaN as null, the reasons under ``not_computable``.  Exit status 1 for usage errors, 2 for bad input.
This module is loaded only when one of its options is given.
"""

from __future__ import annotations

import json
import math
import sys

from metrics.cli.common import Parser, UsageError, add_level_option, checked_measures, settings_of_args, unreadable
from metrics.errors import EXIT_USAGE, InputError

__all__ = ["OPTIONS", "main", "parser"]

#: the options that choose this command (ir-eval hands them here)
OPTIONS = ("--qrels-vs", "--pool-bias", "--reproduce")


def parser() -> Parser:
    p = Parser(
        prog="ir-eval",
        description="Is the evaluation sound: two qrels compared, the pool's bias, a reproduction measured.",
    )
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--qrels-vs", dest="qrels_vs", metavar="OTHER_QRELS", help="compare QRELS with these qrels")
    which.add_argument("--pool-bias", dest="pool_bias", action="store_true", help="leave-one-run-out over the RUNs")
    which.add_argument(
        "--reproduce", nargs=2, metavar=("ORIG", "REPRO"), help="measure REPRO as a reproduction of ORIG"
    )
    p.add_argument("qrels", metavar="QRELS", help="relevance judgments: qid iter docid rel")
    p.add_argument("runs", metavar="RUN", nargs="*", help="run files (--qrels-vs: optional; --pool-bias: one or more)")
    p.add_argument("-m", dest="measures", action="append", metavar="MEASURE", help="measure(s) (default map)")
    p.add_argument("--top", type=int, default=5, metavar="N", help="--qrels-vs: the most disputed queries shown")
    p.add_argument("--depth", type=int, default=None, metavar="K", help="--pool-bias: 100; --reproduce: 1000")
    p.add_argument("--judged-at", dest="judged_at", type=int, default=10, metavar="K", help="--pool-bias: Judged@K")
    p.add_argument("--group-sep", dest="group_sep", metavar="SEP", help="--pool-bias: a run's group: its label to SEP")
    p.add_argument("--baseline-orig", dest="baseline_orig", metavar="B", help="--reproduce: the original baseline")
    p.add_argument("--baseline-repro", dest="baseline_repro", metavar="B2", help="--reproduce: its reproduction")
    p.add_argument("--qrels-repro", dest="qrels_repro", metavar="Q2", help="--reproduce: the reproduced runs' qrels")
    p.add_argument("--rbo-p", dest="rbo_p", type=float, default=0.95, metavar="P", help="--reproduce: RBO's p")
    p.add_argument("--alpha", type=float, default=0.05, help="--qrels-vs: significance level (default 0.05)")
    add_level_option(p)
    p.add_argument("--format", choices=("text", "csv", "json"), default="text", help="output format (default text)")
    p.add_argument("--debug", action="store_true", help="show the traceback of an unexpected error")
    return p


def _check(args) -> None:
    if args.pool_bias and not args.runs:
        raise UsageError("--pool-bias QRELS RUN...: at least one run")
    if args.reproduce and args.runs:
        raise UsageError("--reproduce ORIG REPRO QRELS: the runs are ORIG and REPRO (and the baselines), no more")
    if (args.baseline_orig is None) != (args.baseline_repro is None):
        raise UsageError("--baseline-orig and --baseline-repro go together")
    if not args.reproduce and (args.baseline_orig or args.qrels_repro):
        raise UsageError("--baseline-orig, --baseline-repro and --qrels-repro go with --reproduce")
    if args.depth is not None and args.depth < 1:
        raise UsageError(f"--depth must be 1 or more, not {args.depth}")
    if args.top < 1 or args.judged_at < 1:
        raise UsageError("--top and --judged-at must be 1 or more")
    if not 0.0 < args.rbo_p < 1.0 or not 0.0 < args.alpha < 1.0:
        raise UsageError("--rbo-p and --alpha must lie strictly between 0 and 1")
    if not args.reproduce and args.measures and len(args.measures) > 1:
        raise UsageError("-m: one measure with --qrels-vs and --pool-bias")


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    try:
        _check(args)
        if args.measures:
            args.measures = checked_measures(args.measures)
            if not args.reproduce and len(args.measures) > 1:
                raise UsageError("-m: one measure with --qrels-vs and --pool-bias")
    except (UsageError, ValueError, KeyError) as exc:
        print(f"ir-eval: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        if args.qrels_vs is not None:
            tables, values, why, notes = _qrels_vs(args)
        elif args.pool_bias:
            tables, values, why, notes = _pool_bias(args)
        else:
            tables, values, why, notes = _reproduce(args)
    except (InputError, FileNotFoundError) as exc:
        return unreadable(exc)
    _write(args.format, tables, values, why, notes, sys.stdout)
    return 0


def _qrels_vs(args):
    from metrics.judgments import compare, system_agreement

    found = compare(args.qrels, args.qrels_vs, top=args.top)
    values = {
        "qrels_a": args.qrels,
        "qrels_b": args.qrels_vs,
        **{k: getattr(found, k) for k in found.summary().index},
    }
    why = dict(found.not_computable)
    confusion = found.confusion.reset_index().rename(columns={"grade_a": "a \\ b"})
    confusion.columns = [str(c) for c in confusion.columns]
    tables = {"confusion": confusion, "most_disputed": found.most_disputed, "per_query": found.per_query}
    notes: list[str] = []
    if args.runs:
        measure = (args.measures or ["map"])[0]
        systems = system_agreement(
            args.runs, args.qrels, args.qrels_vs, measure, alpha=args.alpha, settings=settings_of_args(args)
        )
        values.update(measure=systems.measure, tau=systems.tau, tau_p=systems.tau_p, tau_ap=systems.tau_ap)
        values["tau_ap_ba"] = systems.tau_ap_ba
        why.update(systems.not_computable)
        notes += systems.notes
        tables.update(runs=systems.scores, flips=systems.flips)
    return tables, values, why, notes


def _pool_bias(args):
    from metrics.judgments import leave_one_out

    sep = args.group_sep
    found = leave_one_out(
        args.runs,
        args.qrels,
        (args.measures or ["map"])[0],
        100 if args.depth is None else args.depth,
        None if sep is None else (lambda run: run.split(sep, 1)[0]),
        judged_at=args.judged_at,
        settings=settings_of_args(args),
    )
    values = {"measure": found.measure, "depth": found.depth, "judged_at": found.judged_at}
    return {"runs": found.runs}, values, found.not_computable, found.notes


def _reproduce(args):
    from metrics.judgments import reproduction
    from metrics.judgments.reproduction import DEFAULT_MEASURES

    found = reproduction(
        args.reproduce[0],
        args.reproduce[1],
        args.qrels,
        args.baseline_orig,
        args.baseline_repro,
        args.qrels_repro,
        args.measures or DEFAULT_MEASURES,
        depth=1000 if args.depth is None else args.depth,
        rbo_p=args.rbo_p,
        settings=settings_of_args(args),
    )
    values = {"kind": found.kind, "depth": found.depth, "rbo_p": found.rbo_p}
    tables = {"rankings": found.rankings, "scores": found.scores, "effects": found.effects}
    return tables, values, found.not_computable, found.notes


# ------------------------------------------------------------------------------------------ output


def _number(value):
    import pandas as pd

    if value is pd.NA:
        return None
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _is_missing(value) -> bool:
    return value is None or (isinstance(value, float) and not math.isfinite(value))


def _cell(value) -> str:
    value = _number(value)
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def _write(fmt: str, tables: dict, values: dict, why: dict, notes: list, out) -> None:
    if fmt == "json":
        doc = {
            **{k: _number(v) for k, v in values.items()},
            "not_computable": why,
            "notes": notes,
            **{
                name: [{k: _number(v) for k, v in row.items()} for row in t.to_dict(orient="records")]
                for name, t in tables.items()
            },
        }
        json.dump(doc, out, indent=1, ensure_ascii=False, allow_nan=False)
        out.write("\n")
        return
    if fmt == "csv":
        out.write("# summary\nwhat,value\n")
        for k, v in values.items():
            v = _number(v)
            out.write(f"{k},{'' if v is None else (repr(v) if isinstance(v, float) else v)}\n")
        for name, table in tables.items():
            out.write(f"\n# {name}\n")
            table.to_csv(out, index=False, float_format=lambda v: repr(float(v)), lineterminator="\n")
        return
    width = max(len(k) for k in values)
    for k, v in values.items():
        v = _number(v)
        text = f"n/a ({why.get(k, 'not computable')})" if _is_missing(v) else _cell(v)
        out.write(f"{k.ljust(width)}  {text}\n")
    for note in notes:
        out.write(f"note: {note}\n")
    for name, table in tables.items():
        out.write(f"\n# {name}\n")
        if not len(table):
            out.write("(none)\n")
            continue
        cells = [[str(c) for c in table.columns]] + [[_cell(v) for v in row] for row in table.itertuples(index=False)]
        widths = [max(len(row[j]) for row in cells) for j in range(len(table.columns))]
        for row in cells:
            out.write("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() + "\n")
        for column in table.columns:
            if table[column].isna().any():
                reason = why.get(str(column), "not computable for that row (too few values, or all alike)")
                out.write(f"n/a in {column}: {reason}\n")
