"""How values are presented, decided once for the window, the reports and the terminal: which value is
best, how a p-value is written, which mark a significant difference gets.

A measure that only counts or names things (``num_q``, ``num_ret``, ``num_rel``,
``num_nonrel_judged_ret``, ``runid``, ``relstring``: the families registered as
``neutral``, see :mod:`metrics.measures.registry`) has no best value; for every
other measure the best is the highest (or the lowest, for measures the caller
names as lower-is-better), and values within :data:`TOLERANCE` of it are best
too, so that two runs equal but for rounding in the last bit are both marked.
Where every run has the same value, none is marked.
"""

from __future__ import annotations

import math

import numpy as np

from metrics.measures import is_neutral

__all__ = [
    "TOLERANCE",
    "HIGHER",
    "LOWER",
    "is_neutral",
    "best_mask",
    "format_pvalue",
    "format_pvalue_cell",
    "significance_marker",
]

TOLERANCE = 1e-12
HIGHER = "\u2020"  # dagger: significantly higher than the baseline
LOWER = "\u2021"  # double dagger: significantly lower


def best_mask(values, lower: bool = False) -> np.ndarray:
    """Which of ``values`` (one per run) are the best; none when fewer than two are finite or all tie."""
    values = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(values)
    if finite.sum() < 2 or np.ptp(values[finite]) <= TOLERANCE:
        return np.zeros(values.shape, dtype=bool)
    best = values[finite].min() if lower else values[finite].max()
    return finite & (np.abs(values - best) <= TOLERANCE)


def format_pvalue(p) -> str:
    """A p-value for tables: 4 decimals, scientific below 1e-4, 'n/a' when missing."""
    if p is None or math.isnan(p):
        return "n/a"
    if p != 0 and p < 1e-4:
        return f"{p:.1e}"
    return f"{p:.4f}"


def format_pvalue_cell(p) -> str:
    """A p-value where room is short (a cell of the all-pairs matrix): ``p<0.001`` or ``p=0.123``."""
    return "p<0.001" if p < 0.001 else f"p={p:.3f}"


def significance_marker(row, ascii_only: bool = False) -> str:
    """Mark of a comparison row (``significant`` and ``delta``): :data:`HIGHER` or :data:`LOWER` when the run
    differs significantly from the baseline (``+``/``-`` with ``ascii_only``), '' otherwise or for no row."""
    if row is None or not bool(row["significant"]):
        return ""
    if row["delta"] > 0:
        return "+" if ascii_only else HIGHER
    return "-" if ascii_only else LOWER
