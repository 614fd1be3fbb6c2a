"""The working of the user models: rank-biased precision (trec_eval's ``rbp``, grades rescaled to
[0, 1], and its residual ``rbp_resid``; ir_measures' RBP, ``rbp_ext``), the C/W/L measures of
cwl_eval (INST, INSQ, BPM, SDCG, NERR8 to NERR11) and ir_measures' Compat.

RBP's user reads down the ranking and goes on from each rank to the next with probability p: rank i is
reached with probability p^(i-1), the powers made by repeated multiplication as the kernels make them.
A C/W/L user goes on from rank i with the measure's own probability c_i (:mod:`metrics.measures.cwl`);
Compat's overlap is weighted by p^(depth-1) the same way.
"""

from __future__ import annotations

import math

import numpy as np

from metrics.explain.model import Table, counted
from metrics.explain.query import QueryRanking, Working, grade_text
from metrics.measures import FAMILIES
from metrics.measures import gains as trec
from metrics.measures.cwl import CWL_DEPTH, block_of, continuation, cwl_gains, cwl_levels, expected_utility_parts
from metrics.measures.extra import WHOLE_RANKING
from metrics.measures.irm_families import option_bool, option_float
from metrics.ranking.qrels_index import NONPOOL

__all__ = ["rbp", "rbp_residual", "rbp_ext", "cwl", "compat"]


def _powers(p: float, n: int) -> list[float]:
    """p^i for i <= n, each the previous times p."""
    out = [1.0]
    for _ in range(n):
        out.append(out[-1] * p)
    return out


_COLUMNS = ("rank", "docid", "grade", "gain", "p^(rank-1)", "term", "running sum")


def _rows(q: QueryRanking, gains: list[float], pw: list[float], depth: int) -> tuple[tuple[dict, ...], float]:
    rows, total = [], 0.0
    for i in range(depth):
        g = gains[i]
        term = g * pw[i] if g != 0 else 0.0
        if g != 0:
            total += term
        rows.append(
            {"rank": i + 1, "docid": q.docids[i], "grade": grade_text(q.codes[i]), "gain": g}
            | {"p^(rank-1)": pw[i], "term": term, "running sum": total}
        )
    return tuple(rows), total


def rbp(q: QueryRanking, m, r) -> Working:
    """trec_eval's rbp: (1 - p) * sum of gain * p^(rank-1), gains rescaled by min-max when any lies
    outside [0, 1]."""
    p = trec.persistence(m.params)
    pairs = trec.gain_pairs(m.params)
    num_levels = int(trec.trec_levels(r)[1][q.index])
    table = [g for _, g in trec.gain_table(pairs, num_levels)]
    lo, hi = min(table + [0.0]), max(table + [0.0])
    scale = lo < 0 or hi > 1
    named = {lvl for lvl, _ in pairs}
    given = dict(pairs)
    gains = []
    for c in q.codes:
        if c == NONPOOL and NONPOOL not in named:
            gains.append(0.0)
            continue
        g = given.get(c, float(c) if c >= 0 else 0.0)
        if scale and (c >= 0 or c in named):
            g = (g - lo) / (hi - lo)
        gains.append(g)
    pw = _powers(p, q.num_ret)
    rows, total = _rows(q, gains, pw, q.num_ret)
    value = (1.0 - p) * total
    conventions = [f"p = {p:g}: the probability of going on from one rank to the next"]
    if scale:
        conventions.append(
            f"Gains rescaled to [0, 1]: (gain - {lo:g}) / ({hi:g} - {lo:g}), the query's gain table spanning "
            f"[{lo:g}, {hi:g}]; documents not in the qrels or unjudged gain 0"
        )
    else:
        conventions.append("Gain = the grade (or the grade's given gain); not in the qrels or unjudged: 0")
    summary = (f"RBP = (1 - {p:g}) * {total:.4f} = {value:.4f}",)
    formula = "RBP = (1 - p) * sum over ranks i of gain(i) * p^(i-1)"
    return Working(formula, (Table("The run's ranking", _COLUMNS, rows),), summary, value, tuple(conventions))


def rbp_residual(q: QueryRanking, m, r) -> Working:
    """rbp_resid: how much RBP could still grow, p^num_ret + (1 - p) * sum of p^(rank-1) over the unjudged ranks."""
    p = trec.persistence(m.params)
    pw = _powers(p, q.num_ret)
    rows, total, n_unj = [], 0.0, 0
    for i in range(q.num_ret):
        w = pw[i] if q.codes[i] < 0 else 0.0
        total += w
        if q.codes[i] < 0:
            n_unj += 1
            rows.append(
                {"rank": i + 1, "docid": q.docids[i], "grade": grade_text(q.codes[i])}
                | {"p^(rank-1)": w, "running sum": total}
            )
    value = pw[q.num_ret] + (1 - p) * total
    summary = [f"{counted(n_unj, 'unjudged document')} retrieved (not in the qrels, or with a negative grade)"]
    if n_unj == 0:
        value = 0.0
        summary.append("Every retrieved document is judged: rbp_resid = 0")
    elif not m.params and q.placeholder:
        value = 0.0
        summary.append("The run has no results for this query (-c): rbp_resid = 0")
    else:
        summary.append(f"rbp_resid = {p:g}^{q.num_ret} + (1 - {p:g}) * {total:.4f} = {value:.4f}")
    formula = "rbp_resid = p^(retrieved) + (1 - p) * sum over unjudged ranks i of p^(i-1)"
    table = Table(
        "Unjudged retrieved documents (each could gain 1)",
        ("rank", "docid", "grade", "p^(rank-1)", "running sum"),
        tuple(rows),
    )
    return Working(formula, (table,), tuple(summary), value, (f"p = {p:g}",))


def rbp_ext(q: QueryRanking, m, r) -> Working:
    """ir_measures' RBP: (1 - p) * sum over the first k ranks of gain * p^(rank-1), the positive grade as gain."""
    options = dict(m.options)
    p = option_float("RBP p", options.get("p", "0.8"))
    binary = str(options.get("binary_at", "")).strip()
    if binary:
        level = int(binary)
        gains = [1.0 if c >= level else 0.0 for c in q.codes]
        how = f"Gain = 1 for a grade >= {level}, else 0"
    else:
        gains = [float(c) if c > 0 else 0.0 for c in q.codes]
        how = "Gain = the grade (not rescaled); grades <= 0 and unjudged documents 0"
    k = int(m.params[0])
    depth = q.num_ret if k == WHOLE_RANKING else min(k, q.num_ret)
    pw = _powers(p, q.num_ret)
    rows, total = [], 0.0
    for i in range(depth):
        term = gains[i] * pw[i]
        total += term
        rows.append(
            {"rank": i + 1, "docid": q.docids[i], "grade": grade_text(q.codes[i]), "gain": gains[i]}
            | {"p^(rank-1)": pw[i], "term": term, "running sum": total}
        )
    value = (1.0 - p) * total
    at = "" if k == WHOLE_RANKING else f"@{k}"
    summary = (f"RBP{at} = (1 - {p:g}) * {total:.4f} = {value:.4f}",)
    formula = f"RBP{at} = (1 - p) * sum over ranks i of gain(i) * p^(i-1)"
    table = Table("The ranks read", _COLUMNS, tuple(rows))
    return Working(formula, (table,), summary, value, (f"p = {p:g}", how))


#: what each C/W/L family's user does at rank i, in words
_CWL_MODELS = {
    "inst": "INST: goes on with c_i = ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T - gain so far",
    "insq": "INSQ: goes on with c_i = ((i + 2T - 1) / (i + 2T))^2",
    "bpm": "BPM: goes on (c_i = 1) while the gain so far is below T and fewer than k documents are read",
    "sdcg": "SDCG: goes on with c_i = log2(i + 1) / log2(i + 2) for i < k, else stops",
    "nerr8": "NERR8: goes on with c_i = 1 - g_i for i < k, else stops",
    "nerr9": "NERR9: goes on with c_i = i / (i + 1) * (1 - g_i) for i < k, else stops",
    "nerr10": "NERR10: goes on with c_i = p * (1 - g_i)",
    "nerr11": "NERR11: goes on with c_i = ((i + 2T - 1) / (i + 2T))^2 * (1 - g_i)",
}


def cwl(q: QueryRanking, m, r) -> Working:
    """INST, INSQ, BPM@k, SDCG@k and NERR8..11 as cwl_eval computes them: the expected gain per document
    read, sum W_i g_i over 1000 ranks, with W_i the user's chance of reaching rank i over the sum of those
    chances."""
    options = {**FAMILIES[m.family].options, **dict(m.options)}
    span = {k: options.pop(k) for k in ("min_rel", "max_rel")}
    lo, hi = cwl_levels(r, **span)
    block = block_of(r, q.index)  # (computed with the queries the kernel computes it with)
    row = q.index - block.start
    block_gains = cwl_gains(r, rows=block, **span)
    k = int(m.params[0]) if m.params else None
    block_cont = continuation(m.family, block_gains, k, **options)
    reach, weights, value = (x[row] for x in expected_utility_parts(block_gains, block_cont))
    gains, cont = block_gains[row], np.asarray(block_cont)[row]
    shown = min(q.num_ret, CWL_DEPTH)
    rows, total = [], 0.0
    for i in range(shown):
        term = float(weights[i] * gains[i])
        total += term
        rows.append(
            {"rank": i + 1, "docid": q.docids[i], "grade": grade_text(q.codes[i]), "gain": float(gains[i])}
            | {"goes on": float(cont[i]), "reached": float(reach[i]), "W": float(weights[i]), "W * gain": term}
            | {"running sum": total}
        )
    norm = float(1.0 / weights[0]) if weights[0] else math.nan
    summary = [
        f"Sum of the chances of reaching ranks 1..{CWL_DEPTH}: {norm:.4f}; W_i = reached_i / {norm:.4f}",
        f"The ranks past the {counted(q.num_ret, 'document')} retrieved gain 0"
        + (f" (and only the first {CWL_DEPTH} count)" if q.num_ret > CWL_DEPTH else ""),
        f"{m.trec_name} = sum of W * gain = {float(value):.4f}",
    ]
    name = str(m.family).upper()
    conventions = (
        _CWL_MODELS[m.family] + "".join(f", {k} = {v}" for k, v in sorted(options.items())),
        f"Gain: the grade clipped to [{lo:g}, {hi:g}] and scaled to [0, 1]; negative grades and documents "
        "not in the qrels 0",
    )
    formula = f"{name} = sum over ranks i <= {CWL_DEPTH} of W_i * gain_i, W_i = prod_(j<i) c_j / sum_k prod_(j<k) c_j"
    columns = ("rank", "docid", "grade", "gain", "goes on", "reached", "W", "W * gain", "running sum")
    table = Table("The ranks retrieved", columns, tuple(rows))
    return Working(formula, (table,), tuple(summary), float(value), conventions)


def compat(q: QueryRanking, m, r) -> Working:
    """Compatibility (Clarke et al.): rank-biased overlap between the ranking and the ideal ranking of the
    documents with a grade > 0, normalised by the ideal ranking's own overlap."""
    options = {**FAMILIES[m.family].options, **dict(m.options)}
    p = option_float("Compat p", options["p"], high=math.inf)
    norm = option_bool("Compat normalize", options["normalize"])
    relevant = {d: g for d, g in q.judged.items() if g > 0}
    K = len(relevant)
    # the ideal ranking: by grade, the retrieved ones of a grade first in the run's order, then the others
    retrieved = [(q.codes[i], i) for i in range(q.num_ret) if q.codes[i] > 0]
    place = {}
    for grade in sorted({g for g in relevant.values()}, reverse=True):
        above = sum(1 for g in relevant.values() if g > grade)
        ranks = sorted(i for g, i in retrieved if g == grade)
        for n, i in enumerate(ranks):
            place[i] = above + n
    ideal_docs: list[str | None] = [None] * K
    for i, j in place.items():
        ideal_docs[j] = q.docids[i]
    held = set(q.docids)
    rest = sorted((d for d in relevant if d not in held), key=lambda d: (-relevant[d], d))
    free = iter(j for j in range(K) if ideal_docs[j] is None)
    for d in rest:
        ideal_docs[next(free)] = d
    depth = max(q.num_ret, K)
    joins = [0] * depth  # documents that enter the overlap at each depth: max(run rank, ideal place)
    for i, j in place.items():
        joins[max(i, j)] += 1
    pw = _powers(p, depth)
    rows, total, s, best, overlap = [], 0.0, 0.0, 0.0, 0.0
    for t in range(depth):
        overlap += float(joins[t])
        w = pw[t]
        total += w
        term = w * overlap / (t + 1)
        s += term
        most = min(t + 1, K)
        best += w * most / (t + 1)
        row = {"depth": t + 1, "docid": q.docids[t] if t < q.num_ret else "", "grade": _grade_at(q, t)}
        row |= {"ideal document": ideal_docs[t] if t < K else "", "overlap": int(overlap), "best overlap": most}
        rows.append(row | {"p^(depth-1)": w, "term": term, "running sum": s})
    summary = [f"{counted(K, 'judged document')} with a grade > 0; overlap read to depth {depth}"]
    if depth == 0:
        value = 0.0
        summary.append("Nothing retrieved and no relevant document: compat = 0")
    else:
        score = s / total
        summary.append(f"RBO = {s:.4f} / {total:.4f} (the sum of the weights) = {score:.4f}")
        value = score
        if norm:
            ideal = best / total
            if ideal > 0:
                value = score / ideal
                summary.append(f"The ideal ranking's own RBO = {best:.4f} / {total:.4f} = {ideal:.4f}")
                summary.append(f"compat = {score:.4f} / {ideal:.4f} = {value:.4f}")
            else:
                summary.append(f"No relevant document: the ideal RBO is 0, compat = {value:.4f}")
        else:
            summary.append(f"compat = {value:.4f} (not normalised)")
    formula = (
        "compat = RBO(run, ideal) / RBO(ideal, ideal); RBO = sum over depths d of p^(d-1) * overlap(d) / d, "
        "divided by the sum of p^(d-1); overlap(d): documents in the top d of both"
    )
    conventions = (
        f"p = {p:g}; normalize = {'true' if norm else 'false'}",
        "Ideal ranking: the documents with a grade > 0 by grade; within a grade the retrieved ones first, "
        "in the run's order",
    )
    columns = ("depth", "docid", "grade", "ideal document", "overlap", "best overlap", "p^(depth-1)", "term")
    table = Table("Overlap by depth", columns + ("running sum",), tuple(rows))
    return Working(formula, (table,), tuple(summary), value, conventions)


def _grade_at(q: QueryRanking, t: int):
    return grade_text(q.codes[t]) if t < q.num_ret else ""
