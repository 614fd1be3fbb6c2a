"""Aggregates: how a family's "all" value is made from its per-query values (trec_eval's ``meas_avg.c``)."""

from __future__ import annotations

import math

import numpy as np

MIN_GEO_MEAN = 0.00001

# An aggregate maps the per-query values of one measure (trec order) and the
# ranking to the "all" value.  Sums are sequential in query order, as in C.


def _seq_sum(values: np.ndarray) -> float:
    return float(np.cumsum(values)[-1]) if len(values) else 0.0


def num_queries(r) -> int:
    # trec_eval -c divides by the number of qrels queries
    return r.num_qrels_queries if r.complete else r.n_queries


def mean(values: np.ndarray, r) -> float:
    """Arithmetic mean over the evaluated queries (all qrels queries with -c)."""
    n = num_queries(r)
    s = _seq_sum(values)
    return s / n if n else s


def geometric_mean(values: np.ndarray, r) -> float:
    """exp(mean(log(max(v, MIN_GEO_MEAN)))), trec_eval's gm_map/gm_bpref."""
    n = num_queries(r)
    if n == 0:
        return 0.0
    logs = np.log(np.maximum(values, MIN_GEO_MEAN))
    s = _seq_sum(logs)
    if r.complete:
        s += (n - len(values)) * math.log(MIN_GEO_MEAN)
    return math.exp(s / n)


def total(values: np.ndarray, r) -> float:
    """Sum over queries (num_ret, num_rel_ret, ...)."""
    return _seq_sum(values)


def count(values: np.ndarray, r) -> float:
    """Number of queries averaged over (num_q)."""
    return float(num_queries(r))


def no_summary(values, r):
    return None
