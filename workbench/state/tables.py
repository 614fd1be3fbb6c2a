"""Tables the window shows, built from evaluation results (plain Python, no Qt).

Each builder returns the values to show plus a frame of *tones* of the same
shape: ``"best"`` for the best value of a measure, ``"better"``/``"worse"``
for a difference to the baseline, ``""`` otherwise.  The Qt model only maps
tones to colours.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from metrics.presentation import best_mask, is_neutral
from workbench.scoring.evaluation import query_sort_key

DIFF_PREFIX = "Δ "


def summary_table(summary: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Runs x measures with a ``run`` column first, and the tones marking the best run per measure.

    A measure on which all runs tie, or that only counts things (``num_q``,
    ``num_ret``...), has no best value.
    """
    table = summary.copy()
    table.index = table.index.astype(str)
    table.insert(0, "run", table.index.to_numpy())
    table = table.reset_index(drop=True)
    tones = pd.DataFrame("", index=table.index, columns=table.columns, dtype=object)
    for col in summary.columns:
        name = str(col)
        if not is_neutral(name):  # the reports decide "best" with the same rule (metrics.presentation)
            tones.loc[best_mask(table[name].to_numpy(dtype=float)), name] = "best"
    return table, tones


def per_query_table(wide: pd.DataFrame, baseline: str | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One row per query: the measure for every run, then each run's difference to the baseline.

    ``wide`` has index query_id and one column per run, rows in the order they
    are shown (the evaluation worker gives them in natural query order, see
    :func:`workbench.scoring.evaluation.sort_queries`).  Difference columns are named
    ``"Δ <run>"``; a query missing from either run has no difference.
    """
    runs = [str(c) for c in wide.columns]
    values = wide.to_numpy(dtype=float)
    ids = wide.index.astype(str).to_numpy()
    columns, blocks, tone_blocks = list(runs), [values], [np.full(values.shape, "", dtype=object)]
    if baseline in runs:  # every difference column at once: one frame, not a column inserted per run
        others = [i for i, run in enumerate(runs) if run != baseline]
        diff = values[:, others] - values[:, [runs.index(baseline)]]
        columns += [DIFF_PREFIX + runs[i] for i in others]
        blocks.append(diff)
        tone_blocks.append(np.where(diff > 0, "better", np.where(diff < 0, "worse", "")).astype(object))
    table = pd.DataFrame(np.hstack(blocks), columns=columns)
    # (one block of objects: a column of strings each, made by pandas from the array, took longer than the rest)
    tones = pd.DataFrame(np.hstack(tone_blocks), columns=columns, dtype=object)
    table.insert(0, "query_id", ids)
    tones.insert(0, "query_id", np.full(len(ids), "", dtype=object))
    return table, tones


def query_rank(ids) -> np.ndarray:
    """Position of every id in natural order (numbers by value), for sorting."""
    ids = [str(q) for q in ids]
    order = sorted(range(len(ids)), key=lambda i: query_sort_key(ids[i]))
    rank = np.empty(len(ids), dtype=np.int64)
    rank[order] = np.arange(len(ids))
    return rank
