"""Do two sets of judgments rank the systems alike?  Every run scored on one measure under each qrels
(through :func:`metrics.evaluate`, trec_eval's semantics), its rank under each, and between the two
orderings of the runs:

* Kendall's tau-b (:func:`scipy.stats.kendalltau`: a tie in either ordering counts as neither agreeing
  nor disagreeing) and its p-value;
* tau_AP (Yilmaz, Aslam and Robertson, SIGIR 2008), which weighs a swap near the top more than one
  near the bottom: with the runs in the order of one ranking, ``C(i)`` the runs above the i-th that
  the other (the reference) also puts above it, ``tau_AP = 2 / (N - 1) * sum_{i=2..N} C(i) / (i - 1) - 1``.
  It is not symmetric: ``tau_ap`` takes qrels a as the reference (the runs ordered by qrels b),
  ``tau_ap_ba`` qrels b.  Ties in an ordering are broken by the order the runs are given (a stable
  sort on the score, highest first);
* the pairs of runs whose order flips (one qrels puts the first above, the other below; a tie under
  either is no flip), each difference with the p-value of a paired t-test over the queries both runs
  were scored on under that qrels (:func:`scipy.stats.ttest_rel`), and whether it is below ``alpha``;
* per run, how its per-query scores under a and under b go together: Pearson's r and Kendall's tau-b
  over the queries it is scored on under both (``query_pearson``, ``query_kendall``), and per query,
  Kendall's tau-b between the orderings of the runs by that query's scores (``per_query``).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

from metrics.engine.settings import Settings
from metrics.judgments.common import not_computable, qrels_frame, report_progress, runs_frames

__all__ = ["SystemAgreement", "system_agreement"]


@dataclass
class SystemAgreement:
    """What :func:`system_agreement` found.  ``scores``: a frame ``run, queries_a, score_a, rank_a,
    queries_b, score_b, rank_b, query_pearson, query_kendall`` (rank 1 the best; tied runs share the
    best rank of their group).  ``flips``: ``run_a, run_b, diff_a, p_a, significant_a, diff_b, p_b,
    significant_b`` (diff: run_a's score minus run_b's under that qrels).  ``per_query``: ``query_id,
    runs, tau``.  A NaN value's reason is in ``not_computable``; ``notes`` tell what else to know."""

    measure: str
    alpha: float
    tau: float
    tau_p: float
    tau_ap: float
    tau_ap_ba: float
    scores: pd.DataFrame
    flips: pd.DataFrame
    per_query: pd.DataFrame
    not_computable: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)


def _tau_ap(reference: np.ndarray, other: np.ndarray) -> float:
    """tau_AP of the ordering of the items by ``other`` against the reference ordering by
    ``reference`` (Yilmaz, Aslam and Robertson 2008; higher scores first, ties broken by position).
    The same as ``metrics.analysis``'s tau_AP where both are given (written here to keep this floor
    apart from that one)."""
    reference = np.asarray(reference, dtype=np.float64)
    other = np.asarray(other, dtype=np.float64)
    n = len(reference)
    if n < 2:
        return float("nan")
    place = np.empty(n, dtype=np.int64)  # each item's position in the reference ordering
    place[np.argsort(-reference, kind="stable")] = np.arange(n)
    seen: list[int] = []
    total = 0.0
    for i, item in enumerate(np.argsort(-other, kind="stable")):
        if i:
            total += bisect.bisect_left(seen, place[item]) / i  # C(i): above it in both orderings
        bisect.insort(seen, place[item])
    return 2.0 * total / (n - 1) - 1.0


def _kendall(x, y) -> tuple[float, float]:
    from scipy.stats import kendalltau

    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return float("nan"), float("nan")
    result = kendalltau(x, y)
    return float(result.statistic), float(result.pvalue)


def _pearson(x, y) -> float:
    from scipy.stats import pearsonr

    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return float("nan")
    return float(pearsonr(x, y).statistic)


def paired_p(x, y) -> float:
    """The two-sided p-value of the paired t-test of ``x`` against ``y`` (NaN below two pairs; 1 where
    every difference is 0, as there is then no evidence of a difference): ``scipy.stats.ttest_rel``'s, by the
    comparisons' own t-test (:func:`metrics.compare.statistics.paired_t_pvalues`)."""
    from metrics.compare.statistics import paired_t_pvalues

    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if len(x) < 2:
        return float("nan")
    d = x - y
    if np.all(d == d[0]):
        return 1.0 if d[0] == 0 else 0.0
    return float(paired_t_pvalues(d[np.newaxis, :])[0])


def _scored(qrels, runs: dict, measure, settings: Settings):
    """(per-query scores as a frame query_id x run, the summary value of each run) under ``qrels``."""
    from metrics.engine.evaluate import evaluate
    from metrics.errors import NoSharedQueries

    try:
        ev = evaluate(qrels, runs, [measure], settings=settings)
    except NoSharedQueries as exc:
        ev = exc.evaluation
    name = ev.measure_names()[0]
    table = ev.per_query
    table = table[(table["measure"] == name) & (table["query_id"] != "all")]
    wide = table.pivot(index="query_id", columns="run", values="value").reindex(columns=list(runs))
    summary = ev.summary().reindex(index=list(runs))[name].to_numpy(dtype=np.float64)
    return wide.astype(np.float64), summary, name


def system_agreement(
    runs,
    qrels_a,
    qrels_b,
    measure="map",
    *,
    alpha: float = 0.05,
    settings: Settings | None = None,
    progress=None,
) -> SystemAgreement:
    """Score ``runs`` (anything :func:`metrics.evaluate` takes: paths, frames, a dict label -> run) on
    ``measure`` under ``qrels_a`` and under ``qrels_b`` and compare the two orderings of the runs (see
    the module's note).  ``progress(fraction)`` returning False raises :class:`metrics.errors.Cancelled`.
    One run, or runs that no qrels scores, give the scores and NaN for what needs two runs, with the
    reason in ``not_computable``.  ``settings``: what the runs are scored under, with either qrels (None:
    trec_eval's)."""
    import pandas as pd
    from scipy.stats import rankdata

    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie strictly between 0 and 1, not {alpha}")
    runs = runs_frames(runs)
    names = list(runs)
    report_progress(progress, 0.0)
    settings = Settings.of(settings)
    wide_a, mean_a, name = _scored(qrels_frame(qrels_a), runs, measure, settings)
    report_progress(progress, 0.4)
    wide_b, mean_b, _ = _scored(qrels_frame(qrels_b), runs, measure, settings)
    report_progress(progress, 0.8)
    why: dict[str, str] = {}
    notes: list[str] = []
    known = np.isfinite(mean_a) & np.isfinite(mean_b)

    def rank(values):
        out = pd.array([pd.NA] * len(values), dtype="Int64")
        ok = np.isfinite(values)
        out[ok] = rankdata(-values[ok], method="min").astype(np.int64)
        return out

    rows = []
    for j, run in enumerate(names):
        both = wide_a[run].dropna().index.intersection(wide_b[run].dropna().index)
        x, y = wide_a.loc[both, run].to_numpy(), wide_b.loc[both, run].to_numpy()
        rows.append(
            (run, int(wide_a[run].notna().sum()), int(wide_b[run].notna().sum()), _pearson(x, y), _kendall(x, y)[0])
        )
    scores = pd.DataFrame(rows, columns=["run", "queries_a", "queries_b", "query_pearson", "query_kendall"])
    scores.insert(2, "score_a", mean_a)
    scores.insert(3, "rank_a", rank(mean_a))
    scores.insert(5, "score_b", mean_b)
    scores.insert(6, "rank_b", rank(mean_b))
    scores = scores[["run", "queries_a", "score_a", "rank_a", "queries_b", "score_b", "rank_b"]].join(
        scores[["query_pearson", "query_kendall"]]
    )
    if scores["query_pearson"].isna().any():
        why["query_pearson"] = not_computable(
            "a run has fewer than two queries scored under both qrels, or the same score on all of them"
        )
    if known.sum() < 2:
        reason = "it needs two runs scored under both qrels" + (" (one run given)" if len(names) == 1 else "")
        for key in ("tau", "tau_p", "tau_ap", "tau_ap_ba"):
            why[key] = not_computable(reason)
        tau = tau_p = tau_ap = tau_ap_ba = float("nan")
    else:
        tau, tau_p = _kendall(mean_a[known], mean_b[known])
        if not np.isfinite(tau):
            why["tau"] = why["tau_p"] = not_computable("every run has the same score under one of the qrels")
        tau_ap = _tau_ap(mean_a[known], mean_b[known])
        tau_ap_ba = _tau_ap(mean_b[known], mean_a[known])
    query_sets = {frozenset(wide_a[r].dropna().index) for r in names} | {
        frozenset(wide_b[r].dropna().index) for r in names
    }
    if len(query_sets) > 1:
        notes.append(
            "the runs are scored on different sets of queries: each mean is over the run's own queries, and each "
            "t-test over the queries both runs have (complete=True scores a missing query as 0)"
        )
    flips = _flips(names, mean_a, mean_b, wide_a, wide_b, alpha)
    per_query = _per_query_tau(wide_a, wide_b)
    report_progress(progress, 1.0)
    return SystemAgreement(
        measure=name,
        alpha=alpha,
        tau=tau,
        tau_p=tau_p,
        tau_ap=tau_ap,
        tau_ap_ba=tau_ap_ba,
        scores=scores,
        flips=flips,
        per_query=per_query,
        not_computable=why,
        notes=notes,
    )


def _flips(names, mean_a, mean_b, wide_a, wide_b, alpha):
    import pandas as pd

    rows = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            da, db = mean_a[i] - mean_a[j], mean_b[i] - mean_b[j]
            if not da * db < 0:
                continue
            p = []
            for wide in (wide_a, wide_b):
                pair = wide[[names[i], names[j]]].dropna()
                p.append(paired_p(pair[names[i]], pair[names[j]]))
            rows.append((names[i], names[j], da, p[0], p[0] < alpha, db, p[1], p[1] < alpha))
    columns = ["run_a", "run_b", "diff_a", "p_a", "significant_a", "diff_b", "p_b", "significant_b"]
    return pd.DataFrame(rows, columns=columns)


def _per_query_tau(wide_a, wide_b):
    import pandas as pd

    rows = []
    for qid in wide_a.index.intersection(wide_b.index):
        x, y = wide_a.loc[qid].to_numpy(), wide_b.loc[qid].to_numpy()
        ok = np.isfinite(x) & np.isfinite(y)
        rows.append((str(qid), int(ok.sum()), _kendall(x[ok], y[ok])[0]))
    return pd.DataFrame(rows, columns=["query_id", "runs", "tau"])
