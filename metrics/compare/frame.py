"""The frame of a comparison: a pandas DataFrame that shows, in Jupyter, the settings that made it."""

from __future__ import annotations

import html
from typing import Protocol, cast

import numpy as np
import pandas as pd

__all__ = ["ComparisonFrame", "comparison_frame"]

#: the settings named above the table, in this order, and their words
_SHOWN = (
    ("baseline", "baseline"),
    ("runs", "runs"),
    ("test", "test"),
    ("correction", "correction"),
    ("correction_family", "correction family"),
    ("alpha", "alpha"),
    ("ci", "confidence level"),
    ("permutations", "permutations"),
    ("bootstrap", "bootstrap resamples"),
    ("seed", "seed"),
)


class _HtmlTable(Protocol):
    """What Jupyter asks a value for its table: pandas' frames have it, pandas-stubs do not declare it."""

    def _repr_html_(self) -> str | None: ...


class ComparisonFrame(pd.DataFrame):
    """What :func:`metrics.compare.compare` and :func:`metrics.compare.allpairs.compare_all_pairs` return: a
    DataFrame (everything a frame does, ``attrs`` holding the settings) whose table in Jupyter is headed
    by those settings.  Frames derived from it (a selection, a sort) are plain DataFrames."""

    @property
    def _constructor(self):
        return pd.DataFrame

    def settings_text(self) -> str:
        """The settings of ``attrs`` in words: ``baseline bm25; test t; correction holm; alpha 0.05``."""
        words = []
        for key, word in _SHOWN:
            if key in self.attrs:
                value = self.attrs[key]
                shown = ", ".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
                words.append(f"{word} {shown}")
        return "; ".join(words)

    def _repr_html_(self) -> str | None:
        """In Jupyter: the compact table (runs by measures, marks against the baseline or letters of all
        pairs, the settings in the caption); the frame's own table where it is neither kind."""
        columns = set(self.columns)
        if len(self) and _BASELINE <= columns:
            return _baseline_table(self)
        if len(self) and _PAIRS <= columns:
            return _pairs_table(self)
        table = cast(_HtmlTable, super())._repr_html_()
        if table is None:
            return None
        return f"<div><p><b>Comparison</b>: {html.escape(self.settings_text())}</p>{table}</div>"


_BASELINE = {"run", "measure", "baseline", "baseline_mean", "mean", "delta", "significant"}
_PAIRS = {"measure", "a", "b", "mean_a", "mean_b", "difference", "significant"}


def _whole(frame: pd.DataFrame) -> str:
    return f"the whole frame ({len(frame)} rows, {frame.shape[1]} columns): pandas.DataFrame(result)"


def _baseline_table(frame: ComparisonFrame) -> str:
    from metrics.notebook import compact_table

    measures = list(dict.fromkeys(map(str, frame["measure"])))
    baseline = str(frame["baseline"].iloc[0])
    runs = [baseline, *dict.fromkeys(map(str, frame["run"]))]
    at = {r: i for i, r in enumerate(runs)}
    col = {m: j for j, m in enumerate(measures)}
    values = np.full((len(runs), len(measures)), np.nan)
    marks = {}
    rows = frame[["run", "measure", "baseline_mean", "mean", "delta", "significant"]]
    for run, measure, baseline_mean, mean, delta, significant in rows.itertuples(index=False, name=None):
        i, j = at[str(run)], col[str(measure)]
        values[i, j] = mean
        if np.isnan(values[0, j]):
            values[0, j] = baseline_mean
        if bool(significant):
            marks[(str(run), str(measure))] = "higher" if delta > 0 else "lower"
    alpha = frame.attrs.get("alpha", frame["alpha"].iloc[0] if "alpha" in frame else 0.05)
    legend = f"\u2020 / \u2021: significantly higher / lower than the baseline (corrected p <= {alpha:g})"
    return compact_table(
        runs,
        measures,
        values,
        caption=f"Comparison: {frame.settings_text()}",
        marks=marks,
        run_labels={baseline: f"{baseline} (baseline)"},
        notes=[legend, _whole(frame)],
    )


def _pairs_table(frame: ComparisonFrame) -> str:
    from metrics.compare.letters import letter, significance_letters
    from metrics.notebook import compact_table

    measures = list(dict.fromkeys(map(str, frame["measure"])))
    runs = [str(r) for r in frame.attrs.get("runs") or pd.unique(frame[["a", "b"]].to_numpy().ravel())]
    at = {r: i for i, r in enumerate(runs)}
    col = {m: j for j, m in enumerate(measures)}
    values = np.full((len(runs), len(measures)), np.nan)
    for r in frame[["measure", "a", "b", "mean_a", "mean_b"]].itertuples(index=False):
        j = col[str(r.measure)]
        for run, mean in ((str(r.a), r.mean_a), (str(r.b), r.mean_b)):
            if run in at and np.isnan(values[at[run], j]):
                values[at[run], j] = mean
    letters = significance_letters(frame, runs)
    legend = "Letters: the runs a value is significantly better than"
    return compact_table(
        runs,
        measures,
        values,
        caption=f"Comparison of all pairs: {frame.settings_text()}",
        letters=letters,
        run_labels={r: f"({letter(i)}) {r}" for i, r in enumerate(runs)},
        notes=[legend, _whole(frame)],
    )


def comparison_frame(frame: pd.DataFrame) -> ComparisonFrame:
    """``frame`` (its columns and ``attrs``) as a :class:`ComparisonFrame`."""
    out = ComparisonFrame(frame)
    out.attrs = dict(frame.attrs)
    return out
