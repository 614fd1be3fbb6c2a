"""Letters for all-pairs comparisons, as ranx and many papers print them: run i has the letter
:func:`letter` (i), and each (run, measure) the letters of the runs it is significantly better than."""

from __future__ import annotations

import string
from typing import Protocol, cast

import pandas as pd

__all__ = ["SignificanceLetters", "letter", "significance_letters"]


class _HtmlTable(Protocol):
    """What Jupyter asks a value for its table: pandas' frames have it, pandas-stubs do not declare it."""

    def _repr_html_(self) -> str | None: ...


def letter(i: int) -> str:
    """a, b, ..., z, aa, ab, ... for runs 0, 1, 2, ..."""
    out = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        out = string.ascii_lowercase[r] + out
    return out


class SignificanceLetters(dict):
    """``{(run, measure): "bd"}`` (what :func:`significance_letters` has always returned, for the code that
    reads it as a dict) that is also a table: :meth:`to_frame` gives the runs x measures DataFrame ('' where
    a run is better than none), which is what a notebook shows."""

    def __init__(self, letters: dict, runs: list, measures: list):
        super().__init__(letters)
        self.runs = list(runs)
        self.measures = list(measures)

    def to_frame(self) -> pd.DataFrame:
        """Index the runs (in order, named ``(a) run``-style by :func:`letter` in ``letter``), one column per
        measure in the order compared; each cell the letters of the runs that run is better than."""
        frame = pd.DataFrame(
            [[self.get((r, m), "") for m in self.measures] for r in self.runs],
            index=pd.Index(self.runs, name="run"),
            columns=self.measures,
            dtype=object,
        )
        frame.insert(0, "letter", [letter(i) for i in range(len(self.runs))])
        return frame

    @property
    def frame(self) -> pd.DataFrame:
        return self.to_frame()

    def _repr_html_(self) -> str | None:
        return cast(_HtmlTable, self.to_frame())._repr_html_()


def significance_letters(pairs: pd.DataFrame, runs=None, lower_is_better=()) -> SignificanceLetters:
    """``{(run, measure): "bd"}``: the letters of the runs each run is significantly better than, as a
    :class:`SignificanceLetters` (a dict whose ``to_frame()`` is the runs x measures table).

    Run i has letter :func:`letter` (i) in ``runs`` order (default: the order the pairs were made in).
    Better means a higher mean, or a lower one for measures in ``lower_is_better``.
    """
    runs = list(runs if runs is not None else pairs.attrs.get("runs") or pd.unique(pairs[["a", "b"]].values.ravel()))
    letters = {r: letter(i) for i, r in enumerate(runs)}
    lower = set(map(str, lower_is_better))
    out: dict = {}
    significant = pairs.loc[pairs["significant"], ["a", "b", "measure", "difference"]]
    for a, b, measure, difference in significant.itertuples(index=False, name=None):
        diff = difference if str(measure) not in lower else -difference
        if diff > 0:
            winner, loser = a, b
        elif diff < 0:
            winner, loser = b, a
        else:
            continue
        out.setdefault((winner, str(measure)), set()).add(letters[loser])
    measures = list(dict.fromkeys(str(m) for m in pairs["measure"])) if len(pairs) else []
    found = {k: "".join(sorted(v, key=lambda s: (len(s), s))) for k, v in out.items()}
    return SignificanceLetters(found, runs, measures)
