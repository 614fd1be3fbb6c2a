"""What ``ir-eval`` prints once runs are scored together: trec_eval's lines, CSV, JSON, and the
comparisons (``--compare``, ``--all-pairs``)."""

from __future__ import annotations

import math
import sys

from .errors import EXIT_USAGE


def _json_default(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return str(value)


def _print_trec(ev, args, out) -> None:
    for run in ev.runs:  # written a block of queries at a time: memory for one block, not for every line
        for text in ev.trec_text(run, queries=args.query, summary=args.summary):
            out.write(text)


def _print_csv(ev, args, out) -> None:
    import pandas as pd

    frames = []
    if args.query:
        frames.append(ev.per_query[["run", "query_id", "measure", "value"]])
    if args.summary:
        agg = ev.aggregate.assign(query_id="all")[["run", "query_id", "measure", "value"]]
        frames.append(agg)
    if frames:
        table = pd.concat(frames, ignore_index=True)
        table.to_csv(out, index=False, float_format="%.17g", lineterminator="\n")


def _print_json(ev, args, out) -> None:
    doc: dict = {"settings": ev.settings, "runs": {}}
    for run in ev.runs:
        entry: dict = {}
        if args.summary:
            agg = ev.aggregate[ev.aggregate["run"] == run]
            entry["all"] = dict(zip(agg["measure"], agg["value"].tolist()))
            text = ev.text[(ev.text["run"] == run) & (ev.text["query_id"] == "all")]
            entry["all"].update(zip(text["measure"], text["value"]))
        if args.query:
            pq = ev.per_query[ev.per_query["run"] == run]
            queries: dict = {}
            for q, m, v in zip(pq["query_id"], pq["measure"], pq["value"].tolist()):
                queries.setdefault(q, {})[m] = v
            entry["queries"] = queries
        doc["runs"][run] = entry
    import json  # here: the usual trec output does without it

    json.dump(doc, out, indent=1, default=_json_default, allow_nan=False)
    out.write("\n")


def _compare(ev, args, run_paths, out) -> int:
    from .compare import compare, format_comparison

    baseline = args.compare
    by_path = dict(zip(run_paths, ev.runs))
    if baseline in by_path:
        baseline = by_path[baseline]
    if baseline not in ev.runs:
        print(
            f"ir-eval: --compare {args.compare!r} is neither a run label ({', '.join(ev.runs)}) "
            "nor one of the RUN files",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if len(ev.runs) < 2:
        print("ir-eval: --compare needs at least one run besides the baseline", file=sys.stderr)
        return EXIT_USAGE
    table = compare(
        ev.per_query,
        baseline,
        test=args.test,
        correction=args.correction,
        alpha=args.alpha,
        permutations=args.permutations,
        seed=args.seed,
    )
    if args.format == "csv":
        table.to_csv(out, index=False, float_format="%.17g", lineterminator="\n")
    elif args.format == "json":
        from .allpairs import _json_value

        # every number in full (pandas' to_json rounds, and a small p-value became 0); NaN, inf as null
        records = [{key: _json_value(value) for key, value in row.items()} for row in table.to_dict(orient="records")]
        import json  # here: the usual trec output does without it

        json.dump(records, out, indent=1, allow_nan=False)
        out.write("\n")
    else:
        out.write(format_comparison(table).rstrip("\n") + "\n")
    return 0


def _all_pairs(ev, args, out) -> int:
    import pandas as pd

    from .allpairs import compare_all_pairs, format_pairs, letter, pairs_to_json, significance_letters

    pairs = compare_all_pairs(
        ev.per_query,
        runs=list(ev.runs),
        test=args.test,
        correction=args.correction,
        alpha=args.alpha,
        permutations=args.permutations,
        seed=args.seed,
    )
    if args.format == "json":
        import json  # here: the usual trec output does without it

        json.dump(pairs_to_json(pairs), out, indent=1, allow_nan=False)
        out.write("\n")
    elif args.format == "csv":
        pairs.to_csv(out, index=False, float_format="%.17g", lineterminator="\n")
    else:
        letters = significance_letters(pairs, list(ev.runs))
        summary = ev.summary()
        measures = list(pd.unique(pairs["measure"])) if len(pairs) else []
        width = max([len(str(r)) for r in ev.runs] + [4]) + 4
        out.write(f"{'run':<{width}}" + "".join(f"{str(m):>16}" for m in measures) + "\n")
        for i, run in enumerate(ev.runs):
            cells = "".join(f"{summary.loc[run, m]:>10.4f} {letters.get((run, str(m)), ''):<5}" for m in measures)
            out.write(f"{f'({letter(i)}) {run}':<{width}}{cells}\n")
        out.write("\n" + format_pairs(pairs))
    return 0
