"""Was a run reproduced?  The measures of Breuer et al., "How to Measure the Reproducibility of
System-oriented IR Experiments" (SIGIR 2020), with the values of their ``repro_eval`` package (0.5).

Their terms are ACM's (2020): a **reproducibility** study is another team's run on the same test
collection (here: the same qrels, ``qrels_reproduced`` not given), a **replicability** study one on
another collection (``qrels_reproduced``: the reproduced runs are scored against it).

* Reproducibility, per run (the ``advanced`` run, and the ``baseline`` when given): Kendall's tau union
  (KTU) and rank-biased overlap (RBO) of the original and reproduced rankings per query, and their mean;
  the RMSE and nRMSE of the per-query scores of each measure; the two-sided paired t-test of the
  per-query scores (:func:`scipy.stats.ttest_rel`).
* Replicability: the topics differ, so only the unpaired t-test (:func:`scipy.stats.ttest_ind`) and
  the effects below; KTU, RBO and RMSE are not computable there.
* Both, with the baseline pair: the effect ratio ``ER = mean_q(rep_a - rep_b) / mean_q(orig_a - orig_b)``
  and the delta relative improvement ``DeltaRI = RI_orig - RI_rep``, ``RI = (mean(a) - mean(b)) / mean(b)``.

Where repro_eval's conventions differ from trec_eval's, this follows repro_eval:

* The rankings KTU and RBO compare are the runs' lines in the order given (the file's), each stretch of
  equal scores put in reverse document-id order (repro_eval's ``break_ties``: trec_eval's order when the
  file is sorted by score), cut at ``depth`` (1000: repro_eval's ``RUN_LENGTH`` and ``RBO_DEPTH``).  The
  scores are trec_eval's (:func:`metrics.evaluate`) of the first ``depth`` documents.
* KTU is repro_eval's: the two rankings' documents are numbered by their place in the sorted union of
  both lists' ids, and Kendall's tau-b is taken between the i-th original and the i-th reproduced
  document's numbers (rounded to 14 decimals); two lists of different lengths give NaN for that query.
* RBO is repro_eval's (Clarke et al.'s code): not extrapolated, ``sum_{d=1..depth} p^(d-1) |A_d ∩ B_d| / d``
  over ``sum p^(d-1)``, with ``p = rbo_p`` (0.95), however short the lists are.
* nRMSE divides the RMSE by ``sqrt(mean_q max(x_q, 1 - x_q)^2)`` of the original scores ``x``.
* A t-test whose p-value is NaN (all differences alike) gives 1 when the two score lists are identical.

The queries compared: for rankings, those both runs answer; for RMSE and the paired t-test, those both
runs are scored on (queries of the qrels they answer); for ER, those both runs of a pair are scored on;
each mean of DeltaRI is over the run's own scored queries.  Where repro_eval's inputs had the same
queries everywhere, these are its values (the tests check them to 1e-9).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

from metrics.engine.settings import Settings
from metrics.judgments.common import not_computable, qrels_frame, report_progress, runs_frames

__all__ = ["Reproduction", "reproduction", "DEFAULT_MEASURES", "ktu", "rbo"]

#: the measures compared when none are named
DEFAULT_MEASURES = ("map", "P.10", "ndcg_cut.10")


@dataclass
class Reproduction:
    """What :func:`reproduction` found.  ``rankings``: ``role, original, reproduced, queries, ktu, rbo``
    (role ``advanced`` and, with the baseline pair, ``baseline``); ``per_query``: ``role, query_id, ktu,
    rbo``; ``scores``: ``role, measure, original, reproduced`` (the means), ``rmse, nrmse, p_value``;
    ``effects``: ``measure, er, dri``.  NaN's reasons in ``not_computable``."""

    kind: str
    depth: int
    rbo_p: float
    rankings: pd.DataFrame
    per_query: pd.DataFrame
    scores: pd.DataFrame
    effects: pd.DataFrame
    not_computable: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)


def _ranking_lists(run, depth: int) -> dict:
    """query -> the document ids in repro_eval's order (see the module's note), the first ``depth``."""
    frame = run[["query_id", "doc_id", "score"]]
    out: dict = {}
    for qid, part in frame.groupby(frame["query_id"].astype(str), sort=False):
        docs = part["doc_id"].astype(str).tolist()
        scores = part["score"].to_numpy(dtype=np.float64).tolist()
        first: dict = {}
        for d, s in zip(docs, scores):  # a dict, as repro_eval reads it: the first place, the last score
            first[d] = s
        items = list(first.items())
        ordered: list = []
        i = 0
        while i < len(items):
            j = i
            while j < len(items) and items[j][1] == items[i][1]:
                j += 1
            ordered += sorted(items[i:j], reverse=True)
            i = j
        out[qid] = [d for d, _ in ordered[:depth]]
    return out


def ktu(original: list, reproduced: list) -> float:
    """repro_eval's Kendall's tau union of two rankings (lists of document ids; see the module's note)."""
    from scipy.stats import kendalltau

    if len(original) != len(reproduced) or len(original) < 2:
        return float("nan")
    union = {doc: i for i, doc in enumerate(sorted(set(original) | set(reproduced)))}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tau = kendalltau([union[d] for d in original], [union[d] for d in reproduced]).statistic
    return float(round(tau, 14)) if math.isfinite(tau) else float("nan")


def rbo(original: list, reproduced: list, p: float = 0.95, depth: int = 1000) -> float:
    """repro_eval's rank-biased overlap of two rankings to ``depth`` (see the module's note)."""
    where = {doc: i for i, doc in enumerate(original[:depth])}
    deepest = np.array([max(where[d], i) for i, d in enumerate(reproduced[:depth]) if d in where], dtype=np.int64)
    overlap = np.cumsum(np.bincount(deepest, minlength=depth)[:depth])  # |A_d ∩ B_d| for d = 1..depth
    weights = p ** np.arange(depth, dtype=np.float64)
    return float((weights * overlap / np.arange(1, depth + 1)).sum() / weights.sum())


def _per_query_scores(qrels, run, measures, settings: Settings):
    """A frame query_id x measure of ``run``'s values (the queries of ``qrels`` it answers)."""
    from metrics.engine.evaluate import evaluate
    from metrics.errors import NoSharedQueries

    try:
        ev = evaluate(qrels, {"run": run}, measures, settings=settings)
    except NoSharedQueries as exc:
        ev = exc.evaluation
    table = ev.per_query
    table = table[table["query_id"] != "all"]
    wide = table.pivot(index="query_id", columns="measure", values="value").reindex(columns=ev.measure_names())
    return wide.astype(np.float64), ev.measure_names()


def _p_value(x, y, paired: bool) -> float:
    """``ttest_rel``'s p-value (by the comparisons' own t-test, the same numbers) or ``ttest_ind``'s."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if len(x) < 2 or len(y) < 2:
        return float("nan")
    if paired:
        from metrics.compare.statistics import paired_t_pvalues

        p = float(paired_t_pvalues((x - y)[np.newaxis, :])[0])
    else:
        from scipy.stats import ttest_ind

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            p = float(ttest_ind(x, y).pvalue)
    if math.isnan(p) and len(x) == len(y) and np.array_equal(x, y):
        return 1.0
    return p


def reproduction(
    original,
    reproduced,
    qrels,
    baseline_original=None,
    baseline_reproduced=None,
    qrels_reproduced=None,
    measures=DEFAULT_MEASURES,
    *,
    depth: int = 1000,
    rbo_p: float = 0.95,
    settings: Settings | None = None,
    progress=None,
) -> Reproduction:
    """Compare a reproduced run with the original (and a reproduced baseline with its original, for ER and
    DeltaRI): see the module's note.  Runs: a path or a frame each; ``qrels``: the original's (and the
    reproduced runs' too unless ``qrels_reproduced`` is given).  ``progress(fraction)`` returning False
    raises :class:`metrics.errors.Cancelled`.  ``settings``: what the runs are scored under (None:
    trec_eval's), each cut at ``depth`` (trec_eval's ``-M``) as the rankings compared are."""
    import pandas as pd

    if (baseline_original is None) != (baseline_reproduced is None):
        raise ValueError("the baseline goes in pairs: give both baseline_original and baseline_reproduced, or neither")
    if depth < 1 or not 0.0 < rbo_p < 1.0:
        raise ValueError(f"depth must be 1 or more and rbo_p strictly between 0 and 1, not {depth} and {rbo_p}")
    kind = "reproducibility" if qrels_reproduced is None else "replicability"
    scored_under = Settings.of(settings).replace(max_docs=depth)
    roles = {"advanced": (original, reproduced)}
    if baseline_original is not None:
        roles["baseline"] = (baseline_original, baseline_reproduced)
    q_orig = qrels_frame(qrels)
    q_rep = q_orig if qrels_reproduced is None else qrels_frame(qrels_reproduced)
    measures = [measures] if isinstance(measures, str) else list(measures)
    why: dict[str, str] = {}
    notes: list[str] = []
    ranking_rows, query_rows, score_rows = [], [], []
    scored: dict = {}
    steps = 2 * len(roles) + 1
    for step, (role, pair) in enumerate(roles.items()):
        (label_o, run_o), (label_r, run_r) = runs_frames([pair[0], pair[1]]).items()
        report_progress(progress, 2 * step / steps)
        orig, names = _per_query_scores(q_orig, run_o, measures, scored_under)
        rep, _ = _per_query_scores(q_rep, run_r, measures, scored_under)
        scored[role] = (orig, rep)
        report_progress(progress, (2 * step + 1) / steps)
        if kind == "reproducibility":
            lists_o, lists_r = _ranking_lists(run_o, depth), _ranking_lists(run_r, depth)
            shared = [q for q in lists_r if q in lists_o]
            if set(lists_o) != set(lists_r):
                notes.append(
                    f"{role}: the runs answer different queries; KTU and RBO are over the {len(shared)} both answer"
                )
            k = [ktu(lists_o[q], lists_r[q]) for q in shared]
            r = [rbo(lists_o[q], lists_r[q], rbo_p, depth) for q in shared]
            query_rows += [(role, q, a, b) for q, a, b in zip(shared, k, r)]
            if any(math.isnan(v) for v in k):
                why["ktu"] = not_computable("a query's two rankings differ in length or hold fewer than two documents")
            mean_k = float(np.mean(k)) if k and not any(math.isnan(v) for v in k) else float("nan")
            mean_r = float(np.mean(r)) if r else float("nan")
            ranking_rows.append((role, label_o, label_r, len(shared), mean_k, mean_r))
        if kind == "reproducibility" and set(orig.index) != set(rep.index):
            notes.append(
                f"{role}: the original and the reproduced run are scored on different queries; RMSE and the "
                "paired t-test are over the queries both are scored on, each mean over the run's own"
            )
        for name in names:
            x, y = orig[name].dropna(), rep[name].dropna()
            rmse = nrmse = float("nan")
            if kind == "reproducibility":
                both = x.index.intersection(y.index)
                if len(both):
                    d = x[both].to_numpy() - y[both].to_numpy()
                    rmse = math.sqrt(float(np.square(d).sum()) / len(d))
                    worst = math.sqrt(float(np.square(np.maximum(x[both], 1 - x[both])).sum()) / len(both))
                    nrmse = rmse / worst if worst > 0 else float("nan")
                    p = _p_value(x[both].to_numpy(), y[both].to_numpy(), paired=True)
                else:
                    p = float("nan")
                    why["rmse"] = not_computable("no query is scored for both the original and the reproduced run")
            else:
                p = _p_value(x.to_numpy(), y.to_numpy(), paired=False)
            score_rows.append((role, name, float(x.mean()), float(y.mean()), rmse, nrmse, p))
    if kind == "replicability":
        for key in ("ktu", "rbo", "rmse", "nrmse"):
            why[key] = not_computable(
                "the reproduced runs answer other topics (replicability): only ER, DeltaRI and "
                "the unpaired t-test compare them"
            )
    effects = _effects(scored, names, why)
    report_progress(progress, 1.0)
    return Reproduction(
        kind=kind,
        depth=depth,
        rbo_p=rbo_p,
        rankings=pd.DataFrame(ranking_rows, columns=["role", "original", "reproduced", "queries", "ktu", "rbo"]),
        per_query=pd.DataFrame(query_rows, columns=["role", "query_id", "ktu", "rbo"]),
        scores=pd.DataFrame(
            score_rows, columns=["role", "measure", "original", "reproduced", "rmse", "nrmse", "p_value"]
        ),
        effects=_frame_of(effects),
        not_computable=why,
        notes=notes,
    )


def _effects(scored: dict, names: list, why: dict) -> list:
    if "baseline" not in scored:
        why["er"] = why["dri"] = not_computable("ER and DeltaRI need the baseline pair (original and reproduced)")
        return [(name, float("nan"), float("nan")) for name in names]
    rows = []
    (orig_a, rep_a), (orig_b, rep_b) = scored["advanced"], scored["baseline"]
    for name in names:
        mi = []
        for a, b in ((orig_a[name].dropna(), orig_b[name].dropna()), (rep_a[name].dropna(), rep_b[name].dropna())):
            both = a.index.intersection(b.index)
            mi.append(float((a[both] - b[both]).mean()) if len(both) else float("nan"))
        er = mi[1] / mi[0] if mi[0] != 0 and math.isfinite(mi[0]) else float("nan")
        if not math.isfinite(er):
            why["er"] = not_computable(
                "the original runs do not differ on average (mean improvement 0), or share no query"
            )
        ri = []
        for a, b in ((orig_a[name], orig_b[name]), (rep_a[name], rep_b[name])):
            mean_a, mean_b = float(a.dropna().mean()), float(b.dropna().mean())
            ri.append((mean_a - mean_b) / mean_b if mean_b != 0 else float("nan"))
        dri = ri[0] - ri[1]
        if not math.isfinite(dri):
            why["dri"] = not_computable("a baseline scores 0 on average: its relative improvement is 0/0 or infinite")
        rows.append((name, er, dri))
    return rows


def _frame_of(rows):
    import pandas as pd

    return pd.DataFrame(rows, columns=["measure", "er", "dri"])
