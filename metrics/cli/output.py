"""What ``ir-eval`` prints once runs are scored together, besides trec_eval's lines: CSV, JSON, and the
comparisons (``--compare``, ``--all-pairs``)."""

from __future__ import annotations

import math
import sys

import numpy as np

from metrics.errors import EXIT_USAGE


def _json_default(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return str(value)


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
    """``--format json``: json.dump's layout (indent 1), NaN and infinity as null, the per-query values
    written a block of queries at a time as they are formatted (:func:`_json_queries`), not first made
    into a document of every value."""
    import json  # here: the usual trec output does without it

    fence = "\0"
    while True:  # marks for the places of the queries in the document: found once each (a label could hold one)
        runs: dict = {}
        marks: list[str] = []
        for run in ev.runs:
            res = ev.result(run)
            entry: dict = {}
            if args.summary:
                entry["all"] = {name: _json_number(v) for name, v in zip(res.names, res.aggregates)}
                entry["all"].update((name, str(v)) for q, name, v in res.texts if q == "all")
            if args.query:
                marks.append(json.dumps(f"{fence}queries of run {len(marks)}{fence}"))
                entry["queries"] = json.loads(marks[-1])  # its place in the document, written below
            runs[run] = entry
        settings = ev.settings.trec_options()
        doc = json.dumps({"settings": settings, "runs": runs}, indent=1, default=_json_default, allow_nan=False)
        if all(doc.count(mark) == 1 for mark in marks):
            break
        fence += "\0"
    pieces = [doc]
    for mark in marks:
        head, _, tail = pieces.pop().partition(mark)
        pieces += [head, tail]
    out.write(pieces[0])
    for run, tail in zip(ev.runs if marks else [], pieces[1:]):
        for block in _json_queries(ev.result(run)):
            out.write(block)
        out.write(tail)
    out.write("\n")


def _json_number(value: float):
    """A value for json: None (null) where JSON has no number (NaN, infinity)."""
    return value if math.isfinite(value) else None


#: queries per block written by _json_queries (100 measures: about 3 MB of text)
_JSON_BLOCK = 1000


def _json_queries(res):
    """The ``"queries"`` object of one run, as json.dump(indent=1) writes it at its depth in the document,
    a block of queries at a time.  Each query is one ``%`` format of a template made once (the measure
    names encoded, ``%r`` the value: json writes a float as its repr).  ``-q -m all_trec --format json``
    on 10,000 queries x 100 documents took 5.2 s and 346 MiB as a document of every value (a frame,
    dicts) given to json.dump, 1.0 s and 87 MiB this way.  A query with a NaN or an infinity is written
    value by value (null)."""
    import json

    qids, names = res.query_ids, res.names
    if not qids or not names:
        yield "{}"
        return
    keys = [json.dumps(n) for n in names]
    template = "    %s: {\n" + ",\n".join(f"     {k.replace('%', '%%')}: %r" for k in keys) + "\n    }"
    yield "{\n"
    for start in range(0, len(qids), _JSON_BLOCK):
        block = res.values[start : start + _JSON_BLOCK]
        finite = np.isfinite(block).all(axis=1).tolist()
        out = []
        for q, row, ok in zip(qids[start : start + _JSON_BLOCK], block.tolist(), finite):
            key = json.dumps(str(q))
            if ok:
                out.append(template % (key, *row))
            else:
                values = ",\n".join(f"     {k}: {json.dumps(_json_number(v))}" for k, v in zip(keys, row))
                out.append(f"    {key}: {{\n{values}\n    }}")
        yield ("" if start == 0 else ",\n") + ",\n".join(out)
    yield "\n   }"


def _compare(ev, args, run_paths, out) -> int:
    from metrics.compare import compare, format_comparison

    baseline = args.compare
    by_path = dict(zip(run_paths, ev.runs))
    if baseline in by_path:
        baseline = by_path[baseline]
    elif baseline not in ev.runs and baseline.isdigit() and 1 <= int(baseline) <= len(args.runs):
        baseline = by_path.get(args.runs[int(baseline) - 1], baseline)  # by position among the RUN files
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
        family=getattr(args, "correction_family", "all"),
    )
    if args.format == "csv":
        table.to_csv(out, index=False, float_format="%.17g", lineterminator="\n")
    elif args.format == "json":
        from metrics.compare.allpairs import json_value

        # every number in full (pandas' to_json rounds, and a small p-value became 0); NaN, inf as null
        records = [{key: json_value(value) for key, value in row.items()} for row in table.to_dict(orient="records")]
        import json  # here: the usual trec output does without it

        json.dump(records, out, indent=1, allow_nan=False)
        out.write("\n")
    else:
        out.write(format_comparison(table).rstrip("\n") + "\n")
    return 0


def _all_pairs(ev, args, out) -> int:
    import pandas as pd

    from metrics.compare.allpairs import compare_all_pairs, format_pairs, letter, pairs_to_json, significance_letters

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
