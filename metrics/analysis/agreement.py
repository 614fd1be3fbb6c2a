"""Do the measures agree?  Kendall's tau between the orderings of the runs by each pair of measures,
and the pairs of runs whose order flips from one measure to the other.

Runs are ordered by their summary value of each measure (trec_eval's ``all`` value: the mean over
the queries for most measures).  Tau is :func:`scipy.stats.kendalltau`'s tau-b, which counts a tie
in either ordering as neither agreeing nor disagreeing (1: the same order, -1: the reverse).  A pair
of runs flips when one measure puts the first above the second and the other puts it below; a tie
under either measure is no flip.
"""

from __future__ import annotations

import numpy as np

__all__ = ["summary_values", "measure_agreement", "ranking_flips"]


def summary_values(results):
    """The summary values of ``results``: an evaluation (:class:`metrics.Evaluation`, whose
    :meth:`~metrics.Evaluation.summary` is taken) or a frame of them already (index: runs, one
    column per measure)."""
    return results.summary() if hasattr(results, "summary") and callable(results.summary) else results


def _chosen(summary, measures):
    if measures is None:
        return summary
    missing = [m for m in measures if m not in summary.columns]
    if missing:
        raise ValueError(f"not evaluated: {', '.join(map(str, missing))} (evaluated: {', '.join(summary.columns)})")
    return summary[list(measures)]


def measure_agreement(results, measures=None, *, with_p: bool = False):
    """Kendall's tau-b between the orderings of the runs by every two measures: a square frame, one row
    and one column per measure (``measures``, default every one of ``results``), 1 on the diagonal,
    NaN where an ordering is constant or fewer than two runs are scored by both.  ``with_p``: a long
    frame ``measure_a, measure_b, runs, tau, p_value`` of every pair (a before b) instead."""
    import warnings

    import pandas as pd
    from scipy.stats import ConstantInputWarning, kendalltau

    summary = _chosen(summary_values(results), measures)
    names = [str(c) for c in summary.columns]
    values = summary.to_numpy(dtype=np.float64)
    m = len(names)
    tau = np.eye(m)
    rows = []
    for i in range(m):
        for j in range(i + 1, m):
            known = np.isfinite(values[:, i]) & np.isfinite(values[:, j])
            t, p = np.nan, np.nan
            if known.sum() >= 2:
                with warnings.catch_warnings():  # a measure that gives every run one value: tau is NaN
                    warnings.simplefilter("ignore", ConstantInputWarning)
                    result = kendalltau(values[known, i], values[known, j])
                t, p = float(result.statistic), float(result.pvalue)
            tau[i, j] = tau[j, i] = t
            rows.append((names[i], names[j], int(known.sum()), t, p))
    if with_p:
        return pd.DataFrame(rows, columns=["measure_a", "measure_b", "runs", "tau", "p_value"])
    return pd.DataFrame(tau, index=pd.Index(names, name="measure"), columns=names)


def ranking_flips(results, measures=None):
    """Every pair of runs whose order flips between two measures: a frame ``measure_a, measure_b, run_a,
    run_b, diff_a`` (run_a's value minus run_b's by measure_a), ``diff_b`` (the same by measure_b, of the
    other sign); pairs of measures and of runs in their order in ``results`` (a before b)."""
    import pandas as pd

    summary = _chosen(summary_values(results), measures)
    names = [str(c) for c in summary.columns]
    runs = np.array([str(r) for r in summary.index], dtype=object)
    values = summary.to_numpy(dtype=np.float64)
    ia, ib = np.triu_indices(len(runs), 1)
    diffs = values[ia] - values[ib]  # (pairs of runs, measures)
    parts = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            flip = np.flatnonzero(diffs[:, i] * diffs[:, j] < 0)
            parts.append(
                pd.DataFrame(
                    {
                        "measure_a": names[i],
                        "measure_b": names[j],
                        "run_a": runs[ia[flip]],
                        "run_b": runs[ib[flip]],
                        "diff_a": diffs[flip, i],
                        "diff_b": diffs[flip, j],
                    }
                )
            )
    columns = ["measure_a", "measure_b", "run_a", "run_b", "diff_a", "diff_b"]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=columns)
