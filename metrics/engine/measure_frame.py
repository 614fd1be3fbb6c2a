"""The frame of :meth:`metrics.Evaluation.summary`: columns of measures, indexed by name or by the measure
objects of ir_measures asked for (``summary()[nDCG@10]``)."""

from __future__ import annotations

import pandas as pd

from metrics.measures.names import foreign_name

__all__ = ["MeasureFrame"]


def _column(frame: pd.DataFrame, key):
    """The column named by ``key``: itself, or for a measure object of another library (ir_measures'
    ``nDCG@10``) the column of its name, or of the same measure under another name (``ndcg_cut_10``)."""
    text = foreign_name(key)
    if text is None:
        return key
    if text in frame.columns:
        return text
    from metrics.measures import parse_measures

    wanted = parse_measures(key)
    for column in frame.columns:
        try:
            if parse_measures(str(column)) == wanted:
                return column
        except ValueError:
            continue
    raise KeyError(key)


class MeasureFrame(pd.DataFrame):
    """A DataFrame whose columns are measures, indexed by name or by the measure objects asked for
    (``summary()[nDCG@10]``, ``summary()[[AP, nDCG@10]]``): pandas would call such an object, which is
    callable, rather than look it up.  Frames made from it are plain DataFrames."""

    @property
    def _constructor(self):
        return pd.DataFrame

    def __getitem__(self, key):
        if isinstance(key, list):
            key = [_column(self, k) for k in key]
        elif foreign_name(key) is not None:
            key = _column(self, key)
        return super().__getitem__(key)
