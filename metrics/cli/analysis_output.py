"""What ``ir-eval --overlap``, ``--coverage``, ``--versus``, ``--traits`` and ``--agreement`` print
(:mod:`metrics.cli.analysis`): text tables, CSV (every number in full) and JSON (NaN as null)."""

from __future__ import annotations

import json
import math
import sys

import numpy as np
import pandas as pd

from metrics.analysis import (
    condensed_scores,
    coverage_by_query,
    judgment_coverage,
    judgment_holes,
    mean_overlap,
    measure_agreement,
    query_extremes,
    query_traits,
    rank_overlap,
    ranking_flips,
    trait_correlations,
)
from metrics.analysis import versus as run_versus
from metrics.analysis.coverage import DEFAULT_GAP, UNDERESTIMATED
from metrics.analysis.overlap import DEFAULT_PERSISTENCE
from metrics.cli.common import settings_of_args


def json_number(value):
    """A value for json: None (null) where JSON has no number; numpy scalars as Python's."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _csv(frame: pd.DataFrame, out) -> None:
    """``frame`` as CSV, every number in full (the shortest text that reads back as the same double),
    NaN as an empty field.  Each column is made text at once (pandas' writer took 1.5 s over the
    220,000 rows of 100 runs' overlap, this 0.3 s); a frame with a field that needs quoting is
    written by pandas."""
    if _needs_quotes(frame.columns):
        frame.to_csv(out, index=False, float_format="%r", lineterminator="\n")
        return
    columns = []
    for name in frame.columns:
        values = frame[name].to_numpy()
        if values.dtype.kind == "f":  # repr: the shortest text that reads back (numpy's astype(str) is 7x slower)
            text = np.array(list(map(repr, values.tolist())), dtype=object)
            text[np.isnan(values)] = ""
        elif values.dtype.kind in "iub":
            text = np.array(list(map(str, values.tolist())), dtype=object)
        else:  # ids and labels: each distinct one made text once
            codes, uniques = pd.factorize(values)
            if _needs_quotes(uniques):
                frame.to_csv(out, index=False, float_format="%r", lineterminator="\n")
                return
            text = np.array([str(u) for u in uniques] + [""], dtype=object)[codes]  # code -1 (missing): ""
        columns.append(text)
    header = ",".join(str(c) for c in frame.columns)
    out.write(header + "\n")
    for lo in range(0, len(frame), 1 << 16):  # a block of rows at a time
        out.write("\n".join(map(",".join, zip(*(c[lo : lo + (1 << 16)] for c in columns)))) + "\n")


def _needs_quotes(values) -> bool:
    """Whether some value's text holds a comma, a quote or a line end (CSV then quotes it)."""
    return any(any(c in str(v) for c in ',"\r\n') for v in values)


def _json(doc, out) -> None:
    json.dump(doc, out, indent=1, ensure_ascii=False, allow_nan=False)
    out.write("\n")


def _records(frame: pd.DataFrame) -> list[dict]:
    return [{k: json_number(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]


def _cell(value) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else ""
    if isinstance(value, (float, np.floating)):
        return "-" if not np.isfinite(value) else f"{value:.4f}"
    return str(value)


def _text(frame: pd.DataFrame, out, heading: str | None = None) -> None:
    """``frame`` as aligned columns (numbers to 4 decimals), under a ``# heading`` line."""
    if heading:
        out.write(f"# {heading}\n")
    cells = [[str(c) for c in frame.columns]] + [[_cell(v) for v in row] for row in frame.itertuples(index=False)]
    widths = [max(len(row[j]) for row in cells) for j in range(len(frame.columns))]
    for row in cells:
        out.write("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() + "\n")


# ------------------------------------------------------------------------------------------ --overlap


def overlap(qrels, runs, args, out) -> int:
    p = DEFAULT_PERSISTENCE if args.rbo_p is None else args.rbo_p
    table = rank_overlap(runs, args.overlap, p, qrels=qrels)
    means = mean_overlap(table)
    settings = {"depth": args.overlap, "rbo_p": p, "order": "trec_eval's", "queries": "of QRELS, answered by both runs"}
    if args.format == "json":
        _overlap_json(table, means, settings, out)
        return 0
    rows = table[["run_a", "run_b", "query_id", "jaccard", "rbo"]]
    alls = means.assign(query_id="all")[["run_a", "run_b", "query_id", "jaccard", "rbo"]]
    if args.format == "text" and not args.query:
        both = alls
    else:  # each pair's queries, then its mean: the rows of pair g move down by g, its mean after them
        new_pair = np.ones(len(rows), dtype=bool)
        new_pair[1:] = (rows["run_a"].to_numpy()[1:] != rows["run_a"].to_numpy()[:-1]) | (
            rows["run_b"].to_numpy()[1:] != rows["run_b"].to_numpy()[:-1]
        )
        pair = np.cumsum(new_pair) - 1
        ends = np.append(np.flatnonzero(new_pair)[1:], len(rows))
        at = np.empty(len(rows) + len(alls), dtype=np.int64)
        at[np.arange(len(rows)) + pair] = np.arange(len(rows))
        at[ends + np.arange(len(alls))] = len(rows) + np.arange(len(alls))
        both = pd.concat([rows, alls], ignore_index=True).iloc[at].reset_index(drop=True)
    both = both.rename(columns={"query_id": "query"})
    if args.format == "csv":
        _csv(both, out)
    else:
        heading = (
            f"rank overlap at depth {args.overlap}: Jaccard of the top-{args.overlap} sets, RBO_ext with p = {p:g}"
        )
        _text(both, out, heading)
    return 0


def _overlap_json(table: pd.DataFrame, means: pd.DataFrame, settings: dict, out) -> None:
    """``{"settings": ..., "pairs": [{"run_a", "run_b", "all": {...}, "queries": {query: {"jaccard", "rbo"}}}]}``
    as ``json.dump(indent=1)`` writes it, each pair's queries from one template (json's indenting
    encoder, pure Python, took 5 s over the 220,000 queries of 100 runs' pairs)."""
    ids = {q: json.dumps(str(q), ensure_ascii=False) for q in pd.unique(table["query_id"])}
    starts = np.concatenate([[0], np.cumsum(means["queries"].to_numpy())])
    queries, jaccard, rbo = table["query_id"].tolist(), table["jaccard"].tolist(), table["rbo"].tolist()
    one = '\n    %s: {\n     "jaccard": %r,\n     "rbo": %r\n    }'
    head = json.dumps({"settings": settings}, indent=1, ensure_ascii=False)[:-2]
    out.write(head + ',\n "pairs": [')
    pairs = means[["run_a", "run_b", "queries", "jaccard", "rbo"]].itertuples(index=False, name=None)
    for i, (run_a, run_b, n, mean_jaccard, mean_rbo) in enumerate(pairs):
        lo, hi = int(starts[i]), int(starts[i + 1])
        rows = ",".join(one % (ids[q], j, r) for q, j, r in zip(queries[lo:hi], jaccard[lo:hi], rbo[lo:hi]))
        out.write(
            ("," if i else "")
            + f'\n  {{\n   "run_a": {json.dumps(run_a, ensure_ascii=False)},'
            + f'\n   "run_b": {json.dumps(run_b, ensure_ascii=False)},'
            + f'\n   "all": {{\n    "queries": {int(n)},'
            + f'\n    "jaccard": {float(mean_jaccard)!r},\n    "rbo": {float(mean_rbo)!r}\n   }},'
            + ('\n   "queries": {' + rows + "\n   }" if rows else '\n   "queries": {}')
            + "\n  }"
        )
    out.write("\n ]\n}\n" if len(means) else "]\n}\n")


# ------------------------------------------------------------------------------------------ --coverage


def coverage(qrels, runs, args, out) -> int:
    gap = DEFAULT_GAP if args.gap is None else args.gap
    summary = judgment_coverage(qrels, runs, args.cutoffs, gap=gap, settings=settings_of_args(args))
    per_query = coverage_by_query(qrels, runs, args.cutoffs)
    first = f"Judged@{args.cutoffs[0]}"
    for row in summary[summary["below_others"]].itertuples(index=False):
        value, others = getattr(row, "_2"), row.others
        print(
            f"ir-eval: warning: run {row.run!r}: {first} {value:.4f}, {others - value:.4f} below the other runs' "
            f"median ({others:.4f}): {UNDERESTIMATED}",
            file=sys.stderr,
        )
    condensed = condensed_scores(qrels, runs, args.measures, settings=settings_of_args(args)) if args.measures else None
    settings = {"cutoffs": args.cutoffs, "gap": gap, "complete": args.complete}
    if args.format == "json":
        holes = judgment_holes(qrels, runs, args.cutoffs[0])
        _json({"settings": settings, "runs": _coverage_json(summary, per_query, holes, condensed)}, out)
        return 0
    if args.format == "csv":
        alls = summary.drop(columns=["queries", "others"]).assign(query_id="all")
        means = per_query.groupby("run", sort=False)[[c for c in per_query.columns if c.startswith("unjudged@")]].mean()
        alls = alls.merge(means, left_on="run", right_index=True, how="left")
        if condensed is not None:
            for name, rows in condensed.groupby("measure", sort=False):
                alls = alls.merge(
                    rows[["run", "value", "condensed"]].rename(columns={"value": name, "condensed": f"{name} (-J)"}),
                    on="run",
                    how="left",
                )
        table = pd.concat([per_query, alls], ignore_index=True)
        table["_run"] = table["run"].map({run: i for i, run in enumerate(summary["run"])})
        table = table.sort_values("_run", kind="stable").drop(columns="_run").rename(columns={"query_id": "query"})
        front = ["run", "query"] + [c for c in table.columns if c not in ("run", "query", "below_others")]
        _csv(table[front + ["below_others"]], out)
        return 0
    shown = summary.rename(columns={"below_others": "well below"})
    _text(shown, out, f"judgment coverage: Judged@k, the fraction of the first k documents judged (gap {gap:g})")
    if summary["below_others"].any():
        out.write(f"# runs well below the others: {UNDERESTIMATED}\n")
    if args.query:
        holes = judgment_holes(qrels, runs, args.cutoffs[0])
        listed = holes.assign(hole=holes["rank"].astype(str) + ":" + holes["doc_id"].astype(str))
        listed = listed.groupby(["run", "query_id"], sort=False)["hole"].agg(" ".join)
        table = per_query.merge(
            listed.rename(f"unjudged in the top {args.cutoffs[0]} (rank:doc)"),
            how="left",
            left_on=["run", "query_id"],
            right_index=True,
        ).fillna("")
        out.write("\n")
        _text(table, out, "per query")
    if condensed is not None:
        out.write("\n")
        _text(condensed, out, "scores as evaluated and on the condensed list (-J: unjudged documents dropped)")
    return 0


def _coverage_json(summary, per_query, holes, condensed) -> dict:
    runs: dict = {}
    holes_of = {key: rows for key, rows in holes.groupby(["run", "query_id"], sort=False)}
    queries_of = dict(iter(per_query.groupby("run", sort=False)))
    for row in _records(summary):
        run = row.pop("run")
        entry: dict = {"all": row}
        if row["below_others"]:
            entry["all"]["warning"] = UNDERESTIMATED
        if condensed is not None:
            mine = condensed[condensed["run"] == run]
            entry["condensed"] = {r.pop("measure"): r for r in _records(mine.drop(columns="run"))}
        entry["queries"] = {}
        for q in _records(queries_of.get(run, per_query.iloc[:0]).drop(columns="run")):
            qid = q.pop("query_id")
            found = holes_of.get((run, qid))
            q["holes"] = [] if found is None else _records(found[["rank", "doc_id"]])
            entry["queries"][qid] = q
        runs[run] = entry
    return runs


# ------------------------------------------------------------------------------------------ --versus


def versus(evaluation, args, out) -> int:
    a, b = evaluation.runs
    table = run_versus(evaluation, a, b, evaluation.measure_names()[0])
    counts = table["outcome"].value_counts()
    wins, losses, ties = (int(counts.get(k, 0)) for k in ("win", "loss", "tie"))
    measure = evaluation.measure_names()[0]
    if args.format == "json":
        queries = {r.pop("query_id"): r for r in _records(table)}
        doc = {"settings": {"measure": measure, "run_a": a, "run_b": b}, "queries": queries}
        _json({**doc, "wins": wins, "losses": losses, "ties": ties}, out)
        return 0
    if args.format == "csv":
        table = table.assign(run_a=a, run_b=b).rename(columns={"query_id": "query", "a": "value_a", "b": "value_b"})
        _csv(table[["query", "run_a", "value_a", "run_b", "value_b", "difference", "outcome"]], out)
        return 0
    _text(table.rename(columns={"query_id": "query", "a": a, "b": b}), out, f"{measure}: {a} against {b}, per query")
    out.write(f"# {a}: {wins} wins, {losses} losses, {ties} ties over {len(table)} queries both runs answer\n")
    return 0


# ------------------------------------------------------------------------------------------ --traits


def traits(evaluation, qrels, args, out) -> int:
    measure = evaluation.measure_names()[0]
    table = query_traits(evaluation, measure, qrels, args.queries)
    rho = trait_correlations(table)
    extremes = query_extremes(table, args.top)
    if args.format == "csv":
        _csv(table.rename(columns={"query_id": "query"}), out)
        return 0
    if args.format == "json":
        lists = {kind: rows["query_id"].tolist() for kind, rows in extremes.groupby("kind", sort=False)}
        queries = {r.pop("query_id"): r for r in _records(table)}
        _json(
            {
                "settings": {"measure": measure, "runs": list(evaluation.runs)},
                "queries": queries,
                "correlations": _records(rho),
                **lists,
            },
            out,
        )
        return 0
    shown = table.rename(columns={"query_id": "query"})
    if "length" in shown.columns:  # terms: whole numbers, or unknown
        shown["length"] = [str(int(n)) if n == n else "-" for n in shown["length"]]
    _text(shown, out, f"queries: traits and {measure} over {len(evaluation.runs)} runs")
    out.write("\n")
    _text(rho, out, "Spearman's rho of each trait against the mean")
    out.write("\n")
    _text(extremes, out, "hardest and easiest queries (mean), most disputed (spread over the runs)")
    return 0


# ------------------------------------------------------------------------------------------ --agreement


def agreement(evaluation, args, out) -> int:
    pairs = measure_agreement(evaluation, with_p=True)
    flips = ranking_flips(evaluation)
    if args.format == "csv":
        _csv(pairs, out)
        return 0
    if args.format == "json":
        doc = {"settings": {"measures": evaluation.measure_names(), "runs": list(evaluation.runs)}}
        _json({**doc, "tau": _records(pairs), "flips": _records(flips)}, out)
        return 0
    _text(measure_agreement(evaluation).reset_index(), out, "Kendall's tau (tau-b) between the orderings of the runs")
    out.write("\n")
    _text(flips, out, "pairs of runs whose order flips (diff: run_a - run_b by that measure)")
    return 0
