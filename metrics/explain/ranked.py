"""The working of the binary-relevance measures: AP and AP@k (and map_ext's variants), RR and RR@k,
P@k, hits@k, relative P@k, R@k, F1@k, R-prec and Rprec_mult, success@k, unj@k, Judged@k, Accuracy@k,
the set measures, bpref, infAP, binG, interpolated precision at a recall level and the 11-point average.

Each explainer reads one query's part of the judged ranking (:class:`~metrics.explain.core.QueryRanking`:
the relevance codes and running relevant counts the kernels read) and redoes the kernel's arithmetic
in the kernel's order, row by row; the number it reaches is compared with the kernel's value.
"""

from __future__ import annotations

import math

import numpy as np

from metrics.explain.model import Table, counted
from metrics.explain.query import QueryRanking, Working, grade_text
from metrics.measures._kernels import lround
from metrics.measures.extra import WHOLE_RANKING
from metrics.measures.judgments import INFAP_EPSILON
from metrics.ranking.qrels_index import NONPOOL, UNJUDGED

__all__ = [
    "average_precision",
    "reciprocal_rank",
    "precision_at",
    "recall_at",
    "r_precision",
    "success_at",
    "set_measure",
    "bpref",
    "inferred_ap",
    "iprec_at_recall",
]


def _doc(q: QueryRanking, i: int) -> dict:
    return {"rank": i + 1, "docid": q.docids[i], "grade": grade_text(q.codes[i])}


def _never(q: QueryRanking) -> str:
    missing = q.num_rel - q.num_rel_ret
    where = "retrieved" if q.num_ret or not q.placeholder else "retrieved (the run has no results for this query)"
    judged = counted(q.num_rel, "relevant judged document")
    return f"R = {judged} (grade >= {q.level}), {missing} of them never {where}"


def _relevant_ranks(q: QueryRanking) -> list[int]:
    return [i for i in range(q.num_ret) if q.relevant(i)]


def average_precision(q: QueryRanking, m, r) -> Working:
    rows, total = [], 0.0
    for i in _relevant_ranks(q):
        p = q.relcum[i] / (i + 1.0)
        total += p
        rows.append(
            _doc(q, i)
            | {"relevant so far": q.relcum[i], "precision": f"{q.relcum[i]}/{i + 1}", "precision (decimal)": p}
            | {"running sum": total}
        )
    columns = ("rank", "docid", "grade", "relevant so far", "precision", "precision (decimal)", "running sum")
    found = q.relcum[-1] if q.relcum else 0
    value = total / max(q.num_rel, 1) if found > 0 else 0.0
    missing = max(q.num_rel - q.num_rel_ret, 0)
    summary = [_never(q)]
    if found > 0:
        terms = " + ".join([row["precision"] for row in rows] + _zero_terms(missing))
        summary.append(f"AP = ({terms}) / {q.num_rel} = {total:.4f} / {q.num_rel} = {value:.4f}")
    else:
        summary.append("No relevant document retrieved: AP = 0")
    if missing and found > 0:
        summary.append(f"Each relevant document never retrieved adds 0 to the sum and 1 to the divisor R = {q.num_rel}")
    formula = "AP = (sum of the precision at the rank of each relevant retrieved document) / R"
    tables = [Table("Relevant retrieved documents", columns, tuple(rows))]
    never = _never_retrieved(q)
    if missing and len(never) == missing:
        never_rows = tuple({"docid": d, "grade": grade_text(g), "precision": 0.0} for d, g in never)
        tables.append(
            Table("Relevant documents never retrieved (each adds 0)", ("docid", "grade", "precision"), never_rows)
        )
    return Working(formula, tuple(tables), tuple(summary), value)


#: how many "+ 0" terms a sum writes out one by one before it says how many there are
_ZEROS_WRITTEN = 10


def _zero_terms(missing: int) -> list[str]:
    """The "+ 0" terms of the relevant documents never retrieved, as a text's sum writes them."""
    if missing <= _ZEROS_WRITTEN:
        return ["0"] * missing
    return [f"{missing} x 0"]


def _never_retrieved(q: QueryRanking) -> list[tuple[str, int]]:
    """The relevant judged documents (grade >= the level) the ranking does not hold, best grade first."""
    held = set(q.docids)
    level = max(q.level, 0)
    return sorted(((d, g) for d, g in q.judged.items() if g >= level and d not in held), key=lambda t: (-t[1], t[0]))


def reciprocal_rank(q: QueryRanking, m, r) -> Working:
    first = next((i for i in range(q.num_ret) if q.relevant(i)), None)
    stop = q.num_ret if first is None else first + 1
    rows = tuple(_doc(q, i) | {"relevant": q.relevant(i)} for i in range(stop) if first is not None)
    if first is None:
        value = 0.0
        summary = (f"No relevant document among the {q.num_ret} retrieved: RR = 0",)
    else:
        value = 1.0 / (first + 1.0)
        summary = (f"First relevant document {q.docids[first]} at rank {first + 1}: RR = 1/{first + 1} = {value:.4f}",)
    table = Table("Ranks down to the first relevant document", ("rank", "docid", "grade", "relevant"), rows)
    return Working("RR = 1 / (rank of the first relevant retrieved document); 0 if none", (table,), summary, value)


def _top(q: QueryRanking, k: int) -> tuple[Table, int]:
    depth = min(k, q.num_ret)
    rows = tuple(_doc(q, i) | {"relevant": q.relevant(i), "relevant so far": q.relcum[i]} for i in range(depth))
    hits = q.relcum[depth - 1] if depth > 0 else 0
    return Table(f"Top {k}", ("rank", "docid", "grade", "relevant", "relevant so far"), rows), hits


def _short(q: QueryRanking, k: int) -> list[str]:
    if q.num_ret < k:
        missing = "missing rank counts" if k - q.num_ret == 1 else "missing ranks count"
        return [f"Only {counted(q.num_ret, 'document')} retrieved: the {k - q.num_ret} {missing} as non-relevant"]
    return []


def precision_at(q: QueryRanking, m, r) -> Working:
    k = int(m.params[0])
    table, hits = _top(q, k)
    value = hits / k
    summary = _short(q, k) + [f"P@{k} = {hits} relevant in the top {k} / {k} = {value:.4f}"]
    return Working(f"P@{k} = (relevant documents in the top {k}) / {k}", (table,), tuple(summary), value)


def recall_at(q: QueryRanking, m, r) -> Working:
    k = int(m.params[0])
    table, hits = _top(q, k)
    value = hits / max(q.num_rel, 1) if q.num_rel > 0 else 0.0
    summary = [_never(q)]
    if q.num_rel > 0:
        summary.append(f"R@{k} = {hits} relevant in the top {k} / R = {hits}/{q.num_rel} = {value:.4f}")
    else:
        summary.append(f"No relevant document for this query: R@{k} = 0")
    return Working(f"R@{k} = (relevant documents in the top {k}) / R", (table,), tuple(summary), value)


def r_precision(q: QueryRanking, m, r) -> Working:
    depth = min(q.num_ret, q.num_rel)
    table, hits = _top(q, depth)
    value = hits / max(q.num_rel, 1) if depth > 0 else 0.0
    summary = [_never(q)]
    if depth > 0:
        if q.num_ret < q.num_rel:
            summary.append(f"Only {counted(q.num_ret, 'document')} retrieved: the ranks below count as non-relevant")
        summary.append(f"R-prec = {hits} relevant in the top R = {q.num_rel} / {q.num_rel} = {value:.4f}")
    else:
        summary.append("R = 0 or nothing retrieved: R-prec = 0")
    return Working("R-prec = (relevant documents in the top R) / R", (table,), tuple(summary), value)


def success_at(q: QueryRanking, m, r) -> Working:
    k = int(m.params[0])
    table, hits = _top(q, k)
    value = 1.0 if hits > 0 else 0.0
    summary = (f"{hits} relevant in the top {k}: success@{k} = {int(value)}",)
    return Working(f"success@{k} = 1 if a relevant document is in the top {k}, else 0", (table,), summary, value)


def set_measure(q: QueryRanking, m, r) -> Working:
    """set_P, set_recall, set_F: the ranking as a set; the relevant retrieved documents are those that count."""
    rows, count = [], 0
    for i in range(q.num_ret):
        if q.judged_relevant(i):
            count += 1
            rows.append(_doc(q, i) | {"count": count})
    table = Table("Relevant retrieved documents (they count)", ("rank", "docid", "grade", "count"), tuple(rows))
    a, ret, rel = q.num_rel_ret, q.num_ret, q.num_rel
    counts = f"{a} relevant retrieved, {ret} retrieved, R = {rel} relevant judged ({rel - a} never retrieved)"
    if m.family == "set_P":
        value = a / max(ret, 1) if ret > 0 else 0.0
        text = f"set_P = {a}/{ret} = {value:.4f}"
        return Working("set_P = relevant retrieved / retrieved", (table,), (counts, text), value)
    if m.family == "set_recall":
        value = a / max(rel, 1) if rel > 0 else 0.0
        text = f"set_recall = {a}/{rel} = {value:.4f}"
        return Working("set_recall = relevant retrieved / R", (table,), (counts, text), value)
    x = float(m.params[0])
    P = a / max(ret, 1)
    R = a / max(rel, 1)
    value = (x + 1.0) * P * R / (x * P + R) if a > 0 else 0.0
    lines = [counts, f"P = {a}/{max(ret, 1)} = {P:.4f}, R = {a}/{max(rel, 1)} = {R:.4f}"]
    if a > 0:
        lines.append(f"F = ({x:g} + 1) * {P:.4f} * {R:.4f} / ({x:g} * {P:.4f} + {R:.4f}) = {value:.4f}")
    else:
        lines.append("No relevant document retrieved: F = 0")
    return Working(f"set_F = (x + 1) P R / (x P + R), x = {x:g}", (table,), tuple(lines), value)


def _walk_pooled(q: QueryRanking):
    """(rank index, judged relevant up to it, judged non-relevant above, unjudged above, the judged
    non-relevant documents passed since the previous relevant one) at each judged relevant rank."""
    k = n = u = 0
    passed: list[str] = []
    for i, c in enumerate(q.codes):
        if c == NONPOOL:
            continue
        if c == UNJUDGED:
            u += 1
        elif c < q.level:
            n += 1
            passed.append(q.docids[i])
        else:
            k += 1
            yield i, k, n, u, passed
            passed = []


def _listed(docs: list[str], most: int = 8) -> str:
    return ", ".join(docs[:most]) + (f", ... ({len(docs)} in all)" if len(docs) > most else "")


def bpref(q: QueryRanking, m, r) -> Working:
    level, R = q.level, q.num_rel
    N = sum(q.rel_levels[: max(level, 0)]) if level > 0 else 0
    denom = min(N, R)
    rows, total = [], 0.0
    for i, _, n, _, passed in _walk_pooled(q):
        term = 1.0 - min(n, R) / float(max(denom, 1)) if n > 0 else 1.0
        total += term
        row = {"non-relevant above": n, "new non-relevant above": _listed(passed), "min(n, R)": min(n, R)}
        rows.append(_doc(q, i) | row | {"term": term, "running sum": total})
    value = total / max(R, 1) if R > 0 else total
    columns = ("rank", "docid", "grade", "non-relevant above", "new non-relevant above", "min(n, R)", "term")
    table = Table("Relevant retrieved documents", columns + ("running sum",), tuple(rows))
    summary = [
        _never(q),
        f"N = {N} judged non-relevant documents; min(N, R) = {denom}",
        "Documents not in the qrels, and those with a negative grade, are ignored",
    ]
    summary.append(f"bpref = {total:.4f} / {R} = {value:.4f}" if R > 0 else "R = 0: bpref = 0")
    formula = (
        "bpref = (1/R) * sum over relevant retrieved documents of (1 - min(n, R) / min(N, R)), "
        "n = judged non-relevant above it (1 when n = 0)"
    )
    return Working(formula, (table,), tuple(summary), value)


def inferred_ap(q: QueryRanking, m, r) -> Working:
    eps = INFAP_EPSILON
    rows, total = [], 0.0
    for i, k, n, u, _ in _walk_pooled(q):
        fj = float(i)
        if i == 0:
            term = 1.0
        else:
            a = (k - 1 + n + u) / fj
            b = ((k - 1) + eps) / (((k - 1) + n) + 2 * eps)
            term = 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * a * b
        total += term
        outside = i - (k - 1) - n - u
        row = {"k": k, "n above": n, "u above": u, "not in qrels above": outside, "term": term}
        rows.append(_doc(q, i) | row | {"running sum": total})
    value = total / max(q.num_rel, 1) if q.num_rel > 0 else total
    columns = ("rank", "docid", "grade", "k", "n above", "u above", "not in qrels above", "term", "running sum")
    table = Table("Judged relevant retrieved documents", columns, tuple(rows))
    summary = [
        _never(q),
        "k: judged relevant documents up to the rank; n: judged non-relevant above it; u: pooled but unjudged "
        "(negative grade) above it; documents not in the qrels count only through the rank",
    ]
    if not any(c == UNJUDGED for c in q.codes):
        summary.append("No pooled-unjudged document is retrieved: the estimate rests on the judged documents alone")
    summary.append(f"infAP = {total:.4f} / {q.num_rel} = {value:.4f}" if q.num_rel > 0 else "R = 0: infAP = 0")
    formula = (
        "infAP = (1/R) * sum over judged relevant retrieved documents at rank j+1 of "
        "1/(j+1) + (j/(j+1)) * ((k-1+n+u)/j) * ((k-1+e)/(k-1+n+2e)), 1 at rank 1; e = 0.00001"
    )
    return Working(formula, (table,), tuple(summary), value)


def iprec_at_recall(q: QueryRanking, m, r) -> Working:
    x = float(m.params[0])
    R, nrr = q.num_rel, q.num_rel_ret
    ranks = _relevant_ranks(q)
    precision = [q.relcum[i] / (i + 1.0) for i in ranks]
    interpolated = list(precision)
    for j in range(len(interpolated) - 2, -1, -1):
        interpolated[j] = max(interpolated[j], interpolated[j + 1])
    rows = tuple(
        _doc(q, i)
        | {"relevant so far": q.relcum[i], "recall": q.relcum[i] / R if R else 0.0}
        | {"precision": f"{q.relcum[i]}/{i + 1}"}
        | {"precision (decimal)": p, "interpolated precision": ip}
        for i, p, ip in zip(ranks, precision, interpolated)
    )
    columns = ("rank", "docid", "grade", "relevant so far", "recall", "precision", "precision (decimal)")
    table = Table("Relevant retrieved documents", columns + ("interpolated precision",), rows)
    v = int(lround(np.asarray([x * R]))[0])
    summary = [_never(q), f"Recall {x:g} of R = {R}: lround({x:g} * {R}) = {v} relevant documents"]
    if v > nrr:
        value = 0.0
        summary.append(f"Only {counted(nrr, 'relevant document')} retrieved, fewer than {v}: the value is 0")
    elif v >= 1:
        value = interpolated[v - 1]
        summary.append(
            f"Relevant document number {v} is at rank {ranks[v - 1] + 1}; the highest precision there or "
            f"below: {value:.4f}"
        )
    elif nrr > 0:
        value = interpolated[0]
        summary.append(f"Recall level 0: the highest precision anywhere in the ranking: {value:.4f}")
    else:
        value = nrr / float(q.num_ret) if q.num_ret else float("nan")
        summary.append(f"Recall level 0 and no relevant document retrieved: {format(value, '.4f')}")
    formula = (
        f"iprec_at_recall_{x:.2f} = the highest precision at or below the rank where lround({x:g} * R) "
        "relevant documents have been retrieved"
    )
    return Working(formula, (table,), tuple(summary), value)


def _depth(q: QueryRanking, k: int) -> int:
    """The ranks a cutoff k reads (0 stands for the whole ranking, as ERR's and Judged's)."""
    return q.num_ret if k == WHOLE_RANKING else min(k, q.num_ret)


def _at(k: int) -> str:
    return "" if k == WHOLE_RANKING else f"@{k}"


def average_precision_cut(q: QueryRanking, m, r) -> Working:
    """map_cut_k: AP over the top k, divided by R."""
    k = int(m.params[0])
    rows, total = [], 0.0
    for i in range(min(k, q.num_ret)):
        if q.relevant(i):
            p = q.relcum[i] / (i + 1.0)
            total += p
            row = {"relevant so far": q.relcum[i], "precision": f"{q.relcum[i]}/{i + 1}", "precision (decimal)": p}
            rows.append(_doc(q, i) | row | {"running sum": total})
    value = total / max(q.num_rel, 1) if q.num_rel > 0 else 0.0
    columns = ("rank", "docid", "grade", "relevant so far", "precision", "precision (decimal)", "running sum")
    summary = _short(q, k) + [_never(q)]
    if q.num_rel > 0:
        terms = " + ".join(row["precision"] for row in rows) or "0"
        summary.append(f"AP@{k} = ({terms}) / {q.num_rel} = {total:.4f} / {q.num_rel} = {value:.4f}")
        summary.append(
            f"Each relevant document below rank {k} or never retrieved adds 0 to the sum and 1 to R = {q.num_rel}"
        )
    else:
        summary.append(f"No relevant document for this query: map_cut_{k} = 0")
    formula = f"map_cut_{k} = (sum of the precision at each relevant rank <= {k}) / R"
    return Working(formula, (Table(f"Relevant documents in the top {k}", columns, tuple(rows)),), tuple(summary), value)


def reciprocal_rank_cut(q: QueryRanking, m, r) -> Working:
    """rr_cut_k: 1 / the rank of the first relevant document if it is in the top k, else 0."""
    k = int(m.params[0])
    first = next((i for i in range(q.num_ret) if q.relevant(i)), None)
    stop = min(k, q.num_ret) if first is None or first >= k else first + 1
    rows = tuple(_doc(q, i) | {"relevant": q.relevant(i)} for i in range(stop))
    if first is None:
        value = 0.0
        summary = (f"No relevant document among the {q.num_ret} retrieved: RR@{k} = 0",)
    elif first >= k:
        value = 0.0
        summary = (f"The first relevant document {q.docids[first]} is at rank {first + 1}, below {k}: RR@{k} = 0",)
    else:
        value = 1.0 / (first + 1.0)
        summary = (
            f"First relevant document {q.docids[first]} at rank {first + 1} <= {k}: "
            f"RR@{k} = 1/{first + 1} = {value:.4f}",
        )
    table = Table(
        f"Ranks down to the first relevant document (at most {k})", ("rank", "docid", "grade", "relevant"), rows
    )
    formula = f"RR@{k} = 1 / (rank of the first relevant document) if it is within the top {k}, else 0"
    return Working(formula, (table,), summary, value)


def hits_at(q: QueryRanking, m, r) -> Working:
    """hits_k: the number of relevant documents in the top k."""
    k = int(m.params[0])
    table, hits = _top(q, k)
    value = float(hits)
    summary = _short(q, k) + [f"hits@{k} = {hits} relevant documents in the top {k}"]
    return Working(f"hits@{k} = (relevant documents in the top {k})", (table,), tuple(summary), value)


def relative_precision(q: QueryRanking, m, r) -> Working:
    """relative_P_k: relevant in the top k / min(k, R)."""
    k = int(m.params[0])
    table, hits = _top(q, k)
    best = min(k, q.num_rel)
    value = hits / max(best, 1) if q.num_rel > 0 else 0.0
    summary = _short(q, k) + [_never(q)]
    if q.num_rel > 0:
        summary.append(f"relative_P@{k} = {hits} / min({k}, {q.num_rel}) = {hits}/{best} = {value:.4f}")
    else:
        summary.append(f"No relevant document for this query: relative_P@{k} = 0")
    formula = f"relative_P@{k} = (relevant documents in the top {k}) / min({k}, R)"
    return Working(formula, (table,), tuple(summary), value)


def f1_at(q: QueryRanking, m, r) -> Working:
    """f1_cut_k: the harmonic mean of P@k and R@k."""
    k = int(m.params[0])
    table, hits = _top(q, k)
    p = hits / k
    rec = hits / max(q.num_rel, 1) if q.num_rel > 0 else 0.0
    value = 2.0 * p * rec / (p + rec) if hits > 0 else 0.0
    summary = _short(q, k) + [_never(q), f"P@{k} = {hits}/{k} = {p:.4f}, R@{k} = {hits}/{q.num_rel} = {rec:.4f}"]
    if hits > 0:
        summary.append(f"F1@{k} = 2 * {p:.4f} * {rec:.4f} / ({p:.4f} + {rec:.4f}) = {value:.4f}")
    else:
        summary.append(f"No relevant document in the top {k}: F1@{k} = 0")
    return Working(f"F1@{k} = 2 P@{k} R@{k} / (P@{k} + R@{k})", (table,), tuple(summary), value)


def r_precision_mult(q: QueryRanking, m, r) -> Working:
    """Rprec_mult_x: precision at the cutoff (long)(x R + 0.9)."""
    x = float(m.params[0])
    R, ret = q.num_rel, q.num_ret
    c = int(math.trunc(x * R + 0.9))
    table, hits = _top(q, c)
    # trec_eval counts down from num_rel_ret at every rank with a code >= the level (see the kernel)
    extra = (q.relcum[ret - 1] if ret else 0) - q.num_rel_ret
    hits = max(hits - extra, 0)
    summary = [_never(q), f"Cutoff: (long)({x:g} * {R} + 0.9) = {c}"]
    if c <= 0:
        value = 0.0
        summary.append("A cutoff of 0 scores 0")
    elif c > ret:
        value = q.num_rel_ret / max(c, 1)
        summary.append(
            f"The cutoff is beyond the {counted(ret, 'document')} retrieved: "
            f"{q.num_rel_ret} relevant retrieved / {c} = {value:.4f}"
        )
    else:
        value = hits / max(c, 1)
        summary.append(f"Rprec_mult_{x:.2f} = {hits} relevant in the top {c} / {c} = {value:.4f}")
    formula = f"Rprec_mult_{x:.2f} = (relevant documents in the top c) / c, c = (long)({x:g} R + 0.9)"
    return Working(formula, (table,), tuple(summary), value)


def unjudged_at(q: QueryRanking, m, r) -> Working:
    """unj_k: the fraction of the top k that the qrels do not judge."""
    k = int(m.params[0])
    depth = min(k, q.num_ret)
    rows = tuple(_doc(q, i) | {"judged": q.codes[i] >= 0} for i in range(depth))
    judged = sum(1 for i in range(depth) if q.codes[i] >= 0)
    value = (depth - judged) / k
    summary = _short(q, k)
    if q.placeholder:
        value = 0.0
        summary.append("The run has no results for this query (-c): unj = 0")
    else:
        summary.append(f"unj@{k} = ({depth} ranks - {judged} judged) / {k} = {value:.4f}")
    formula = f"unj@{k} = (documents in the top {k} not in the qrels or with a negative grade) / {k}"
    return Working(formula, (Table(f"Top {k}", ("rank", "docid", "grade", "judged"), rows),), tuple(summary), value)


def judged_at(q: QueryRanking, m, r) -> Working:
    """Judged@k: the fraction of the first min(k, num_ret) documents that are in the qrels."""
    k = int(m.params[0])
    depth = _depth(q, k)
    rows, hits = [], 0
    for i in range(depth):
        inside = q.codes[i] != NONPOOL
        hits += inside
        rows.append(_doc(q, i) | {"in qrels": inside, "in qrels so far": hits})
    value = hits / max(depth, 1) if depth > 0 else 0.0
    at = _at(k)
    if depth > 0:
        summary = (f"Judged{at} = {hits} in the qrels / {depth} ranks read = {value:.4f}",)
    else:
        summary = (f"Nothing retrieved: Judged{at} = 0",)
    where = "the ranking" if k == WHOLE_RANKING else f"the first min({k}, retrieved)"
    formula = f"Judged{at} = (documents of {where} that the qrels list, any grade) / (their number)"
    columns = ("rank", "docid", "grade", "in qrels", "in qrels so far")
    return Working(formula, (Table("Ranks read", columns, tuple(rows)),), summary, value)


def map_ext(q: QueryRanking, m, r) -> Working:
    """map_ext: AP with observed or interpolated precision, over R or over the relevant retrieved."""
    options = dict(m.options)
    kind = str(options.get("precision", "observed")).strip().lower()
    over = str(options.get("over", "all")).strip().lower()
    prec = [q.relcum[i] / (i + 1.0) for i in range(q.num_ret)]
    best = list(prec)
    if kind == "interpolated":
        for i in range(len(best) - 2, -1, -1):
            best[i] = max(best[i], best[i + 1])
    rows, total = [], 0.0
    for i in range(q.num_ret):
        total += best[i] if q.relevant(i) else 0.0
        if q.relevant(i):
            row = {
                "relevant so far": q.relcum[i],
                "precision": f"{q.relcum[i]}/{i + 1}",
                "precision (decimal)": prec[i],
            }
            rows.append(_doc(q, i) | row | {"interpolated precision": best[i], "running sum": total})
    found = q.relcum[-1] if q.relcum else 0
    divisor = q.num_rel if over == "all" else found
    value = total / max(divisor, 1) if found > 0 else 0.0
    columns: tuple[str, ...] = ("rank", "docid", "grade", "relevant so far", "precision", "precision (decimal)")
    columns += ("interpolated precision",) if kind == "interpolated" else ()
    columns += ("running sum",)
    summary = [_never(q)]
    what = "R" if over == "all" else "the relevant retrieved"
    if found > 0:
        summary.append(f"AP = {total:.4f} / {divisor} ({what}) = {value:.4f}")
    else:
        summary.append("No relevant document retrieved: AP = 0")
    term = "the highest precision at or below the rank" if kind == "interpolated" else "the precision at the rank"
    formula = f"AP = (sum over the relevant retrieved documents of {term}) / {what}"
    return Working(formula, (Table("Relevant retrieved documents", columns, tuple(rows)),), tuple(summary), value)


def binary_g(q: QueryRanking, m, r) -> Working:
    """binG: each relevant retrieved document adds 1 / log2(2 + the non-relevant documents above it)."""
    rows, total = [], 0.0
    for i in _relevant_ranks(q):
        above = i - (q.relcum[i] - 1)
        d = math.log2(float(above + 2))
        term = 1.0 / d
        total += term
        rows.append(_doc(q, i) | {"non-relevant above": above, "log2(2 + n)": d, "term": term, "running sum": total})
    found = q.relcum[-1] if q.relcum else 0
    value = total / max(q.num_rel, 1) if found > 0 else 0.0
    summary = [_never(q)]
    if found > 0:
        summary.append(f"binG = {total:.4f} / {q.num_rel} = {value:.4f}")
    else:
        summary.append("No relevant document retrieved: binG = 0")
    columns = ("rank", "docid", "grade", "non-relevant above", "log2(2 + n)", "term", "running sum")
    formula = "binG = (1/R) * sum over relevant retrieved documents of 1 / log2(2 + n), n = non-relevant above it"
    return Working(formula, (Table("Relevant retrieved documents", columns, tuple(rows)),), tuple(summary), value)


def accuracy(q: QueryRanking, m, r) -> Working:
    """Accuracy@k: the fraction of (relevant, non-relevant) pairs of the top k in the right order."""
    k = int(m.params[0])
    depth = _depth(q, k)
    rows, violations = [], 0.0
    for i in range(depth):
        if q.relevant(i):
            above = i - q.relcum[i] + 1
            violations += float(above)
            rows.append(_doc(q, i) | {"non-relevant above": above, "pairs out of order so far": int(violations)})
    n_rel = q.relcum[depth - 1] if depth > 0 else 0
    n_nonrel = depth - n_rel
    at = _at(k)
    summary: tuple[str, ...]
    if n_rel > 0 and n_nonrel > 0:
        value = 1.0 - violations / (float(n_nonrel) * float(n_rel))
        summary = (
            f"{n_rel} relevant and {n_nonrel} non-relevant documents in the {depth} ranks read: "
            f"{n_rel * n_nonrel} pairs, {violations:g} with the non-relevant one first",
            f"Accuracy{at} = 1 - {violations:g} / ({n_nonrel} * {n_rel}) = {value:.4f}",
        )
    else:
        value = math.nan
        summary = (
            f"{n_rel} relevant and {n_nonrel} non-relevant documents in the {depth} ranks read: no pair, "
            f"Accuracy{at} is undefined (NaN, left out of the mean)",
        )
    columns = ("rank", "docid", "grade", "non-relevant above", "pairs out of order so far")
    formula = f"Accuracy{at} = 1 - (pairs with the non-relevant document first) / (relevant * non-relevant)"
    return Working(formula, (Table("Relevant documents in the ranks read", columns, tuple(rows)),), summary, value)


def eleven_point_average(q: QueryRanking, m, r) -> Working:
    """11pt_avg: the mean of the interpolated precisions at the recall levels, as trec_eval walks them
    (from the last level to the first, a level past the relevant retrieved scoring 0)."""
    levels = [float(x) for x in m.params]
    R, nrr = q.num_rel, q.num_rel_ret
    ranks = _relevant_ranks(q)
    extra = len(ranks) - nrr  # (the kernel's count at a negative level: 0 at any level >= 0)
    kept = [(i, q.relcum[i] - extra) for i in ranks if q.relcum[i] > extra]
    ip = [c / (i + 1.0) for i, c in kept]
    for j in range(len(ip) - 2, -1, -1):
        ip[j] = max(ip[j], ip[j + 1])

    def ip_at(v: int) -> float:
        return ip[v - 1] if 1 <= v <= nrr else 0.0

    if nrr > 0:
        final = ip_at(1)
    else:
        final = nrr / float(q.num_ret) if q.num_ret else math.nan
    cuts = [int(v) for v in lround(np.asarray(levels, dtype=np.float64) * R).tolist()]
    values = [0.0] * len(levels)
    notes = [""] * len(levels)
    skipping, stuck, t = True, False, nrr
    for k in range(len(levels) - 1, -1, -1):
        v = cuts[k]
        skipping = skipping and v > nrr
        active = not skipping
        match = active and not stuck and 1 <= v <= t
        stuck = stuck or (active and not match)
        if match:
            values[k] = ip_at(v)
            notes[k] = f"the highest precision at or below relevant document {v} (rank {kept[v - 1][0] + 1})"
        elif stuck:
            values[k] = final
            notes[k] = "recall 0: the highest precision anywhere in the ranking"
        else:
            notes[k] = f"only {nrr} relevant retrieved, fewer than {v}: 0"
        if match:
            t = v
    total = 0.0
    running = [0.0] * len(levels)
    for k in range(len(levels) - 1, -1, -1):
        total = total + values[k]
        running[k] = total
    value = total / len(levels)
    rows = tuple(
        {"recall level": x, "relevant documents": v, "interpolated precision": p, "note": note}
        | {"running sum (from the last level)": s}
        for x, v, p, note, s in zip(levels, cuts, values, notes, running)
    )
    columns = (
        "recall level",
        "relevant documents",
        "interpolated precision",
        "note",
        "running sum (from the last level)",
    )
    prows = tuple(
        _doc(q, i) | {"relevant so far": q.relcum[i], "precision": c / (i + 1.0), "interpolated precision": p}
        for (i, c), p in zip(kept, ip)
    )
    ptable = Table(
        "Relevant retrieved documents",
        ("rank", "docid", "grade", "relevant so far", "precision", "interpolated precision"),
        prows,
    )
    summary = (
        _never(q),
        f"Each level x needs lround(x * {R}) relevant documents",
        f"11pt_avg = {total:.4f} / {len(levels)} = {value:.4f}",
    )
    formula = "11pt_avg = (sum over the recall levels of the interpolated precision there) / (number of levels)"
    return Working(formula, (ptable, Table("Recall levels", columns, rows)), summary, value)
