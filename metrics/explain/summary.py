"""The working of a summary value (``all``): the per-query values the mean is made of, how many
queries it divides by, and those the run lacks (scored 0 with ``-c``, left out without it)."""

from __future__ import annotations

import math

from metrics.engine.evaluation import format_line
from metrics.explain.explainers import conventions
from metrics.explain.model import Explanation, Table, counted
from metrics.explain.query import reproduces
from metrics.measures import FAMILIES, Measure
from metrics.measures.aggregates import MIN_GEO_MEAN, geometric_mean, mean, total
from metrics.measures.irm_families import defined_mean

__all__ = ["explain_summary"]


def explain_summary(prep, m: Measure, values, aggregate, base: dict) -> Explanation:
    fam = FAMILIES[m.family]
    r = prep.ranking
    line = format_line(m, "all", float(aggregate)) if fam.summary and aggregate is not None else ""
    value = None if aggregate is None else float(aggregate)
    kinds = {mean: "mean", geometric_mean: "geometric", total: "sum", defined_mean: "defined"}
    how = kinds.get(fam.aggregate)
    if how is None or value is None:
        reason = f"the summary of {m.trec_name} is not a mean or a sum of its per-query values: not explained yet"
        return Explanation(query_id="all", value=value, explained=False, reason=reason, line=line, **base)
    qids = prep.query_ids
    rows, running, defined = [], 0.0, 0
    for q, v, placeholder in zip(qids, values.tolist(), r.placeholder.tolist()):
        term = math.log(max(v, MIN_GEO_MEAN)) if how == "geometric" else v
        undefined = how == "defined" and math.isnan(v)
        if not undefined:
            running += term
            defined += 1
        note = "not in the run: scored against trec_eval's placeholder ranking" if placeholder else ""
        if undefined:
            note = "undefined (NaN): left out of the mean" + (f"; {note}" if note else "")
        row = {"query": q, "value": v} | ({"log(max(value, 0.00001))": term} if how == "geometric" else {})
        rows.append(row | {"running sum": running, "note": note})
    n = r.num_qrels_queries if r.complete else r.n_queries
    lacking = int(r.placeholder.sum())
    skipped = r.num_qrels_queries - r.n_queries
    lines = [f"{counted(len(qids), 'query', 'queries')} evaluated"]
    if r.complete and how == "defined":
        lines.append(f"-c: {lacking} of the queries the run lacks, scored against trec_eval's placeholder ranking")
    elif r.complete:
        lines.append(
            f"-c: the mean is over all {counted(n, 'query', 'queries')} of the qrels; {lacking} of them the run lacks"
        )
        if how == "geometric" and n > len(values):
            running += (n - len(values)) * math.log(MIN_GEO_MEAN)
    elif skipped:
        them = "it" if skipped == 1 else "they"
        lines.append(
            f"{counted(skipped, 'query', 'queries')} of the qrels the run lacks {'is' if skipped == 1 else 'are'} "
            f"left out (with -c {them} would count)"
        )
    if how == "defined":
        worked = running / defined if defined else math.nan
        lines.append(f"{m.trec_name} = {running:.4f} / {defined} = {worked:.4f}")
        formula = f"{m.trec_name} (all) = (sum of the defined per-query values) / number of queries where it is defined"
    elif how == "mean":
        worked = running / n if n else running
        lines.append(f"{m.trec_name} = {running:.4f} / {n} = {worked:.4f}")
        formula = f"{m.trec_name} (all) = (sum of the per-query values) / number of queries"
    elif how == "sum":
        worked = running
        lines.append(f"{m.trec_name} = {worked:g}")
        formula = f"{m.trec_name} (all) = sum of the per-query values"
    else:
        worked = math.exp(running / n) if n else 0.0
        lines.append(f"{m.trec_name} = exp({running:.4f} / {n}) = {worked:.4f}")
        formula = f"{m.trec_name} (all) = exp(mean of log(max(value, 0.00001)))"
    columns = tuple(rows[0]) if rows else ("query", "value", "running sum", "note")
    ok = reproduces(worked, value, m.kind)
    return Explanation(
        query_id="all",
        value=value,
        explained=ok,
        reason="" if ok else f"its working ({worked!r}) does not reproduce the summary ({value!r})",
        formula=formula,
        tables=(Table("Per-query values", columns, tuple(rows)),) if ok else (),
        summary=tuple(lines) if ok else (),
        conventions=tuple(conventions(r, m)) if ok else (),
        line=line,
        worked=worked,
        **base,
    )
