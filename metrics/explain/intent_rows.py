"""The working of the diversity measures for one query: alpha-nDCG@k, ERR-IA@k, P-IA@k, StRecall@k, NRBP,
alpha-DCG@k, nERR-IA@k, nNRBP and AP-IA, as ndeval computes them (see :mod:`metrics.measures.diversity`).

Each explainer reads one query's ranking against its intents (:class:`IntentRanking`) and the kernel's own
steps for it (:class:`metrics.measures.diversity.Steps`: the gains, weights and running sums the value is
made of), lays them out rank by rank and intent by intent, and adds the rows up again; the number it
reaches is compared with the kernel's value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from importlib import import_module

import numpy as np

from metrics.engine.intents import Judged
from metrics.explain.model import Table, counted
from metrics.explain.query import Working
from metrics.measures.diversity import DiversityMeasure, Steps, gain_terms, novelty
from metrics.measures.registry import INTENT_FAMILIES

__all__ = ["IntentRanking", "working"]


@dataclass(frozen=True)
class IntentRanking:
    """One query's ranking against its intents, as the diversity measures read it.

    ``docids``: the ranked documents; ``relevance``: their (ranks, intents) relevance at the measure's level
    (the matrix :func:`metrics.measures.diversity.query_values` reads); ``judged``: the query's intent qrels
    at that level; ``grades``: each judged document's (intent, grade) pairs as the qrels list them,
    negative grades included; ``level``: the relevance level."""

    query_id: str
    docids: list[str]
    relevance: np.ndarray
    judged: Judged
    grades: dict[str, list[tuple[str, int]]]
    level: int

    @property
    def intents(self) -> list[str]:
        return self.judged.intents


def _grades_text(q: IntentRanking, doc: str) -> str:
    pairs = q.grades.get(doc)
    if not pairs:
        return "not in qrels"
    return ", ".join(f"{intent}: {grade}" for intent, grade in pairs)


def _relevant_to(q: IntentRanking, rel: np.ndarray) -> str:
    return ", ".join(q.intents[j] for j in np.flatnonzero(rel))


def _doc(q: IntentRanking, i: int, rel: np.ndarray) -> dict:
    doc = q.docids[i]
    return {"rank": i + 1, "docid": doc, "grades": _grades_text(q, doc), "relevant to": _relevant_to(q, rel[i])}


def _terms_text(rel: np.ndarray, seen: np.ndarray, alpha: float) -> str:
    """The terms of a rank's gain, (1 - alpha)^c for each intent the document is relevant to."""
    return " + ".join(f"{1.0 - alpha:g}^{int(seen[j])}" for j in np.flatnonzero(rel))


def _gain_rows(
    q: IntentRanking, m: DiversityMeasure, st: Steps, weight: str, running: str, discounted: bool = False
) -> list[dict]:
    """The ranks read with the gain's terms, the gain, the weight, what the rank adds and the running sum;
    ``discounted``: the weight is the DCG discount, shown as log2(rank + 1), what the gain is divided by."""
    seen = novelty(st.rows)
    assert st.gains is not None and st.weights is not None and st.scaled is not None and st.running is not None
    rows = []
    for i in range(len(st.rows)):
        w = float(st.weights[i])
        shown = math.log2(i + 2.0) if discounted else w  # (the kernel multiplies by 1 / log2)
        rows.append(
            _doc(q, i, st.rows)
            | {"gain terms": _terms_text(st.rows[i], seen[i], m.alpha), "gain": float(st.gains[i])}
            | {weight: shown, "contribution": float(st.scaled[i]), running: float(st.running[i])}
        )
    return rows


def _gain_columns(weight: str, running: str) -> tuple[str, ...]:
    return ("rank", "docid", "grades", "relevant to", "gain terms", "gain", weight, "contribution", running)


def _intents(q: IntentRanking, st: Steps, where: str, extra=None) -> Table:
    """The query's intents: relevant documents judged, relevant documents in ``where`` and the first rank
    of one; ``extra(j)`` adds columns for intent j."""
    judged = q.judged.matrix.sum(axis=0) if q.judged.matrix.shape[0] else np.zeros(len(q.intents), dtype=int)
    rows = []
    for j, intent in enumerate(q.intents):
        hits = np.flatnonzero(st.rows[:, j]) if len(st.rows) else np.zeros(0, dtype=int)
        row = {"intent": intent, "relevant judged": int(judged[j]), f"relevant in {where}": len(hits)}
        row["first at rank"] = int(hits[0]) + 1 if len(hits) else None
        rows.append(row | (extra(j) if extra is not None else {}))
    columns = tuple(rows[0]) if rows else ("intent", "relevant judged", f"relevant in {where}", "first at rank")
    return Table("Intents of the query", columns, tuple(rows))


def _short(q: IntentRanking, k: int) -> list[str]:
    n = len(q.docids)
    missing = "missing rank gains" if k - n == 1 else "missing ranks gain"
    return [f"Only {counted(n, 'document')} retrieved: the {k - n} {missing} nothing"] if n < k else []


def _intents_line(q: IntentRanking, S: int) -> str:
    return (
        f"S = {S} of the query's {len(q.intents)} intents have a relevant document (grade >= {q.level}) "
        "in the intent qrels"
    )


_GAIN = (
    "gain(r) = sum over the intents the document is relevant to of (1 - alpha)^c, c = the documents above it "
    "relevant to that intent"
)


def formula(m: DiversityMeasure) -> str:
    """Measure ``m``'s formula, in words."""
    k = m.cutoff
    if m.name == "alpha_nDCG":
        return (
            f"alpha-nDCG@{k} = DCG@{k} / ideal DCG@{k}; DCG@{k} = sum over ranks r <= {k} of gain(r) / log2(r + 1); "
            + _GAIN
        )
    if m.name == "ERR_IA":
        return (
            f"ERR-IA@{k} = (sum over ranks r <= {k} of gain(r) / r) / (S * sum over ranks r <= {k} of "
            "(1 - alpha)^(r-1) / r); " + _GAIN
        )
    if m.name == "P_IA":
        return f"P-IA@{k} = (relevant (document, intent) pairs in the top {k}) / ({k} * S)"
    if m.name == "StRecall":
        return f"StRecall@{k} = (intents with a relevant document in the top {k}) / S"
    if m.name == "alpha_DCG":
        return (
            f"alpha-DCG@{k} = DCG@{k} / (S * sum over ranks r <= {k} of (1 - alpha)^(r-1) / log2(r + 1)); "
            f"DCG@{k} = sum over ranks r <= {k} of gain(r) / log2(r + 1); " + _GAIN
        )
    if m.name == "nERR_IA":
        of = f"nERR-IA@{k} = ERR-IA@{k} of the run / ERR-IA@{k} of the ideal ranking; "
        return of + formula(m._replace(name="ERR_IA"))
    if m.name == "nNRBP":
        return "nNRBP = NRBP of the run / NRBP of the ideal ranking; " + formula(m._replace(name="NRBP"))
    if m.name == "AP_IA":
        return (
            "AP-IA = (sum over the S intents of AP(intent)) / S; AP(intent) = (sum over the ranks r of the "
            "documents relevant to the intent of (its relevant documents in ranks <= r) / r) / (its relevant "
            "judged documents)"
        )
    return "NRBP = (1 - (1 - alpha) * beta) / S * (sum over every rank r of gain(r) * beta^(r-1)); " + _GAIN


def alpha_ndcg(q: IntentRanking, m: DiversityMeasure, st: Steps) -> Working:
    k = m.cutoff
    assert k is not None
    at = f"@{k}"
    rows = _gain_rows(q, m, st, "discount", "running DCG", discounted=True)
    irows = _ideal_rows(q, m, st, "discount", lambda j: math.log2(j + 2.0), "running IDCG")
    dcg = sum(r["contribution"] for r in rows)
    idcg = sum(r["contribution"] for r in irows)
    tables = (
        Table(f"The run's ranking (top {k})", _gain_columns("discount", "running DCG"), tuple(rows)),
        Table(f"The ideal ranking (top {k})", _gain_columns("discount", "running IDCG"), tuple(irows)),
        _intents(q, st, f"the top {k}"),
    )
    summary = _short(q, k) + [_intents_line(q, st.S), f"DCG{at} = {dcg:.4f}", f"Ideal DCG{at} = {idcg:.4f}"]
    if dcg == 0.0:
        value = 0.0
        summary.append(f"The ranking gains nothing in the top {k}: alpha-nDCG{at} = 0")
    elif k > 1:
        value = (dcg / st.norm) / (idcg / st.norm)
        summary.append(f"alpha-nDCG{at} = {dcg:.4f} / {idcg:.4f} = {value:.4f}")
        summary.append(
            f"(ndeval divides both by the same value first, S * sum over ranks r <= {k} of "
            f"{1.0 - m.alpha:g}^(r-1) / log2(r + 1) = {st.norm:.4f}, which can change the last digits)"
        )
    else:
        value = dcg / idcg
        summary.append(f"alpha-nDCG{at} = {dcg:.4f} / {idcg:.4f} = {value:.4f}")
    ideal = (
        "Ideal ranking: ndeval's, built greedily: at each rank the judged document with the largest gain "
        "given the ranks above it, ties to the larger document id"
    )
    return Working(formula(m), tables, tuple(summary), value, (ideal,))


def err_ia(q: IntentRanking, m: DiversityMeasure, st: Steps) -> Working:
    k = m.cutoff
    assert k is not None
    at = f"@{k}"
    rows = _gain_rows(q, m, st, "divided by", "running sum")
    terms = gain_terms(st.rows, m.alpha) if len(st.rows) else np.zeros((0, len(q.intents)))
    best = st.norm / st.S if k > 1 else 1.0  # the largest ERR one intent can have

    def per_intent(j: int) -> dict:
        err = sum(float(terms[i, j]) / (i + 1.0) for i in range(len(terms)))
        out = {"ERR of the intent": err}
        return out | ({"ERR / best": err / best} if k > 1 and q.judged.matrix[:, j].any() else {})

    total = sum(r["contribution"] for r in rows)
    tables = (
        Table(f"The run's ranking (top {k})", _gain_columns("divided by", "running sum"), tuple(rows)),
        _intents(q, st, f"the top {k}", per_intent),
    )
    summary = _short(q, k) + [_intents_line(q, st.S)]
    if k > 1:
        value = total / st.norm
        summary.append(
            f"ERR-IA{at} = {total:.4f} / ({st.S} * {best:.4f}) = {total:.4f} / {st.norm:.4f} = {value:.4f}: "
            f"the mean over the S = {st.S} intents of the intent's ERR divided by {best:.4f}, the largest an "
            f"intent's ERR can be (sum over ranks r <= {k} of {1.0 - m.alpha:g}^(r-1) / r)"
        )
    else:
        value = total
        summary.append(f"ERR-IA@1 = the gain at rank 1 = {value:.4f} (ndeval does not normalise ERR-IA@1)")
    return Working(formula(m), tables, tuple(summary), value)


def p_ia(q: IntentRanking, m: DiversityMeasure, st: Steps) -> Working:
    k = m.cutoff
    assert k is not None
    rows, running = [], 0
    for i in range(len(st.rows)):
        pairs = int(st.rows[i].sum())
        running += pairs
        rows.append(_doc(q, i, st.rows) | {"relevant pairs": pairs, "running pairs": running})

    def per_intent(j: int) -> dict:
        return {"precision": float(st.rows[:, j].sum()) / k} if q.judged.matrix[:, j].any() else {}

    pairs = sum(r["relevant pairs"] for r in rows)
    value = float(pairs) / (k * st.S)
    columns = ("rank", "docid", "grades", "relevant to", "relevant pairs", "running pairs")
    tables = (Table(f"The run's ranking (top {k})", columns, tuple(rows)), _intents(q, st, f"the top {k}", per_intent))
    summary = _short(q, k) + [
        _intents_line(q, st.S),
        f"P-IA@{k} = {pairs} relevant (document, intent) pairs / ({k} * {st.S}) = {value:.4f}: the mean over the "
        f"S = {st.S} intents of the intent's precision at {k}",
    ]
    return Working(formula(m), tables, tuple(summary), value)


def st_recall(q: IntentRanking, m: DiversityMeasure, st: Steps) -> Working:
    k = m.cutoff
    assert k is not None
    rows, covered = [], np.zeros(len(q.intents), dtype=bool)
    for i in range(len(st.rows)):
        new = st.rows[i] & ~covered
        covered |= st.rows[i]
        rows.append(_doc(q, i, st.rows) | {"new intents": _relevant_to(q, new), "covered so far": int(covered.sum())})
    count = int(covered.sum())
    value = float(count) / st.S if len(q.docids) else 0.0
    columns = ("rank", "docid", "grades", "relevant to", "new intents", "covered so far")
    tables = (Table(f"The run's ranking (top {k})", columns, tuple(rows)), _intents(q, st, f"the top {k}"))
    summary = _short(q, k) + [
        _intents_line(q, st.S),
        f"StRecall@{k} = {count} intents covered in the top {k} / S = {count}/{st.S} = {value:.4f}",
    ]
    return Working(formula(m), tables, tuple(summary), value)


def nrbp(q: IntentRanking, m: DiversityMeasure, st: Steps) -> Working:
    rows = _gain_rows(q, m, st, "beta^(rank-1)", "running sum")
    total = sum(r["contribution"] for r in rows)
    value = total * st.norm
    tables = (
        Table("The run's ranking", _gain_columns("beta^(rank-1)", "running sum"), tuple(rows)),
        _intents(q, st, "the ranking"),
    )
    a, b = 1.0 - m.alpha, m.beta
    summary = [
        _intents_line(q, st.S),
        f"NRBP = (1 - {a:g} * {b:g}) / {st.S} * {total:.4f} = {st.norm:.4f} * {total:.4f} = {value:.4f}",
    ]
    return Working(formula(m), tables, tuple(summary), value)


def alpha_dcg(q: IntentRanking, m: DiversityMeasure, st: Steps) -> Working:
    k = m.cutoff
    assert k is not None
    at = f"@{k}"
    rows = _gain_rows(q, m, st, "discount", "running DCG", discounted=True)
    dcg = sum(r["contribution"] for r in rows)
    tables = (
        Table(f"The run's ranking (top {k})", _gain_columns("discount", "running DCG"), tuple(rows)),
        _intents(q, st, f"the top {k}"),
    )
    summary = _short(q, k) + [_intents_line(q, st.S), f"DCG{at} = {dcg:.4f}"]
    if k > 1:
        value = dcg / st.norm
        summary.append(
            f'alpha-DCG{at} = {dcg:.4f} / {st.norm:.4f} = {value:.4f}: DCG{at} over ndeval\'s "ideal ideal" '
            f"value, S * sum over ranks r <= {k} of {1.0 - m.alpha:g}^(r-1) / log2(r + 1) = {st.S} * "
            f"{st.norm / st.S:.4f}, the DCG of a ranking whose every document is relevant to all S intents "
            "(not the ideal ranking of the judged documents, as alpha-nDCG's)"
        )
    else:
        value = dcg
        summary.append(f"alpha-DCG@1 = the gain at rank 1 = {value:.4f} (ndeval does not normalise alpha-DCG@1)")
    return Working(formula(m), tables, tuple(summary), value)


def _ideal_rows(q: IntentRanking, m: DiversityMeasure, st: Steps, weight: str, weight_of, running: str) -> list[dict]:
    """The rows of the kernel's ideal ranking (``st.ideal``: rows of the judged matrix), as those of the run;
    ``weight_of(j)``: the weight shown at (0-based) rank j."""
    judged = q.judged
    order = list(st.ideal)
    irel = judged.matrix[order] if order else np.zeros((0, len(q.intents)), dtype=bool)
    iseen = novelty(irel)
    assert st.ideal_gains is not None and st.ideal_scaled is not None and st.ideal_running is not None
    return [
        {"rank": j + 1, "docid": judged.ids[row], "grades": _grades_text(q, judged.ids[row])}
        | {"relevant to": _relevant_to(q, irel[j]), "gain terms": _terms_text(irel[j], iseen[j], m.alpha)}
        | {"gain": float(st.ideal_gains[j]), weight: weight_of(j)}
        | {"contribution": float(st.ideal_scaled[j]), running: float(st.ideal_running[j])}
        for j, row in enumerate(order)
    ]


_GREEDY = (
    "Ideal ranking: ndeval's, built greedily from the judged documents: at each rank the one with the largest "
    "gain given the ranks above it, ties to the larger document id"
)


def n_err_ia(q: IntentRanking, m: DiversityMeasure, st: Steps) -> Working:
    k = m.cutoff
    assert k is not None
    at = f"@{k}"
    rows = _gain_rows(q, m, st, "divided by", "running sum")
    irows = _ideal_rows(q, m, st, "divided by", lambda j: j + 1.0, "running sum")
    total = sum(r["contribution"] for r in rows)
    itotal = sum(r["contribution"] for r in irows)
    tables = (
        Table(f"The run's ranking (top {k})", _gain_columns("divided by", "running sum"), tuple(rows)),
        Table(f"The ideal ranking (top {k})", _gain_columns("divided by", "running sum"), tuple(irows)),
        _intents(q, st, f"the top {k}"),
    )
    summary = _short(q, k) + [_intents_line(q, st.S)]
    if k > 1:
        run, ideal = total / st.scale, itotal / st.scale
        summary += [
            f"ERR-IA{at} of the run = {total:.4f} / {st.scale:.4f} = {run:.4f}",
            f"ERR-IA{at} of the ideal ranking = {itotal:.4f} / {st.scale:.4f} = {ideal:.4f}",
            f'(both divided by ndeval\'s "ideal ideal" value, S * sum over ranks r <= {k} of '
            f"{1.0 - m.alpha:g}^(r-1) / r = {st.S} * {st.scale / st.S:.4f} = {st.scale:.4f})",
        ]
    else:
        run, ideal = total, itotal
        summary += [
            f"ERR-IA@1 of the run = the gain at rank 1 = {run:.4f}",
            f"ERR-IA@1 of the ideal ranking = its gain at rank 1 = {ideal:.4f} (ndeval does not normalise ERR-IA@1)",
        ]
    if run == 0.0 or ideal == 0.0:
        value = 0.0
        summary.append(f"The ranking gains nothing in the top {k}: nERR-IA{at} = 0")
    else:
        value = run / ideal
        summary.append(f"nERR-IA{at} = {run:.4f} / {ideal:.4f} = {value:.4f}")
    return Working(formula(m), tables, tuple(summary), value, (_GREEDY,))


def n_nrbp(q: IntentRanking, m: DiversityMeasure, st: Steps) -> Working:
    rows = _gain_rows(q, m, st, "beta^(rank-1)", "running sum")
    irows = _ideal_rows(q, m, st, "beta^(rank-1)", lambda j: m.beta**j, "running sum")
    total = sum(r["contribution"] for r in rows)
    itotal = sum(r["contribution"] for r in irows)
    run, ideal = total * st.scale, itotal * st.scale
    tables = (
        Table("The run's ranking", _gain_columns("beta^(rank-1)", "running sum"), tuple(rows)),
        Table(
            "The ideal ranking (every relevant judged document)",
            _gain_columns("beta^(rank-1)", "running sum"),
            tuple(irows),
        ),
        _intents(q, st, "the ranking"),
    )
    a, b = 1.0 - m.alpha, m.beta
    summary = [
        _intents_line(q, st.S),
        f"NRBP of the run = (1 - {a:g} * {b:g}) / {st.S} * {total:.4f} = {st.scale:.4f} * {total:.4f} = {run:.4f}",
        f"NRBP of the ideal ranking = {st.scale:.4f} * {itotal:.4f} = {ideal:.4f}",
    ]
    if run == 0.0 or ideal == 0.0:
        value = 0.0
        summary.append("The ranking gains nothing: nNRBP = 0")
    else:
        value = run / ideal
        summary.append(f"nNRBP = {run:.4f} / {ideal:.4f} = {value:.4f}")
    return Working(formula(m), tables, tuple(summary), value, (_GREEDY,))


def ap_ia(q: IntentRanking, m: DiversityMeasure, st: Steps) -> Working:
    n_intents = len(q.intents)
    ranking = tuple(_doc(q, i, st.rows) for i in range(len(st.rows)))
    pairs, hits, sums = [], [0] * n_intents, [0.0] * n_intents
    for i in range(len(st.rows)):
        for j in np.flatnonzero(st.rows[i]):
            hits[j] += 1
            precision = hits[j] / (i + 1.0)
            sums[j] += precision
            pairs.append(
                {"rank": i + 1, "docid": q.docids[i], "intent": q.intents[j], "relevant so far": hits[j]}
                | {"precision": precision, "intent's running sum": sums[j]}
            )
    judged = q.judged.matrix.sum(axis=0) if q.judged.matrix.shape[0] else np.zeros(n_intents, dtype=int)
    aps = [sums[j] / int(judged[j]) if judged[j] else 0.0 for j in range(n_intents)]

    def per_intent(j: int) -> dict:
        relevant = bool(judged[j])
        return {"sum of precisions": sums[j] if relevant else None, "AP": aps[j] if relevant else None}

    total = sum(aps)
    value = total / st.S
    pair_columns = ("rank", "docid", "intent", "relevant so far", "precision", "intent's running sum")
    tables = (
        Table("The run's ranking", ("rank", "docid", "grades", "relevant to"), ranking),
        Table("Relevant (rank, intent) pairs", pair_columns, tuple(pairs)),
        _intents(q, st, "the ranking", per_intent),
    )
    shown = " + ".join(f"{aps[j]:.4f}" for j in range(n_intents) if judged[j])
    summary = [
        _intents_line(q, st.S),
        "AP(intent) = the intent's sum of precisions / its relevant judged documents (those never retrieved add 0)",
        f"AP-IA = ({shown}) / {st.S} = {total:.4f} / {st.S} = {value:.4f}: the mean over the S = {st.S} intents "
        "of the intent's AP",
    ]
    return Working(formula(m), tables, tuple(summary), value)


def explainer_of(family: str):
    """The function that writes out the working of intent family ``family``, where the registry says it is
    (its ``explainer``, ``module:function``); None when its working is not written out."""
    where = INTENT_FAMILIES[family].explainer
    if where is None:
        return None
    module, _, function = where.partition(":")
    return getattr(import_module(module), function)


def explainable(m: DiversityMeasure) -> bool:
    """Whether measure ``m``'s working is written out (the registry names its explainer)."""
    return INTENT_FAMILIES[m.name].explainer is not None


def working(q: IntentRanking, m: DiversityMeasure, st: Steps) -> Working:
    """The working of measure ``m``'s value for the query of ``q`` from the kernel's steps ``st``."""
    if st.S == 0:
        rows = tuple(_doc(q, i, st.rows) for i in range(len(st.rows)))
        top = "" if m.cutoff is None else f" (top {m.cutoff})"
        tables = (Table(f"The run's ranking{top}", ("rank", "docid", "grades", "relevant to"), rows),)
        summary = (
            f"No intent of the query has a relevant document (grade >= {q.level}) in the intent qrels: S = 0, "
            f"and {m.name.replace('_', '-')} is 0",
        )
        return Working(formula(m), tables, summary, 0.0)
    explain = explainer_of(m.name)
    if explain is None:
        raise ValueError(f"{m}: its working is not written out")
    return explain(q, m, st)
