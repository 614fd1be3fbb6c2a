"""The working of the counts and the remaining set measures: num_ret, num_rel, num_rel_ret,
num_nonrel_judged_ret, set_relative_P, set_map and utility, and of relstring.

The counts are read off the ranking as trec_eval counts them (the documents after ``-M`` and ``-J``);
each explainer lists the documents that make its count and redoes the kernel's arithmetic on the
counts, in the kernel's order.
"""

from __future__ import annotations

from metrics.explain.model import Table
from metrics.explain.query import QueryRanking, Working, grade_text
from metrics.ranking.qrels_index import NONPOOL, UNJUDGED

__all__ = [
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "num_nonrel_judged_ret",
    "relstring",
    "set_relative_precision",
    "set_map",
    "utility",
]


def _doc(q: QueryRanking, i: int) -> dict:
    return {"rank": i + 1, "docid": q.docids[i], "grade": grade_text(q.codes[i])}


def _numbered(q: QueryRanking, ranks: list[int]) -> tuple[dict, ...]:
    return tuple(_doc(q, i) | {"count": n + 1} for n, i in enumerate(ranks))


_COLUMNS = ("rank", "docid", "grade", "count")


def _split(q: QueryRanking) -> dict[str, list[int]]:
    """The retrieved ranks by what they count as: relevant, judged non-relevant, unjudged, not in qrels."""
    out: dict[str, list[int]] = {"relevant": [], "non-relevant": [], "unjudged": [], "not in qrels": []}
    for i, c in enumerate(q.codes):
        if c == NONPOOL:
            out["not in qrels"].append(i)
        elif c == UNJUDGED or c < 0:
            out["unjudged"].append(i)
        elif c >= q.level:
            out["relevant"].append(i)
        else:
            out["non-relevant"].append(i)
    return out


def _judged_relevant(q: QueryRanking) -> list[tuple[str, int]]:
    """The query's judged documents with a grade >= the level (and >= 0), best grade first."""
    level = max(q.level, 0)
    return sorted(((d, g) for d, g in q.judged.items() if g >= level), key=lambda t: (-t[1], t[0]))


def num_rel(q: QueryRanking, m, r) -> Working:
    """num_rel: the judged documents counted relevant, retrieved or not, one row each."""
    held = {d: i + 1 for i, d in enumerate(q.docids)}
    docs = _judged_relevant(q)
    rows = tuple(
        {"docid": d, "grade": g, "retrieved at rank": held.get(d), "count": n + 1} for n, (d, g) in enumerate(docs)
    )
    level = max(q.level, 0)
    columns = ("docid", "grade", "retrieved at rank", "count")
    table = Table(f"Judged documents with a grade >= {level}", columns, rows if len(docs) == q.num_rel else ())
    summary = (
        f"num_rel = {q.num_rel}: the judged documents of grade >= {level}, retrieved or not",
        f"{q.num_rel_ret} of them retrieved, {q.num_rel - q.num_rel_ret} never retrieved",
    )
    return Working("num_rel = number of judged documents counted relevant", (table,), summary, float(q.num_rel))


def num_ret(q: QueryRanking, m, r) -> Working:
    """num_ret: the retrieved documents (after -M and -J), one row each; 0 for a -c placeholder."""
    parts = _split(q)
    value = 0.0 if q.placeholder else float(q.num_ret)
    rows = () if q.placeholder else _numbered(q, list(range(q.num_ret)))
    if q.placeholder:
        summary: tuple[str, ...] = (
            "The run has no results for this query (-c): num_ret = 0, the placeholder is not counted",
        )
    else:
        summary = (
            f"num_ret = {int(value)} documents retrieved",
            f"{len(parts['relevant'])} relevant, {len(parts['non-relevant'])} judged non-relevant, "
            f"{len(parts['unjudged'])} unjudged (negative grade), {len(parts['not in qrels'])} not in the qrels",
        )
    table = Table("Retrieved documents", _COLUMNS, rows)
    return Working("num_ret = number of documents retrieved", (table,), summary, value)


def num_rel_ret(q: QueryRanking, m, r) -> Working:
    """num_rel_ret: the retrieved documents judged relevant, one row each."""
    ranks = [i for i in range(q.num_ret) if q.judged_relevant(i)]
    table = Table("Relevant retrieved documents", _COLUMNS, _numbered(q, ranks))
    summary = (f"num_rel_ret = {q.num_rel_ret} retrieved documents judged with a grade >= {q.level}",)
    return Working("num_rel_ret = number of relevant documents retrieved", (table,), summary, float(q.num_rel_ret))


def num_nonrel_judged_ret(q: QueryRanking, m, r) -> Working:
    """num_nonrel_judged_ret: the retrieved documents judged with a grade below the level."""
    parts = _split(q)
    nonpool, unjudged = len(parts["not in qrels"]), len(parts["unjudged"])
    value = float(q.num_ret - nonpool - unjudged - q.num_rel_ret)
    ranks = [i for i in range(q.num_ret) if 0 <= q.codes[i] < q.level]
    table = Table(f"Retrieved documents judged with a grade below {q.level}", _COLUMNS, _numbered(q, ranks))
    summary = (
        f"num_nonrel_judged_ret = {q.num_ret} retrieved - {nonpool} not in the qrels - {unjudged} unjudged "
        f"- {q.num_rel_ret} relevant = {int(value)}",
    )
    formula = "num_nonrel_judged_ret = retrieved - not in qrels - unjudged - relevant retrieved"
    return Working(formula, (table,), summary, value)


def _relevant_table(q: QueryRanking) -> Table:
    ranks = [i for i in range(q.num_ret) if q.judged_relevant(i)]
    return Table("Relevant retrieved documents (they count)", _COLUMNS, _numbered(q, ranks))


def _counts(q: QueryRanking) -> str:
    a, ret, rel = q.num_rel_ret, q.num_ret, q.num_rel
    return f"{a} relevant retrieved, {ret} retrieved, R = {rel} relevant judged ({rel - a} never retrieved)"


def set_relative_precision(q: QueryRanking, m, r) -> Working:
    a, ret, rel = q.num_rel_ret, q.num_ret, q.num_rel
    d = min(ret, rel)
    value = a / max(d, 1) if d > 0 else 0.0
    if d > 0:
        text = f"set_relative_P = {a} / min({ret}, {rel}) = {a}/{d} = {value:.4f}"
    else:
        text = "Nothing retrieved or no relevant document: set_relative_P = 0"
    formula = "set_relative_P = relevant retrieved / min(retrieved, R)"
    return Working(formula, (_relevant_table(q),), (_counts(q), text), value)


def set_map(q: QueryRanking, m, r) -> Working:
    a = float(q.num_rel_ret)
    d = float(q.num_ret) * float(q.num_rel)
    value = (a * a) / d if d > 0 else 0.0
    if d > 0:
        text = f"set_map = {q.num_rel_ret}^2 / ({q.num_ret} * {q.num_rel}) = {value:.4f}"
    else:
        text = "Nothing retrieved or no relevant document: set_map = 0"
    formula = "set_map = relevant retrieved^2 / (retrieved * R) = set_P * set_recall"
    return Working(formula, (_relevant_table(q),), (_counts(q), text), value)


def utility(q: QueryRanking, m, r) -> Working:
    p = [float(v) for v in m.params]
    a = float(q.num_rel_ret)
    ret = float(q.num_ret)
    rel = float(q.num_rel)
    n = float(r.num_docs_in_coll)
    value = p[0] * a + p[1] * (ret - a) + p[2] * (rel - a) + p[3] * (n + a - ret - rel)
    rows = (
        {"cell": "a: relevant retrieved", "count": int(a), "coefficient": p[0]},
        {"cell": "b: non-relevant retrieved", "count": int(ret - a), "coefficient": p[1]},
        {"cell": "c: relevant not retrieved", "count": int(rel - a), "coefficient": p[2]},
        {"cell": "d: non-relevant not retrieved", "count": int(n + a - ret - rel), "coefficient": p[3]},
    )
    summary = [_counts(q), f"collection size N = {int(n)} (-N)"]
    if tuple(p) == (1.0, -1.0, 0.0, 0.0) and q.placeholder:
        value = 0.0
        summary.append("The run has no results for this query (-c): utility = 0")
    else:
        terms = " + ".join(f"{row['coefficient']:g} * {row['count']:g}" for row in rows)
        summary.append(f"utility = {terms} = {value:g}")
    formula = "utility = p1 a + p2 b + p3 c + p4 d, d = N + a - retrieved - R"
    return Working(
        formula, (Table("Contingency table", ("cell", "count", "coefficient"), rows),), tuple(summary), value
    )


def _relchar(code: int) -> str:
    """A relevance code as relstring writes it."""
    if code == NONPOOL:
        return "-"
    if code == UNJUDGED:
        return "."
    if code < 0:
        return "<"
    return str(code) if code <= 9 else ">"


def relstring(q: QueryRanking, m, r) -> Working:
    """relstring_N: the relevance codes of the first N documents, one character each."""
    length = int(m.params[0])  # (C's (long) cast: toward zero)
    n = max(min(length, q.num_ret), 0)
    cleared = tuple(m.params) == (10.0,) and q.placeholder
    if cleared:
        n = 0
    rows = tuple(_doc(q, i) | {"character": _relchar(q.codes[i])} for i in range(n))
    value = "".join(row["character"] for row in rows)
    summary = [f"relstring = '{value}'"]
    if cleared:
        summary.insert(0, "The run has no results for this query (-c): the string is empty")
    elif q.num_ret < length:
        summary.insert(0, f"Only {q.num_ret} documents retrieved: the string is {q.num_ret} characters long")
    formula = (
        f"relstring = the first {length} relevance codes: the grade for 0 to 9, '>' above 9, '-' not in the "
        "qrels, '.' in the qrels but unjudged, '<' another negative grade"
    )
    table = Table(f"The first {length} ranks", ("rank", "docid", "grade", "character"), rows)
    return Working(formula, (table,), tuple(summary), value)
