"""How values are presented, decided once for the window and the reports: which value is best.

A measure that only counts or names things (``num_q``, ``num_ret``, ``num_rel``,
``num_nonrel_judged_ret``, ``runid``, ``relstring``: the families registered as
``neutral``, see :mod:`metrics.measures.registry`) has no best value; for every
other measure the best is the highest (or the lowest, for measures the caller
names as lower-is-better), and values within :data:`TOLERANCE` of it are best
too, so that two runs equal but for rounding in the last bit are both marked.
Where every run has the same value, none is marked.
"""

from __future__ import annotations

import numpy as np

from metrics.measures import is_neutral

__all__ = ["TOLERANCE", "is_neutral", "best_mask"]

TOLERANCE = 1e-12


def best_mask(values, lower: bool = False) -> np.ndarray:
    """Which of ``values`` (one per run) are the best; none when fewer than two are finite or all tie."""
    values = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(values)
    if finite.sum() < 2 or np.ptp(values[finite]) <= TOLERANCE:
        return np.zeros(values.shape, dtype=bool)
    best = values[finite].min() if lower else values[finite].max()
    return finite & (np.abs(values - best) <= TOLERANCE)
