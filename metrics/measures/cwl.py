"""User-model measures of the C/W/L framework, as cwl_eval 1.0.12 computes them: INST, INSQ, BPM, SDCG.

C/W/L (Moffat et al.; Azzopardi, Thomas and Moffat, SIGIR 2019) describes a
measure by the probability c_i that a user goes on from rank i to rank i+1.
cwl_eval (ir_measures' cwl_eval provider) computes the expected utility per
document examined:

    W_1 = 1 / sum_{i=1..N} prod_{j<i} c_j,   W_i = W_1 prod_{j<i} c_j,
    value = sum_{i=1..N} W_i g_i

over N = 1000 ranks (cwl_eval's ``max_n``): the ranking is cut there, or
padded with documents of gain 0.  The gain g_i of a judged document is its
grade clipped to [min_rel, max_rel] and scaled to [0, 1]:
``(min(max(grade, min_rel), max_rel) - min_rel) / (max_rel - min_rel)``, a
negative grade counting as 0 (ir_measures' provider clips them); a document
outside the qrels gains 0.  ``min_rel`` defaults to 0 (it must be >= 0 here);
``max_rel`` is required by ir_measures' names; the default of the canonical
names (``inst``) is the highest grade judged for the evaluated queries.
With G_i the gain accumulated to rank i (inclusive), i counted from 1:

* ``inst`` -- INST (Moffat et al., ADCS 2015): c_i = ((i + T + T_i - 1) /
  (i + T + T_i))**2 with T_i = T - G_i; T the gain the user wants (1).
* ``insq`` -- INSQ (Moffat et al., ADCS 2012): c_i = ((i + 2T - 1) / (i + 2T))**2.
* ``bpm`` -- the static Bejeweled Player Model (Zhang et al., SIGIR 2017)
  with a budget of k documents: c_i = 1 while G_i < T and i < k, else 0.
* ``sdcg`` -- scaled DCG at k: c_i = log(i + 1) / log(i + 2) for i < k, else 0,
  i.e. sum_{i<=k} g_i / log2(i + 1) divided by sum_{i<=k} 1 / log2(i + 1).

Each is a mean over queries.  cwl_eval sums with numpy's pairwise sums and
dot products; the values here agree with it to about 1e-15.
"""

from __future__ import annotations

import functools
import math
from typing import Callable

import numpy as np

from metrics.measures.registry import LongCutoffs, measure

__all__ = ["CWL_DEPTH", "block_of", "cwl_gains", "cwl_levels", "continuation", "expected_utility_parts"]

#: ranks of the C/W/L user model (cwl_eval's max_n)
CWL_DEPTH = 1000
_ROWS = 1024  # queries per block: (rows, CWL_DEPTH) matrices stay at a few MB


def cwl_levels(r, min_rel="0", max_rel="") -> tuple[float, float]:
    """The grade range [min_rel, max_rel] the gains are scaled from (max_rel: the highest grade judged)."""
    try:
        lo = float(min_rel)
        hi = float(r.rel_levels.shape[1] - 1 if str(max_rel).strip() == "" else max_rel)
    except ValueError:
        raise ValueError(f"min_rel and max_rel must be numbers, not {min_rel!r}, {max_rel!r}") from None
    if lo < 0:
        raise ValueError(f"min_rel must be >= 0 here, not {min_rel!r}")
    if str(max_rel).strip() != "" and hi <= lo:
        raise ValueError(f"max_rel ({max_rel}) must be above min_rel ({min_rel})")
    return lo, hi


def cwl_gains(r, min_rel="0", max_rel="", rows: slice | None = None) -> np.ndarray:
    """Gains of the first CWL_DEPTH ranks of the queries ``rows`` (all by default), a (queries,
    CWL_DEPTH) matrix."""
    lo, hi = cwl_levels(r, min_rel, max_rel)
    rows = slice(0, r.n_queries) if rows is None else rows
    g = np.zeros((rows.stop - rows.start, CWL_DEPTH))
    span = slice(int(r.offsets[rows.start]), int(r.offsets[rows.stop]))
    rel, rank, qidx = r.rel[span], r.rank[span], r.qidx[span]
    keep = (rank < CWL_DEPTH) & (rel >= 0)
    if hi > lo:
        grade = np.minimum(np.maximum(rel[keep].astype(np.float64), lo), hi)
        g[qidx[keep] - rows.start, rank[keep]] = (grade - lo) / (hi - lo)
    return g


def expected_utility_parts(gains: np.ndarray, cont: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(reach, W, sum W_i g_i) per row, from the continuation probabilities ``cont`` (rows, N): reach_i the
    probability of reaching rank i (prod_{j<i} c_j), W_i = reach_i / sum of reach."""
    reach = np.ones_like(cont, dtype=np.float64)
    reach[:, 1:] = np.cumprod(cont[:, :-1], axis=1)
    w1 = 1.0 / reach.sum(axis=1)
    weights = reach * w1[:, None]
    return reach, weights, np.einsum("ij,ij->i", weights, gains)


def _expected_utility(gains: np.ndarray, cont: np.ndarray) -> np.ndarray:
    """sum W_i g_i per row, W from the continuation probabilities ``cont`` (rows, N)."""
    return expected_utility_parts(gains, cont)[2]


def _blocks(r):
    """Row slices of at most _ROWS queries: the (rows, CWL_DEPTH) matrices stay at a few MB."""
    for lo in range(0, r.n_queries, _ROWS):
        yield slice(lo, min(lo + _ROWS, r.n_queries))


def block_of(r, qi: int) -> slice:
    """The row slice of :func:`_blocks` that holds query ``qi``: a query's value is computed with the others
    of its block (numpy's sums over a matrix of rows, whose last bits can differ from those over one row)."""
    lo = (qi // _ROWS) * _ROWS
    return slice(lo, min(lo + _ROWS, r.n_queries))


def _t(value) -> float:
    try:
        return float(value)
    except ValueError:
        raise ValueError(f"T must be a number, not {value!r}") from None


_OPTIONS = {"T": "1", "min_rel": "0", "max_rel": ""}
_I = np.arange(1.0, CWL_DEPTH + 1.0)  # ranks counted from 1


def _inst(g, k, T="1", **_):
    t = _t(T)
    ti = t - np.cumsum(g, axis=1)
    return ((_I + t + ti - 1.0) / (_I + t + ti)) ** 2.0


def _insq(g, k, T="1", **_):
    t = _t(T)
    return np.broadcast_to(((_I + 2.0 * t - 1.0) / (_I + 2.0 * t)) ** 2.0, g.shape)


def _bpm(g, k, T="1", **_):
    return ((np.cumsum(g, axis=1) < _t(T)) & (_I < k)).astype(np.float64)


def _sdcg(g, k, **_):
    return np.broadcast_to(_sdcg_continuation(int(k)), g.shape)


def _nerr8(g, k, **_):
    return (_I < k).astype(np.float64) * (1.0 - g)


def _nerr9(g, k, **_):
    return np.where(_I < k, _I / (_I + 1.0), 0.0) * (1.0 - g)


def _phi(p) -> float:
    try:
        return float(p)
    except ValueError:
        raise ValueError(f"p must be a number, not {p!r}") from None


def _nerr10(g, k, p="0.9", **_):
    return np.full(CWL_DEPTH, _phi(p)) * (1.0 - g)


def _nerr11(g, k, T="1", **_):
    t = _t(T)
    return ((_I + 2.0 * t - 1.0) / (_I + 2.0 * t)) ** 2.0 * (1.0 - g)


#: family -> its continuation probabilities c_i from the gains (rows, N), the cutoff k and its options
_CONTINUATIONS: dict[str, Callable[..., np.ndarray]] = {
    "inst": _inst,
    "insq": _insq,
    "bpm": _bpm,
    "sdcg": _sdcg,
    "nerr8": _nerr8,
    "nerr9": _nerr9,
    "nerr10": _nerr10,
    "nerr11": _nerr11,
}


def continuation(family: str, gains: np.ndarray, k: int | None = None, **options) -> np.ndarray:
    """The continuation probabilities c_i (rows, N) of C/W/L family ``family`` for the gains (rows, N)
    of :func:`cwl_gains`, at cutoff ``k`` (bpm, sdcg, nerr8, nerr9), with its options (``T``, ``p``)."""
    return _CONTINUATIONS[family](gains, k, **options)


@measure("inst", ir_measures="INST", options=_OPTIONS)
def inst(r, *, T="1", min_rel="0", max_rel=""):
    """INST (C/W/L, as cwl_eval): continuation c_i = ((i + T + T_i - 1) / (i + T + T_i))^2 with T_i = T
    minus the gain accumulated to rank i, gains the grades scaled from [min_rel, max_rel] to [0, 1];
    expected utility per document over 1000 ranks.  Summary: mean."""
    _t(T)
    out = np.zeros(r.n_queries)
    for rows in _blocks(r):
        g = cwl_gains(r, min_rel, max_rel, rows)
        out[rows] = _expected_utility(g, continuation("inst", g, T=T))
    return out


@measure("insq", ir_measures="INSQ", options=_OPTIONS)
def insq(r, *, T="1", min_rel="0", max_rel=""):
    """INSQ (C/W/L, as cwl_eval): continuation c_i = ((i + 2T - 1) / (i + 2T))^2; gains the grades
    scaled from [min_rel, max_rel] to [0, 1]; expected utility per document over 1000 ranks.
    Summary: mean."""
    _t(T)
    out = np.zeros(r.n_queries)
    for rows in _blocks(r):
        g = cwl_gains(r, min_rel, max_rel, rows)
        out[rows] = _expected_utility(g, continuation("insq", g, T=T))
    return out


@measure("bpm", params=LongCutoffs(10), ir_measures="BPM", options=_OPTIONS)
def bpm(r, cutoffs, *, T="1", min_rel="0", max_rel=""):
    """Static Bejeweled Player Model (C/W/L, as cwl_eval) with a budget of k documents: the user goes on
    while the gain so far is below T and fewer than k documents are read; gains the grades scaled from
    [min_rel, max_rel] to [0, 1].  Summary: mean."""
    _t(T)
    out = np.zeros((r.n_queries, len(cutoffs)))
    for rows in _blocks(r):
        g = cwl_gains(r, min_rel, max_rel, rows)
        for j, k in enumerate(cutoffs):
            out[rows, j] = _expected_utility(g, continuation("bpm", g, k, T=T))
    return out


@functools.lru_cache(maxsize=16)
def _sdcg_continuation(k: int) -> np.ndarray:
    """cwl_eval's c_i = log(i + 1) / log(i + 2) (base 2, through math.log) for i < k, else 0 (read-only)."""
    table = np.array([math.log(i + 1, 2.0) / math.log(i + 2, 2.0) if i < k else 0.0 for i in range(1, CWL_DEPTH + 1)])
    table.flags.writeable = False
    return table


@measure("sdcg", params=LongCutoffs(10), ir_measures="SDCG", options={"min_rel": "0", "max_rel": ""})
def sdcg(r, cutoffs, *, min_rel="0", max_rel=""):
    """Scaled DCG at k (C/W/L, as cwl_eval): sum over the first k ranks of gain / log2(i + 1), divided by
    sum over i <= k of 1 / log2(i + 1); gains the grades scaled from [min_rel, max_rel] to [0, 1].
    Summary: mean."""
    out = np.zeros((r.n_queries, len(cutoffs)))
    for rows in _blocks(r):
        g = cwl_gains(r, min_rel, max_rel, rows)
        for j, k in enumerate(cutoffs):
            out[rows, j] = _expected_utility(g, continuation("sdcg", g, k))
    return out


# NERR: the "not (but nearly) ERR" measures of Azzopardi, Mackenzie and Moffat (ICTIR 2021), cwl_eval's
# NERReq8 to NERReq11: ERR's stopping at a document in proportion to its gain, as a C/W/L continuation
# c_i = f_i (1 - g_i), g_i the gain of rank i scaled to [0, 1] and f_i the model each adds:
#   NERR8@k   f_i = 1 for i < k, else 0 (truncated at k)
#   NERR9@k   f_i = i / (i + 1) for i < k, else 0
#   NERR10    f_i = p (RBP's patience, 0.9)
#   NERR11    f_i = ((i + 2T - 1) / (i + 2T))^2 (INSQ's, T = 1)


def _nerr(r, family: str, k, min_rel, max_rel, **options) -> np.ndarray:
    """Expected utility per document with the continuation f_i * (1 - gain) of NERR ``family``."""
    out = np.zeros(r.n_queries)
    for rows in _blocks(r):
        g = cwl_gains(r, min_rel, max_rel, rows)
        out[rows] = _expected_utility(g, continuation(family, g, k, **options))
    return out


_GAIN_RANGE = {"min_rel": "0", "max_rel": ""}


@measure("nerr8", params=LongCutoffs(10), ir_measures="NERR8", options=_GAIN_RANGE)
def nerr8(r, cutoffs, *, min_rel="0", max_rel=""):
    """NERR, Eq. 8 (cwl_eval's NERReq8): continuation c_i = 1 - g_i for i < k, else 0; gains the grades
    scaled from [min_rel, max_rel] to [0, 1]; expected utility per document.  Summary: mean."""
    out = np.zeros((r.n_queries, len(cutoffs)))
    for j, k in enumerate(cutoffs):
        out[:, j] = _nerr(r, "nerr8", k, min_rel, max_rel)
    return out


@measure("nerr9", params=LongCutoffs(10), ir_measures="NERR9", options=_GAIN_RANGE)
def nerr9(r, cutoffs, *, min_rel="0", max_rel=""):
    """NERR, Eq. 9 (cwl_eval's NERReq9): continuation c_i = i / (i + 1) (1 - g_i) for i < k, else 0;
    gains the grades scaled from [min_rel, max_rel] to [0, 1].  Summary: mean."""
    out = np.zeros((r.n_queries, len(cutoffs)))
    for j, k in enumerate(cutoffs):
        out[:, j] = _nerr(r, "nerr9", k, min_rel, max_rel)
    return out


@measure("nerr10", ir_measures="NERR10", options={"p": "0.9", **_GAIN_RANGE})
def nerr10(r, *, p="0.9", min_rel="0", max_rel=""):
    """NERR, Eq. 10 (cwl_eval's NERReq10): continuation c_i = p (1 - g_i) over 1000 ranks; gains the
    grades scaled from [min_rel, max_rel] to [0, 1].  Summary: mean."""
    _phi(p)
    return _nerr(r, "nerr10", None, min_rel, max_rel, p=p)


@measure("nerr11", ir_measures="NERR11", options=_OPTIONS)
def nerr11(r, *, T="1", min_rel="0", max_rel=""):
    """NERR, Eq. 11 (cwl_eval's NERReq11): continuation c_i = ((i + 2T - 1) / (i + 2T))^2 (1 - g_i) over
    1000 ranks; gains the grades scaled from [min_rel, max_rel] to [0, 1].  Summary: mean."""
    _t(T)
    return _nerr(r, "nerr11", None, min_rel, max_rel, T=T)
