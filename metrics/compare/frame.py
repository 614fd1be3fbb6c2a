"""The frame of a comparison: a pandas DataFrame that shows, in Jupyter, the settings that made it."""

from __future__ import annotations

import html

import pandas as pd

__all__ = ["ComparisonFrame", "comparison_frame"]

#: the settings named above the table, in this order, and their words
_SHOWN = (
    ("baseline", "baseline"),
    ("runs", "runs"),
    ("test", "test"),
    ("correction", "correction"),
    ("alpha", "alpha"),
    ("ci", "confidence level"),
    ("permutations", "permutations"),
    ("bootstrap", "bootstrap resamples"),
    ("seed", "seed"),
)


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
        table = super()._repr_html_()
        if table is None:
            return None
        return f"<div><p><b>Comparison</b>: {html.escape(self.settings_text())}</p>{table}</div>"


def comparison_frame(frame: pd.DataFrame) -> ComparisonFrame:
    """``frame`` (its columns and ``attrs``) as a :class:`ComparisonFrame`."""
    out = ComparisonFrame(frame)
    out.attrs = dict(frame.attrs)
    return out
