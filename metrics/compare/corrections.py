"""Multiple-testing corrections: every method of statsmodels' ``multipletests``, in numpy (and scipy's isotonic
regression for ``lfdr``), so that comparisons need no statsmodels (1.25 s to import).

Each takes the valid p-values sorted ascending and returns the adjusted p-values in that order (capped at 1);
:func:`adjust_pvalues` sorts, puts them back in place and leaves NaN entries out of the family.  The numbers
are statsmodels' (``multipletests(p, alpha, method)[1]``), which the tests compare with for every method;
``alpha`` matters to the two-stage methods only (``tsbh``, ``tsbky``), whose adjusted p-values depend on it.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from metrics.stat_methods import canonical_correction

__all__ = ["adjust_pvalues"]


def _down(n: int) -> np.ndarray:
    return np.arange(n, 0, -1, dtype=np.float64)  # m, m-1, ..., 1


def _cummin_from_end(x: np.ndarray) -> np.ndarray:
    return np.minimum.accumulate(x[::-1])[::-1]


def _bonferroni(p: np.ndarray, alpha: float) -> np.ndarray:
    return p * len(p)


def _sidak(p: np.ndarray, alpha: float) -> np.ndarray:
    return -np.expm1(len(p) * np.log1p(-p))


def _holm(p: np.ndarray, alpha: float) -> np.ndarray:
    return np.maximum.accumulate(p * _down(len(p)))


def _holm_sidak(p: np.ndarray, alpha: float) -> np.ndarray:
    return np.maximum.accumulate(-np.expm1(_down(len(p)) * np.log1p(-p)))


def _hochberg(p: np.ndarray, alpha: float) -> np.ndarray:
    return _cummin_from_end(_down(len(p)) * p)


def _hommel(p: np.ndarray, alpha: float) -> np.ndarray:
    """Hommel's closed procedure on Simes tests, statsmodels' loop (m - 1 steps of numpy work each)."""
    a = p.copy()
    for m in range(len(p), 1, -1):
        cim = np.min(m * p[-m:] / np.arange(1, m + 1.0))
        a[-m:] = np.maximum(a[-m:], cim)
        a[:-m] = np.maximum(a[:-m], np.minimum(m * p[:-m], cim))
    return a


def _fdr(p: np.ndarray, negative: bool = False) -> np.ndarray:
    """Benjamini-Hochberg (Benjamini-Yekutieli with ``negative``): ``min_{j>=i} m p_(j) / (j c)``."""
    ecdf = np.arange(1, len(p) + 1) / len(p)
    if negative:
        ecdf = ecdf / np.sum(1.0 / np.arange(1, len(p) + 1))
    return np.minimum(_cummin_from_end(p / ecdf), 1.0)


def _bh(p: np.ndarray, alpha: float) -> np.ndarray:
    return _fdr(p)


def _by(p: np.ndarray, alpha: float) -> np.ndarray:
    return _fdr(p, negative=True)


def _two_stage(p: np.ndarray, alpha: float, bky: bool) -> np.ndarray:
    """Two-stage FDR (statsmodels' ``fdrcorrection_twostage``, one iteration): BH at alpha' (alpha / (1 + alpha)
    for Benjamini-Krieger-Yekutieli), the number of true nulls estimated from its rejections, then BH again."""
    m = len(p)
    fact = 1.0 + alpha if bky else 1.0
    alpha_prime = alpha / fact
    corrected = _fdr(p)
    passing = np.flatnonzero(p <= np.arange(1, m + 1) / m * alpha_prime)
    rejected = int(passing[-1]) + 1 if len(passing) else 0  # BH rejects every p-value up to the last passing
    if rejected in (0, m):
        return corrected * fact
    return corrected * ((m - rejected) / m) * fact


def _tsbh(p: np.ndarray, alpha: float) -> np.ndarray:
    return _two_stage(p, alpha, bky=False)


def _tsbky(p: np.ndarray, alpha: float) -> np.ndarray:
    return _two_stage(p, alpha, bky=True)


def _gbs(p: np.ndarray, alpha: float) -> np.ndarray:
    """Gavrilov-Benjamini-Sarkar's adaptive step-down."""
    i = np.arange(1, len(p) + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = (len(p) + 1.0 - i) / i * p / (1.0 - p)
    return _cummin_from_end(np.maximum.accumulate(q))


def _lfdr(p: np.ndarray, alpha: float) -> np.ndarray:
    """The local false discovery rate (Grenander estimate of the p-values' density, all hypotheses null):
    ``min(1, 1 / f(p))``, ``f`` the left-hand slope of the least concave majorant of the empirical cdf, found
    by a decreasing isotonic regression of the slopes between distinct p-values (statsmodels' ``lfdr``); a
    p-value of 0, where statsmodels' regression fails, gets 0."""
    from scipy.optimize import isotonic_regression

    zero = int(np.count_nonzero(p == 0))  # an infinite density at 0 (statsmodels stops there): lfdr 0
    distinct, counts = np.unique(p[zero:], return_counts=True)
    gaps = np.diff(distinct, prepend=0)
    if not len(distinct):
        return np.zeros(len(p))
    slopes = isotonic_regression(counts / (len(p) * gaps), weights=gaps, increasing=False).x
    return np.concatenate([np.zeros(zero), np.minimum(1.0, 1.0 / np.repeat(slopes, counts))])


_ADJUST: dict[str, Callable[[np.ndarray, float], np.ndarray]] = {
    "bonferroni": _bonferroni,
    "sidak": _sidak,
    "holm": _holm,
    "holm-sidak": _holm_sidak,
    "hochberg": _hochberg,
    "hommel": _hommel,
    "bh": _bh,
    "by": _by,
    "tsbh": _tsbh,
    "tsbky": _tsbky,
    "gbs": _gbs,
    "lfdr": _lfdr,
}


def adjust_pvalues(p_values, method: str = "holm", alpha: float = 0.05) -> np.ndarray:
    """Adjust a family of p-values for multiple testing.

    ``method``: a correction of :data:`metrics.stat_methods.CORRECTIONS` (``"none"``, ``"bonferroni"``,
    ``"holm"``, ``"bh"``, ``"holm-sidak"``, ... or any of statsmodels' ``multipletests`` spellings:
    ``"fdr_bh"``, ``"hs"``, ``"fdr_tsbky"``).  Bonferroni is ``min(1, m p)``; Holm the step-down
    ``max_{j<=i} min(1, (m - j + 1) p_(j))``; Benjamini-Hochberg the step-up ``min_{j>=i} min(1, m p_(j) / j)``;
    the others as statsmodels computes them.  ``alpha``: the level of the two-stage FDR methods.  NaN entries
    stay NaN and are not counted in the family size ``m``.
    """
    method = canonical_correction(method)
    p = np.asarray(p_values, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError("p_values must be one-dimensional")
    valid = ~np.isnan(p)
    if ((p[valid] < 0) | (p[valid] > 1)).any():
        raise ValueError("p-values must lie in [0, 1]")
    out = p.copy()
    if method == "none" or not valid.any():
        return out
    q = p[valid]
    order = np.argsort(q, kind="stable")
    back = np.empty(len(q))
    back[order] = np.minimum(_ADJUST[method](q[order], float(alpha)), 1.0)
    out[valid] = back
    return out
