"""Set measures (the ranking taken as an unordered set): utility, set_P,
set_relative_P, set_recall, set_map, set_F."""

from __future__ import annotations

import numpy as np

from metrics.measures.registry import DoubleParams, measure


@measure("utility", params=DoubleParams(1.0, -1.0, 0.0, 0.0, count=4, what="coefficients"))
def utility(r, params):
    """p1*a + p2*b + p3*c + p4*d with a = relevant retrieved, b = non-relevant
    retrieved, c = relevant not retrieved, d = non-relevant not retrieved in a
    collection of ``num_docs_in_coll`` documents (trec_eval's -N, default 0:
    d is then negative, as in trec_eval).  Exactly four parameters.
    0 for a -c placeholder query (default parameters only, as trec_eval).  Summary: mean."""
    if len(params) != 4:
        raise ValueError("utility: improper number of coefficients (need 4)")
    p = [float(v) for v in params]
    a = r.num_rel_ret.astype(np.float64)
    ret = r.num_ret.astype(np.float64)
    rel = r.num_rel.astype(np.float64)
    val = p[0] * a + p[1] * (ret - a) + p[2] * (rel - a) + p[3] * (r.num_docs_in_coll + a - ret - rel)
    if tuple(p) == (1.0, -1.0, 0.0, 0.0):
        # trec_eval resets a -c placeholder query's value only under the
        # plain name "utility"
        val = np.where(r.placeholder, 0.0, val)
    return val


@measure("set_P", ir_measures="SetP")
def set_precision(r):
    """num_rel_ret / num_ret; 0 when nothing is retrieved."""
    return np.where(r.num_ret > 0, r.num_rel_ret / np.maximum(r.num_ret, 1), 0.0)


@measure("set_relative_P", ir_measures="SetRelP")
def set_relative_precision(r):
    """num_rel_ret / min(num_ret, num_rel); 0 when either is 0."""
    d = np.minimum(r.num_ret, r.num_rel)
    return np.where(d > 0, r.num_rel_ret / np.maximum(d, 1), 0.0)


@measure("set_recall", ir_measures="SetR")
def set_recall(r):
    """num_rel_ret / num_rel; 0 without relevant docs."""
    return np.where(r.num_rel > 0, r.num_rel_ret / np.maximum(r.num_rel, 1), 0.0)


@measure("set_map", ir_measures="SetAP")
def set_map(r):
    """num_rel_ret^2 / (num_ret * num_rel) (set precision times set recall);
    0 when num_ret or num_rel is 0."""
    a = r.num_rel_ret.astype(np.float64)
    d = r.num_ret.astype(np.float64) * r.num_rel.astype(np.float64)
    return np.where(d > 0, (a * a) / np.where(d > 0, d, 1.0), 0.0)


@measure("set_F", params=DoubleParams(1.0), ir_measures="SetF")
def set_f(r, params):
    """(x+1) P R / (x P + R) with set precision P, set recall R and x = the
    parameter (default 1); 0 when no relevant doc is retrieved."""
    x = float(params[0])
    a = r.num_rel_ret.astype(np.float64)
    P = a / np.maximum(r.num_ret, 1)
    R = a / np.maximum(r.num_rel, 1)
    return np.where(a > 0, (x + 1.0) * P * R / (x * P + R), 0.0)
