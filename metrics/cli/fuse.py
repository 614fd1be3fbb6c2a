"""``ir-eval --fuse METHOD [--norm N] [--weights W...] [-k K] RUN RUN... -o FILE``: several runs fused into one
TREC run (:mod:`metrics.fusion`), written atomically (:mod:`metrics.io.fileio`), never over an input."""

from __future__ import annotations

import argparse
import sys

from metrics.cli.common import Parser, UsageError, guarded, read_path, unreadable
from metrics.errors import EXIT_USAGE, InputError


def _parser() -> argparse.ArgumentParser:
    from metrics.fusion import METHODS, NORMS

    p = Parser(
        prog="ir-eval",
        description="Fuse several runs into one TREC run (ranx's rules: the scores of each run normalised per "
        "query, then combined per document).",
        epilog="Methods: "
        + "; ".join(f"{m.code} ({m.description})" for m in METHODS)
        + ". Normalisations: "
        + "; ".join(f"{n.code} ({n.description})" for n in NORMS)
        + ".",
    )
    p.add_argument("--debug", action="store_true", help="show the traceback of an unexpected error")
    methods = ", ".join(m.code for m in METHODS)
    p.add_argument("--fuse", metavar="METHOD", required=True, help=f"fusion method: {methods}")
    p.add_argument("runs", metavar="RUN", nargs="+", help="run files to fuse (at least two; '-' reads standard input)")
    p.add_argument("-o", "--output", metavar="FILE", required=True, help="the fused run ('-': standard output)")
    p.add_argument("--norm", default="min-max", help="normalisation per run and query (default min-max)")
    p.add_argument("--weights", metavar="W,W,...", help="one weight per run, in their order, for wsum (0.7,0.3)")
    p.add_argument("-k", dest="k", type=float, default=60.0, help="RRF's constant (default 60)")
    p.add_argument("--tag", default=None, help="run tag of the fused run (default: the method)")
    return p


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    return guarded(lambda: _run(args), args.debug)


def _run(args) -> int:
    from metrics.fusion import canonical_method, canonical_norm

    try:
        method, norm = canonical_method(args.fuse), canonical_norm(args.norm)
        if args.weights is not None:
            try:
                args.weights = [float(w) for w in args.weights.split(",")]
            except ValueError:
                raise UsageError(f"--weights takes numbers separated by commas, not {args.weights!r}") from None
        if len(args.runs) < 2:
            raise UsageError("--fuse needs at least two runs")
        if args.runs.count("-") > 1:
            raise UsageError("standard input ('-') can be read only once")
        if (args.weights is not None) != (method == "wsum"):
            raise UsageError("--weights go with --fuse wsum, one per run")
        if args.weights is not None and len(args.weights) != len(args.runs):
            raise UsageError(f"--weights: {len(args.weights)} given for {len(args.runs)} runs")
        if args.tag is not None and (not args.tag or any(c.isspace() for c in args.tag)):
            raise UsageError(f"--tag must be one word, not {args.tag!r}")
        if args.output != "-":
            from metrics.io.fileio import check_not_input

            check_not_input(args.output, [r for r in args.runs if r != "-"])
    except (UsageError, ValueError) as exc:
        print(f"ir-eval: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except PermissionError as exc:
        print(f"ir-eval: {exc.filename}: {exc.strerror}", file=sys.stderr)
        return EXIT_USAGE
    from metrics.fusion import fuse
    from metrics.io.readers import read_run

    try:
        runs = [read_path(path, read_run) for path in args.runs]
    except InputError as exc:
        return unreadable(exc)
    except FileNotFoundError as exc:
        return unreadable(exc)
    fused = fuse(runs, method, norm=norm, weights=args.weights, k=args.k, name=args.tag)
    if args.output == "-":
        from metrics.io.writers import run_text

        sys.stdout.write(run_text(fused))
        sys.stdout.flush()
    else:
        from metrics.io.writers import write_run

        write_run(fused, args.output, overwrite=True)
    return 0
