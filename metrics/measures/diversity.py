"""Novelty and diversity measures over intent-annotated qrels, as ndeval computes them.

ndeval (TREC Web track 2009-2014; ``ndeval.c`` 4.5, the code of pyndeval and
of ir_measures' pyndeval provider) judges each document per intent
(subtopic) of a query.  A document is relevant to an intent when its grade
for that intent is >= the relevance level (``rel``, default 1; negative
grades never are).  ``S`` is the number of intents of the query with at
least one relevant document.  The gain of the document at rank i (0-based)
is ``g_i = sum over its relevant intents j of (1 - alpha)**c_ij``, c_ij
being the number of documents above rank i relevant to intent j (the
redundancy penalty; the sum runs over the intents in the order they first
appear in the qrels, powers formed by repeated multiplication, as ndeval).

Each family is declared once, in the registry (:func:`metrics.measures.registry.intent_measure`: its
names, parameters, label and convention, which the measures page shows), and its kernel is registered
here with :func:`~metrics.measures.registry.kernel`; :func:`steps` calls the kernel of the measure's
family.

Every measure is 0 for a query with S = 0 (where ndeval's nNRBP is 0 / 0, NaN, which would make
the mean NaN: the one value that differs from ndeval's).  The ranking is trec_eval's
(score descending, ties by docid descending); pyndeval breaks ties by docid
ascending and ndeval by default reads the rank column, so with tied scores
the three can differ.  ndeval stops at rank 20 (its ``DEPTH``); cutoffs here
have no limit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# the names, read apart from the kernels (metrics.measures.diversity_syntax); importable from here as before
from metrics.measures.diversity_syntax import DIVERSITY_NAMES, DiversityMeasure, parse_diversity
from metrics.measures.registry import INTENT_FAMILIES, kernel

__all__ = [
    "DiversityMeasure",
    "parse_diversity",
    "DIVERSITY_NAMES",
    "query_values",
    "steps",
    "Steps",
    "gain_terms",
    "novelty",
    "relevant_intents",
]


# ------------------------------------------------------------------ kernels


def _powers(x: float, n: int, start: float = 1.0) -> np.ndarray:
    """start * x**i for i < n by repeated multiplication (ndeval's running products)."""
    out = np.empty(max(n, 0))
    v = start
    for i in range(len(out)):
        out[i] = v
        v *= x
    return out


def _discounts(n: int) -> np.ndarray:
    """ndeval's discount(i) = log(2) / log(i + 2), 1 at rank 0."""
    return np.array([1.0] + [math.log(2.0) / math.log(i + 2.0) for i in range(1, n)])[:n]


def novelty(rel: np.ndarray) -> np.ndarray:
    """c_ij for a (ranks, intents) boolean matrix: the documents above rank i relevant to intent j."""
    return np.cumsum(rel, axis=0) - rel


def gain_terms(rel: np.ndarray, alpha: float) -> np.ndarray:
    """(1 - alpha)**c_ij where the document at rank i is relevant to intent j, else 0: the terms of g_i."""
    table = _powers(1.0 - alpha, rel.shape[0] + 1)
    return np.where(rel, table[novelty(rel)], 0.0)


def _gains(rel: np.ndarray, alpha: float) -> np.ndarray:
    """g_i for a (ranks, intents) boolean matrix, summed over the intents left to right."""
    if rel.shape[0] == 0 or rel.shape[1] == 0:
        return np.zeros(rel.shape[0])
    return np.add.accumulate(gain_terms(rel, alpha), axis=1)[:, -1]


def _ideal_order(rel: np.ndarray, doc_ids: list[str], alpha: float, depth: int) -> list[int]:
    """ndeval's greedy ideal ranking of the judged documents (rows of ``rel``), first ``depth`` ranks:
    the largest gain given the ranks above, ties to the larger docid.  Documents relevant to no intent
    gain 0 wherever they go, so only the relevant ones are ranked."""
    candidates = np.flatnonzero(rel.any(axis=1))
    order: list[int] = []
    if not len(candidates) or depth <= 0:
        return order
    sub = rel[candidates]
    by_docid = np.argsort(np.argsort(np.array([doc_ids[i] for i in candidates], dtype=object)))  # docid rank
    gain = np.ones(rel.shape[1])
    left = np.ones(len(candidates), dtype=bool)
    for _ in range(min(depth, len(candidates))):
        # ndeval adds the gains of a document's intents one by one, in intent order
        scores = np.add.accumulate(np.where(sub, gain, 0.0), axis=1)[:, -1]
        scores = np.where(left, scores, -1.0)
        best = scores.max()
        tied = np.flatnonzero(scores == best)
        pick = tied[np.argmax(by_docid[tied])]
        left[pick] = False
        order.append(int(candidates[pick]))
        gain = np.where(sub[pick], gain * (1.0 - alpha), gain)
    return order


def _prefix(values: np.ndarray, depth: int) -> np.ndarray:
    """Running sums of the first ``depth`` values, padded with zeros (ndeval's arrays)."""
    out = np.zeros(depth)
    n = min(depth, len(values))
    out[:n] = values[:n]
    return np.cumsum(out)


@dataclass(frozen=True)
class Steps:
    """How one measure's value for one query is reached, as :func:`query_values` reaches it (the explanation
    of the value shows these numbers rank by rank).

    ``S``: the query's intents with a relevant document; ``rows``: the (ranks read, intents) relevance of the
    ranking (its first k ranks, or all of it for NRBP); ``gains``: g_i of those ranks (alpha-nDCG, ERR-IA,
    NRBP); ``weights``: what each gain is multiplied by (alpha-nDCG: the discount 1 / log2(i + 2); NRBP:
    beta**i) or divided by (ERR-IA: i + 1); ``scaled``: the gains so weighted; ``running``: their running
    sums; ``total``: the sum the value is made of (DCG@k, the ERR sum, the relevant (document, intent) pairs,
    the intents covered, the NRBP sum); ``norm``: what it is divided by (alpha-nDCG: ndeval's "ideal ideal"
    value; ERR-IA: S sum_{i<k} (1 - alpha)**i / (i + 1); P-IA: k S; StRecall: S) or for NRBP multiplied by
    ((1 - (1 - alpha) beta) / S); 1 where nothing is.  alpha-nDCG's ideal ranking: ``ideal`` the rows of the
    judged matrix in its order, ``ideal_gains``, ``ideal_scaled``, ``ideal_running``, ``ideal_total``; nERR-IA's
    and nNRBP's the same (their ``total``: the ranking's ERR-IA or NRBP, ``norm``: the ideal ranking's), and
    ``scale``: what both sums are divided by (ERR-IA's "ideal ideal" value; 1 for k = 1) or multiplied by
    (NRBP's (1 - (1 - alpha) beta) / S) to give them."""

    value: float
    S: int
    rows: np.ndarray
    gains: np.ndarray | None = None
    weights: np.ndarray | None = None
    scaled: np.ndarray | None = None
    running: np.ndarray | None = None
    total: float = 0.0
    norm: float = 1.0
    ideal: tuple[int, ...] = ()
    ideal_gains: np.ndarray | None = None
    ideal_scaled: np.ndarray | None = None
    ideal_running: np.ndarray | None = None
    ideal_total: float = 0.0
    scale: float = 1.0


def relevant_intents(judged: np.ndarray) -> int:
    """S: the intents (columns of the judged matrix) with at least one relevant document."""
    return int(judged.any(axis=0).sum()) if judged.shape[0] else 0


def _discounted_gains(m: DiversityMeasure, ranked, S: int) -> tuple[int, np.ndarray, np.ndarray, dict]:
    """alpha-nDCG's and alpha-DCG's numerator: the cutoff k, the discounts 1 / log2(i + 2), the running sums
    of the first k ranks' novelty-discounted gains over them, and those rows as the working shows them."""
    k = m.cutoff
    assert k is not None
    disc = _discounts(k)
    rows = ranked[:k]
    g = _gains(rows, m.alpha)
    scaled = g * disc[: len(g)]
    dcg = _prefix(scaled, k)
    return k, disc, dcg, dict(S=S, rows=rows, gains=g, weights=disc[: len(g)], scaled=scaled, running=dcg[: len(g)])


def _ideal_ideal(m: DiversityMeasure, S: int, disc: np.ndarray) -> float:
    """ndeval's "ideal ideal" discounted gain at k: S sum_{i<k} (1 - alpha)**i / log2(i + 2) (1 for k = 1,
    where ndeval does not divide)."""
    k = m.cutoff
    assert k is not None
    return float(np.cumsum(_powers(1.0 - m.alpha, k, float(S)) * disc)[k - 1]) if k > 1 else 1.0


def _alpha_ndcg_steps(m: DiversityMeasure, ranked, judged, judged_ids, S: int, ideal: bool) -> Steps:
    k, disc, dcg, base = _discounted_gains(m, ranked, S)
    if dcg[k - 1] == 0.0 and not ideal:
        return Steps(0.0, total=0.0, **base)
    order = _ideal_order(judged, judged_ids, m.alpha, k)
    ig = _gains(judged[order], m.alpha)
    iscaled = ig * disc[: len(ig)]
    idcg = _prefix(iscaled, k)
    more = dict(ideal=tuple(order), ideal_gains=ig, ideal_scaled=iscaled, ideal_running=idcg[: len(ig)])
    ii = _ideal_ideal(m, S, disc)
    if k > 1:  # ndeval divides both by the same "ideal ideal" value first
        value = float((dcg[k - 1] / ii) / (idcg[k - 1] / ii)) if dcg[k - 1] != 0.0 else 0.0
    else:
        value = float(dcg[0] / idcg[0]) if dcg[0] != 0.0 else 0.0
    return Steps(value, total=float(dcg[k - 1]), norm=ii, ideal_total=float(idcg[k - 1]), **base, **more)


def _err_ia_steps(m: DiversityMeasure, ranked, S: int) -> Steps:
    k = m.cutoff
    assert k is not None
    rows = ranked[:k]
    g = _gains(rows, m.alpha)
    ranks = np.arange(1.0, len(g) + 1.0)
    scaled = g / ranks
    err = _prefix(scaled, k)
    ideal = np.cumsum(_powers(1.0 - m.alpha, k, float(S)) / np.arange(1.0, k + 1.0))
    base = dict(S=S, rows=rows, gains=g, weights=ranks, scaled=scaled, running=err[: len(g)], total=float(err[k - 1]))
    if k > 1:
        return Steps(float(err[k - 1] / ideal[k - 1]), norm=float(ideal[k - 1]), **base)
    return Steps(float(err[0]), **base)  # ndeval does not normalise ERR-IA@1


def _nrbp_steps(m: DiversityMeasure, ranked, S: int) -> Steps:
    g = _gains(ranked, m.alpha)
    decays = _powers(m.beta, len(g))
    scaled = g * decays
    running = np.cumsum(scaled)  # added rank after rank, as ndeval adds them
    total = float(running[-1]) if len(running) else 0.0
    factor = (1 - (1 - m.alpha) * m.beta) / S
    return Steps(total * factor, S, ranked, g, decays, scaled, running, total=total, norm=factor)


def _normalised(value: float, ideal: float) -> float:
    return value / ideal if value != 0.0 and ideal != 0.0 else 0.0


def _over_ideal(own: Steps, ideal: Steps, order: list[int], S: int) -> Steps:
    """The steps of ``own`` with its value divided by that of the ideal ranking's, ``ideal`` (of the judged
    documents in ``order``), ndeval's normalised measures: nERR-IA, nNRBP."""
    return Steps(
        _normalised(own.value, ideal.value),
        S,
        own.rows,
        own.gains,
        own.weights,
        own.scaled,
        own.running,
        total=own.value,
        norm=ideal.value,
        ideal=tuple(order),
        ideal_gains=ideal.gains,
        ideal_scaled=ideal.scaled,
        ideal_running=ideal.running,
        ideal_total=ideal.total,
        scale=own.norm,
    )


# The kernels, one registered function per family declared in the registry (metrics.measures.registry:
# intent_measure), each f(m, ranked, judged, judged_ids, S, ideal) -> Steps for a query with S > 0.


@kernel("alpha_nDCG")
def alpha_ndcg(m: DiversityMeasure, ranked, judged, judged_ids, S: int, ideal: bool = False) -> Steps:
    """alpha-nDCG@k, its ideal ranking built (with ``ideal``) also when the ranking gains nothing."""
    return _alpha_ndcg_steps(m, ranked, judged, judged_ids, S, ideal)


@kernel("ERR_IA")
def err_ia(m: DiversityMeasure, ranked, judged, judged_ids, S: int, ideal: bool = False) -> Steps:
    """ERR-IA@k over ndeval's "ideal ideal" value (not divided for k = 1)."""
    return _err_ia_steps(m, ranked, S)


@kernel("P_IA")
def p_ia(m: DiversityMeasure, ranked, judged, judged_ids, S: int, ideal: bool = False) -> Steps:
    """P-IA@k: the relevant (document, intent) pairs of the first k ranks over k S."""
    k = m.cutoff
    assert k is not None
    total = float(ranked[:k].sum())
    return Steps(total / (k * S), S, ranked[:k], total=total, norm=float(k * S))


@kernel("StRecall")
def st_recall(m: DiversityMeasure, ranked, judged, judged_ids, S: int, ideal: bool = False) -> Steps:
    """StRecall@k: the intents the first k ranks cover, over S."""
    k = m.cutoff
    assert k is not None
    covered = float(ranked[:k].any(axis=0).sum())
    return Steps(covered / S if len(ranked) else 0.0, S, ranked[:k], total=covered, norm=float(S))


@kernel("NRBP")
def nrbp(m: DiversityMeasure, ranked, judged, judged_ids, S: int, ideal: bool = False) -> Steps:
    """NRBP over the whole ranking."""
    return _nrbp_steps(m, ranked, S)


@kernel("alpha_DCG")
def alpha_dcg(m: DiversityMeasure, ranked, judged, judged_ids, S: int, ideal: bool = False) -> Steps:
    """alpha-DCG@k: the ranking's sum of g_i / log2(i + 2) over its first k ranks, divided by ndeval's "ideal
    ideal" value S sum_{i<k} (1 - alpha)**i / log2(i + 2) (not for k = 1, as ndeval)."""
    k, disc, dcg, base = _discounted_gains(m, ranked, S)
    ii = _ideal_ideal(m, S, disc)
    return Steps(float(dcg[k - 1] / ii), total=float(dcg[k - 1]), norm=ii, **base)


@kernel("nERR_IA")
def n_err_ia(m: DiversityMeasure, ranked, judged, judged_ids, S: int, ideal: bool = False) -> Steps:
    """nERR-IA@k: ERR-IA@k of the ranking divided by that of ndeval's ideal ranking."""
    k = m.cutoff
    assert k is not None
    order = _ideal_order(judged, judged_ids, m.alpha, k)
    return _over_ideal(_err_ia_steps(m, ranked, S), _err_ia_steps(m, judged[order], S), order, S)


@kernel("nNRBP")
def n_nrbp(m: DiversityMeasure, ranked, judged, judged_ids, S: int, ideal: bool = False) -> Steps:
    """nNRBP: NRBP of the ranking divided by that of ndeval's ideal ranking (of every relevant document)."""
    order = _ideal_order(judged, judged_ids, m.alpha, judged.shape[0])
    return _over_ideal(_nrbp_steps(m, ranked, S), _nrbp_steps(m, judged[order], S), order, S)


@kernel("AP_IA")
def ap_ia(m: DiversityMeasure, ranked, judged, judged_ids, S: int, ideal: bool = False) -> Steps:
    """AP-IA (ndeval's MAP-IA): the mean over the S intents of each intent's average precision, the precision
    at the rank of each document relevant to it summed and divided by its relevant judged documents."""
    hits = np.cumsum(ranked, axis=0)  # (ranks, intents)
    ranks = np.arange(1.0, ranked.shape[0] + 1.0)[:, None]
    precisions = np.where(ranked, hits / ranks, 0.0)
    # added rank after rank, and the intents' APs one after the other, as ndeval adds them
    precision_sums = np.add.accumulate(precisions, axis=0)[-1] if len(precisions) else np.zeros(ranked.shape[1])
    relevant = judged.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        per_intent = np.where(relevant > 0, precision_sums / relevant, 0.0)
    total = float(np.add.accumulate(per_intent)[-1])
    return Steps(total / S, S, ranked, total=total, norm=float(S))


def steps(m: DiversityMeasure, ranked: np.ndarray, judged: np.ndarray, judged_ids: list[str], ideal=False) -> Steps:
    """How :func:`query_values` reaches measure ``m``'s value for one query (arguments as there): the kernel
    registered for ``m``'s family (:data:`metrics.measures.registry.KERNELS`); ``ideal``: alpha-nDCG's ideal
    ranking also when the ranking gains nothing (the value is 0 then, and the kernel does not build it)."""
    S = relevant_intents(judged)
    if S == 0:
        return Steps(0.0, S, ranked if m.cutoff is None else ranked[: m.cutoff])
    return INTENT_FAMILIES[m.name].kernel_function()(m, ranked, judged, judged_ids, S, ideal)


def query_values(ranked: np.ndarray, judged: np.ndarray, judged_ids: list[str], measures) -> dict:
    """Values of ``measures`` (DiversityMeasure) for one query.

    ``ranked``: (retrieved, intents) boolean relevance of the ranking, best rank first (rows of zeros for
    documents outside the qrels); ``judged``: (judged documents, intents) boolean relevance from the qrels
    at the measure's level, ``judged_ids`` their ids.  Both at the same relevance level; the caller
    groups measures by level."""
    return {m: steps(m, ranked, judged, judged_ids).value for m in measures}
