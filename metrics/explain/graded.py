"""The working of nDCG (trec_eval's ``ndcg`` with its gain values, ``ndcg_cut_k``, and the variants
of ``ndcg_ext``: exp gain, the Järvelin-Kekäläinen discount with base b, the ideal ranking of the
retrieved documents only), of DCG (``dcg``, ``dcg_cut_k``, ``ideal_dcg``), ndcg_rel, Rndcg, G and ERR,
and the data of "where the gain was lost" (:func:`gain_curve`).

The gains, discounts and ideal gains are those of the kernels (:mod:`metrics.measures.gains` for
trec_eval's measures, :mod:`metrics.measures.extra` for the variants), taken for one query.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from metrics.explain.model import GainCurve, RelevantMark, Table, counted
from metrics.explain.query import QueryRanking, Working, grade_text
from metrics.measures import Measure
from metrics.measures import extra as ext
from metrics.measures import gains as trec

__all__ = ["Variant", "variant_of", "ndcg", "gain_curve", "NDCG_FAMILIES", "CURVE_FAMILIES"]

NDCG_FAMILIES = ("ndcg", "ndcg_cut", "ndcg_ext")
#: the families whose working is pictured as the run's DCG@k against the ideal ranking's (:func:`gain_curve`)
CURVE_FAMILIES = NDCG_FAMILIES + ("dcg", "dcg_cut", "ideal_dcg", "ndcg_rel", "Rndcg")
_TREC_GAINS = ("ndcg", "dcg", "ideal_dcg", "ndcg_rel", "Rndcg", "G")
_DEFAULT_DEPTH = 100
_IDEAL_ALL = "ideal ranking: every judged document of the query, retrieved or not"


@dataclass(frozen=True)
class Variant:
    """How gains, discounts and the ideal ranking are made: trec_eval's kernel (``pairs``: its
    grade=gain parameters) or ``ndcg_ext``'s (``opts``); ``cutoff`` None for the whole ranking."""

    trec: bool
    pairs: tuple
    opts: ext.NdcgOptions
    cutoff: int | None

    def gains(self, codes) -> list[float]:
        codes = np.asarray(codes, dtype=np.int64)
        if self.trec:
            g = np.where(codes >= 0, codes, 0).astype(np.float64)
            for lvl, v in self.pairs:
                g[codes == lvl] = v
            return g.tolist()
        return ext.gain_values(codes, self.opts.gain, self.opts.gains).tolist()

    def discounts(self, n: int) -> list[float]:
        if self.trec:
            return trec.log2_discounts(n).tolist()
        return ext.discount_table(n, self.opts).tolist()

    def ideal(self, r, qi: int) -> list[float]:
        if self.trec:
            flat, offsets = trec.ideal_gains(r, list(self.pairs))
        elif self.opts.ideal == "retrieved":
            flat, offsets = ext.ideal_retrieved(r, ext.gain_values(r.rel, self.opts.gain, self.opts.gains))
        else:
            flat, offsets = ext.ideal_all(r, self.opts)
        return [float(x) for x in flat[int(offsets[qi]) : int(offsets[qi + 1])]]

    def describe(self) -> list[str]:
        o = self.opts
        if self.trec:
            gain = "gain = the grade" + (
                " (" + ", ".join(f"grade {g}: gain {v:g}" for g, v in self.pairs) + ")" if self.pairs else ""
            )
            return [gain + " (trec_eval)", "discount = log2(rank + 1)", _IDEAL_ALL]
        gain = "gain = 2^grade - 1" if o.gain == "exp" else "gain = the grade"
        if o.gains:
            gain += " (grades mapped first: " + ", ".join(f"{g} -> {v:g}" for g, v in o.gains) + ")"
        if o.discount == "jk":
            disc = f"discount = log_{o.base:g}(rank), ranks below {o.base:g} undiscounted (Järvelin and Kekäläinen)"
        else:
            disc = "discount = log2(rank + 1)" if o.base == 2.0 else f"discount = log_{o.base:g}(rank + 1)"
        ideal = (
            "ideal ranking: the retrieved documents only, by decreasing gain" if o.ideal == "retrieved" else _IDEAL_ALL
        )
        return [gain + "; grades <= 0 and unjudged documents gain 0", disc, ideal]


def variant_of(m: Measure) -> Variant:
    """The variant measure ``m`` computes: trec_eval's gains (with ``m``'s grade=gain pairs) for trec_eval's
    gain measures, ``dcg_cut``'s and ``ndcg_ext``'s own, trec_eval's nDCG for any other measure."""
    if m.family in _TREC_GAINS:
        return Variant(True, tuple(trec.gain_pairs(m.params)), ext.NdcgOptions(), None)
    if m.family == "ndcg_cut":
        return Variant(True, (), ext.NdcgOptions(), int(m.params[0]))
    if m.family == "dcg_cut":
        gain = dict(m.options).get("gain", ext.NDCG_DEFAULTS["gain"])
        return Variant(False, (), ext.ndcg_options(gain=gain), int(m.params[0]))
    if m.family == "ndcg_ext":
        options = {k: v for k, v in m.options if k != "judged_only"}
        k = int(m.params[0])
        return Variant(False, (), ext.ndcg_options(**options), None if k == ext.WHOLE_RANKING else k)
    return Variant(False, (), ext.NdcgOptions(), None)


def _running(gains: list[float], discounts: list[float]) -> tuple[list[float], list[float]]:
    """(contribution, running sum) per rank, summed left to right as the kernels sum."""
    contributions, running, total = [], [], 0.0
    for g, d in zip(gains, discounts):
        c = g / d if g != 0 else 0.0
        if g != 0:
            total += c
        contributions.append(c)
        running.append(total)
    return contributions, running


def _ideal_docs(q: QueryRanking, v: Variant, ideal: list[float]) -> list[tuple[str, int] | None]:
    """The document (and grade) at each rank of the ideal ranking: among documents of equal gain the
    retrieved ones first, in the run's order, then the others by id; None where no judged document
    of the query has that gain there (trec_eval's ideal of a query with only negative grades)."""
    place = {d: i for i, d in enumerate(q.docids)}
    if not v.trec and v.opts.ideal == "retrieved":
        pool = {d: c for d, c in zip(q.docids, q.codes) if c >= 0}
    else:
        pool = {d: g for d, g in q.judged.items() if g >= 0}
    docs = list(pool)
    gains = v.gains([pool[d] for d in docs])
    order = sorted(range(len(docs)), key=lambda i: (-gains[i], place.get(docs[i], len(place)), docs[i]))
    out: list[tuple[str, int] | None] = []
    for j, g in enumerate(ideal):
        i = order[j] if j < len(order) else None
        out.append((docs[i], pool[docs[i]]) if i is not None and gains[i] == g else None)
    return out


def _part(who: tuple[str, int] | None, i: int):
    return "" if who is None else who[i]


def ndcg(q: QueryRanking, m: Measure, r) -> Working:
    v = variant_of(m)
    n = q.num_ret if v.cutoff is None else min(v.cutoff, q.num_ret)
    top = f" (top {v.cutoff})" if v.cutoff else ""
    run_table, dcg = _run_table(q, v, n, f"The run's ranking{top}")
    ideal = v.ideal(r, q.index)
    depth = len(ideal) if v.cutoff is None else min(v.cutoff, len(ideal))
    idisc = v.discounts(depth)
    icontrib, irunning = _running(ideal[:depth], idisc)
    who = _ideal_docs(q, v, ideal)
    irows = tuple(
        {"rank": j + 1, "docid": _part(who[j], 0), "grade": _part(who[j], 1), "gain": ideal[j]}
        | {"discount": idisc[j], "contribution": icontrib[j], "running IDCG": irunning[j]}
        for j in range(depth)
    )
    idcg = irunning[-1] if irunning else 0.0
    if v.trec and v.cutoff is not None:
        value = dcg / idcg if idcg > 0 else dcg
    else:
        value = dcg / idcg if idcg > 0 else 0.0
    at = "" if v.cutoff is None else f"@{v.cutoff}"
    columns = ("rank", "docid", "grade", "gain", "discount", "contribution", "running IDCG")
    tables = (run_table, Table(f"The ideal ranking{top}", columns, irows))
    summary = [f"DCG{at} = {dcg:.4f}", f"IDCG{at} = {idcg:.4f}"]
    if idcg > 0:
        summary.append(f"nDCG{at} = {dcg:.4f} / {idcg:.4f} = {value:.4f}")
    else:
        summary.append(f"IDCG{at} = 0 (no judged document with a positive gain): nDCG{at} = {value:.4f}")
    if v.cutoff is not None and q.num_ret < v.cutoff:
        summary.insert(0, f"Only {counted(q.num_ret, 'document')} retrieved: DCG{at} sums over them")
    formula = f"nDCG{at} = DCG{at} / IDCG{at}; DCG = sum over ranks i of gain(i) / discount(i)"
    return Working(formula, tables, tuple(summary), value, tuple(v.describe()))


def gain_curve(prep, m: Measure, qid: str, k_max: int | None = None) -> GainCurve:
    """The run's DCG@k and the ideal ranking's, k = 1..K, for query ``qid`` under the nDCG variant of
    ``m`` (trec_eval's when ``m`` is no nDCG).  K: ``k_max``, else the measure's cutoff, else the
    longer of the run's ranking and the ideal one, at most 100."""
    v = variant_of(m)
    r, own = prep.view(m)
    q = prep.query(qid, r, own)
    ideal = v.ideal(r, q.index)
    K = k_max or v.cutoff or min(_DEFAULT_DEPTH, max(q.num_ret, len(ideal)))
    K = max(int(K), 1)
    n = min(K, q.num_ret)
    _, running = _running(v.gains(q.codes[:n]), v.discounts(n))
    depth = min(K, len(ideal))
    _, irunning = _running(ideal[:depth], v.discounts(depth))
    dcg = [running[min(k, n) - 1] if n else 0.0 for k in range(1, K + 1)]
    best = [irunning[min(k, depth) - 1] if depth else 0.0 for k in range(1, K + 1)]
    ideal_rank = {who[0]: j + 1 for j, who in enumerate(_ideal_docs(q, v, ideal)) if who}
    run_rank = {d: i + 1 for i, d in enumerate(q.docids)}
    judged = {d: g for d, g in q.judged.items() if g >= 0}
    if not v.trec and v.opts.ideal == "retrieved":
        judged = {d: g for d, g in judged.items() if d in run_rank}
    docs = list(judged)
    gains = v.gains([judged[d] for d in docs])
    marks = [
        RelevantMark(d, judged[d], g, run_rank.get(d), ideal_rank.get(d))
        for d, g in zip(docs, gains)
        if g > 0 and not math.isnan(g)
    ]
    marks.sort(key=lambda x: (x.ideal_rank or 1 << 30, x.run_rank or 1 << 30, x.docid))
    unjudged = [i + 1 for i in range(n) if q.codes[i] < 0]
    return GainCurve(qid, prep.label, "; ".join(v.describe()), list(range(1, K + 1)), dcg, best, marks, unjudged)


def _run_table(q: QueryRanking, v: Variant, n: int, title: str) -> tuple[Table, float]:
    gains = v.gains(q.codes[:n])
    discounts = v.discounts(n)
    contrib, running = _running(gains, discounts)
    rows = tuple(
        {"rank": i + 1, "docid": q.docids[i], "grade": grade_text(q.codes[i]), "gain": gains[i]}
        | {"discount": discounts[i], "contribution": contrib[i], "running DCG": running[i]}
        for i in range(n)
    )
    columns = ("rank", "docid", "grade", "gain", "discount", "contribution", "running DCG")
    return Table(title, columns, rows), (running[-1] if running else 0.0)


def _ideal_table(q: QueryRanking, v: Variant, r, depth: int | None, title: str) -> tuple[Table, float]:
    ideal = v.ideal(r, q.index)
    n = len(ideal) if depth is None else min(depth, len(ideal))
    idisc = v.discounts(n)
    icontrib, irunning = _running(ideal[:n], idisc)
    who = _ideal_docs(q, v, ideal)
    rows = tuple(
        {"rank": j + 1, "docid": _part(who[j], 0), "grade": _part(who[j], 1), "gain": ideal[j]}
        | {"discount": idisc[j], "contribution": icontrib[j], "running IDCG": irunning[j]}
        for j in range(n)
    )
    columns = ("rank", "docid", "grade", "gain", "discount", "contribution", "running IDCG")
    return Table(title, columns, rows), (irunning[-1] if irunning else 0.0)


def dcg(q: QueryRanking, m: Measure, r) -> Working:
    """dcg (trec_eval's, with its gain values) and dcg_cut_k (gain linear or exp): DCG of the run's ranking."""
    v = variant_of(m)
    n = q.num_ret if v.cutoff is None else min(v.cutoff, q.num_ret)
    at = "" if v.cutoff is None else f"@{v.cutoff}"
    top = "" if v.cutoff is None else f" (top {v.cutoff})"
    table, value = _run_table(q, v, n, f"The run's ranking{top}")
    summary = [f"DCG{at} = {value:.4f}"]
    if v.cutoff is not None and q.num_ret < v.cutoff:
        summary.insert(0, f"Only {counted(q.num_ret, 'document')} retrieved: DCG{at} sums over them")
    formula = f"DCG{at} = sum over ranks i of gain(i) / discount(i)"
    conventions = tuple(v.describe()[:2])
    return Working(formula, (table,), tuple(summary), value, conventions)


def ideal_dcg(q: QueryRanking, m: Measure, r) -> Working:
    """ideal_dcg: the DCG of the ideal ranking of every judged document of the query."""
    v = variant_of(m)
    table, value = _ideal_table(q, v, r, None, "The ideal ranking")
    summary = [f"IDCG = {value:.4f}"]
    if not table.rows:
        summary.append("No judged document with a positive gain: IDCG = 0")
    formula = "IDCG = sum over the ranks i of the ideal ranking of gain(i) / log2(i + 1)"
    return Working(formula, (table,), tuple(summary), value, tuple(v.describe()))


def expected_reciprocal_rank(q: QueryRanking, m: Measure, r) -> Working:
    """ERR@k as gdeval.pl computes it: stopping probability (2^g - 1) / 16 at each rank."""
    k = int(m.params[0])
    depth = q.num_ret if k == ext.WHOLE_RANKING else min(k, q.num_ret)
    top = float(2**ext.ERR_MAX_GRADE)
    rows, total, before = [], 0.0, 1.0
    for i in range(depth):
        c = q.codes[i]
        stop = (2.0 ** float(c) - 1.0) / top if c > 0 else 0.0
        term = stop * before / (i + 1.0)
        total += term
        rows.append(
            {"rank": i + 1, "docid": q.docids[i], "grade": grade_text(c), "stop probability": stop}
            | {"reached": before, "term": term, "running ERR": total}
        )
        before = before * (1.0 - stop)
    at = "" if k == ext.WHOLE_RANKING else f"@{k}"
    summary = [f"ERR{at} = {total:.4f}"]
    if k != ext.WHOLE_RANKING and q.num_ret < k:
        summary.insert(0, f"Only {counted(q.num_ret, 'document')} retrieved: ERR{at} sums over them")
    formula = (
        f"ERR{at} = sum over ranks i of R(i) / i * (probability of reaching rank i), R(g) = (2^g - 1) / 16, "
        "reaching rank i: the product of 1 - R over the ranks above"
    )
    conventions = (
        "Stopping probability: (2^grade - 1) / 2^4 (gdeval.pl's maximum grade 4); grades <= 0 and unjudged documents 0",
    )
    columns = ("rank", "docid", "grade", "stop probability", "reached", "term", "running ERR")
    return Working(
        formula,
        (Table(f"The ranks read{' (top ' + str(k) + ')' if at else ''}", columns, tuple(rows)),),
        tuple(summary),
        total,
        conventions,
    )


def _divide(a: float, b: float) -> float:
    """a / b as the kernels' float arrays divide (IEEE: x / 0 is inf or NaN, not an error)."""
    if b != 0:
        return a / b
    if a == 0 or math.isnan(a):
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def g_measure(q: QueryRanking, m: Measure, r) -> Working:
    """G: each retrieved document with a gain g at rank i adds g / log2(2 + cost(i) - gain(i))."""
    v = variant_of(m)
    ideal = v.ideal(r, q.index)
    K = len(ideal)
    total_ideal = 0.0
    for g in ideal:
        total_ideal += g
    gains = v.gains(q.codes)
    rows, total, gained, cost = [], 0.0, 0.0, 0.0
    for i in range(q.num_ret):
        cost += (ideal[i] if ideal[i] >= 1.0 else 1.0) if i < K else 1.0
        g = gains[i]
        if g == 0:
            continue
        gained += g
        d = math.log2((2.0 + cost) - gained)
        term = g / d
        total += term
        rows.append(
            {"rank": i + 1, "docid": q.docids[i], "grade": grade_text(q.codes[i]), "gain": g}
            | {"gain so far": gained, "cost so far": cost, "log2(2 + cost - gain)": d, "term": term}
            | {"running sum": total}
        )
    value = total / total_ideal if total_ideal > 0 else 0.0
    summary = [f"Total ideal gain = {total_ideal:g} ({counted(K, 'document')} in the ideal ranking)"]
    if total_ideal > 0:
        summary.append(f"G = {total:.4f} / {total_ideal:g} = {value:.4f}")
    else:
        summary.append("No judged document with a positive gain: G = 0")
    formula = (
        "G = (sum over ranks i with a gain g of g / log2(2 + cost(i) - gain(i))) / (total ideal gain); "
        "gain(i): the gains of ranks 1..i, cost(i): max(ideal gain, 1) over ideal ranks 1..i (1 past its end)"
    )
    columns = ("rank", "docid", "grade", "gain", "gain so far", "cost so far", "log2(2 + cost - gain)", "term")
    table = Table("Retrieved documents with a gain", columns + ("running sum",), tuple(rows))
    return Working(formula, (table,), tuple(summary), value, tuple(v.describe()))


def _ideal_running(ideal: list[float]) -> list[float]:
    return _running(ideal, trec.log2_discounts(len(ideal)).tolist())[1]


def ndcg_rel(q: QueryRanking, m: Measure, r) -> Working:
    """ndcg_rel: nDCG averaged over the relevant documents (those with a positive ideal gain)."""
    v = variant_of(m)
    run_table, dcg_total = _run_table(q, v, q.num_ret, "The run's ranking")
    gains = v.gains(q.codes[: q.num_ret])
    ideal = v.ideal(r, q.index)
    K = len(ideal)
    irunning = _ideal_running(ideal)
    itot = irunning[-1] if irunning else 0.0
    running = [row["running DCG"] for row in run_table.rows]
    rows, s, nrg = [], 0.0, 0
    for i in range(q.num_ret):
        if not gains[i] > 0:
            continue
        nrg += 1
        depth = min(i + 1, K)
        here = irunning[depth - 1] if depth > 0 else 0.0
        point = _divide(running[i], here)
        s += point
        rows.append(
            {"rank": i + 1, "docid": q.docids[i], "grade": grade_text(q.codes[i]), "DCG so far": running[i]}
            | {"ideal depth": depth, "IDCG there": here, "nDCG there": point, "running sum": s}
        )
    missing = K - nrg
    rest = _divide(float(missing) * dcg_total, itot)
    s = s + rest
    value = s / (K if K > 0 else 1) if s > 0.0 else 0.0
    summary = [
        f"{counted(K, 'judged document')} with a positive gain, {nrg} of them retrieved",
        f"DCG = {dcg_total:.4f}, IDCG = {itot:.4f}",
    ]
    if missing:
        summary.append(
            f"{counted(missing, 'document')} with a positive gain not retrieved, each scoring DCG / IDCG: "
            f"{missing} * {dcg_total:.4f} / {itot:.4f} = {rest:.4f}"
        )
    summary.append(f"ndcg_rel = {s:.4f} / {K} = {value:.4f}" if s > 0.0 else "ndcg_rel = 0")
    formula = (
        "ndcg_rel = (1/K) * (sum over retrieved documents with a positive gain of DCG so far / IDCG at the same "
        "depth + (K - those) * DCG / IDCG), K = judged documents with a positive gain"
    )
    columns = ("rank", "docid", "grade", "DCG so far", "ideal depth", "IDCG there", "nDCG there", "running sum")
    tables = (Table("Retrieved documents with a positive gain", columns, tuple(rows)), run_table)
    return Working(formula, tables, tuple(summary), value, tuple(v.describe()))


def rndcg(q: QueryRanking, m: Measure, r) -> Working:
    """Rndcg: nDCG averaged over the depths where the ideal gain changes (and the whole ranking)."""
    v = variant_of(m)
    run_table, dcg_total = _run_table(q, v, q.num_ret, "The run's ranking")
    running = [row["running DCG"] for row in run_table.rows]
    ideal = v.ideal(r, q.index)
    K = len(ideal)
    irunning = _ideal_running(ideal)
    itot = irunning[-1] if irunning else 0.0
    points = [c for c in range(K) if c == K - 1 or ideal[c] != ideal[c + 1]]
    rows, s = [], 0.0
    for c in points:
        depth = c + 1
        n = min(depth, q.num_ret)
        d = running[n - 1] if n > 0 else 0.0
        val = _divide(d, irunning[c])
        s += val
        rows.append(
            {"depth": depth, "ideal gain there": ideal[c], "DCG within the depth": d, "IDCG at the depth": irunning[c]}
            | {"nDCG": val, "running sum": s}
        )
    n_points = float(len(points))
    summary = [f"R-level points: the ideal gain changes after depths {', '.join(str(c + 1) for c in points) or 'none'}"]
    if q.num_ret >= K + 2 and itot > 0:
        whole = dcg_total / itot
        s = s + whole
        n_points += 1
        rows.append(
            {"depth": "whole ranking", "ideal gain there": None, "DCG within the depth": dcg_total}
            | {"IDCG at the depth": itot, "nDCG": whole, "running sum": s}
        )
        summary.append(f"{q.num_ret} retrieved >= K + 2 = {K + 2}: the whole ranking's nDCG counts too")
    if q.num_rel > 0:
        value = _divide(s, n_points)
        summary.append(f"Rndcg = {s:.4f} / {int(n_points)} = {value:.4f}")
    else:
        value = 0.0
        summary.append("No relevant document for this query: Rndcg = 0")
    formula = "Rndcg = mean of nDCG at the depths where the ideal gain changes value (and at the whole ranking)"
    columns = ("depth", "ideal gain there", "DCG within the depth", "IDCG at the depth", "nDCG", "running sum")
    tables = (run_table, Table("R-level points", columns, tuple(rows)))
    return Working(formula, tables, tuple(summary), value, tuple(v.describe()))
