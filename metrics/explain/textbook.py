"""Conventions side by side: trec_eval's value of a measure for a query, next to the textbook variants.

Course texts define the measures with conventions of their own: AP divided by the relevant documents
retrieved rather than by all of them, interpolated precision, relevance read from positions in a
ground-truth list, the Järvelin-Kekäläinen discount, an exponential gain, an ideal ranking made of the
retrieved documents.  :func:`side_by_side` computes each variant that applies to a measure, for one
query or the summary, with the measures' own kernels (an option of the measure's family, computed by
the evaluator on the same judged ranking: :func:`metrics.engine.evaluate.compute`), and says in one
sentence where it differs from trec_eval's.

The table (a DataFrame) has one row per variant, trec_eval's first: ``variant`` (a key), ``convention``
(in words), ``measure`` (the canonical name computed), ``value``, ``dcg`` and ``ideal_dcg`` (the
numerator and denominator of an nDCG variant for the query; NaN otherwise and for the summary),
``trec_eval`` (trec_eval's value), ``difference`` (value - trec_eval), ``asked`` (the row of the
measure asked for) and ``note``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from metrics.engine.evaluate import compute
from metrics.explain.model import Table
from metrics.measures import FAMILIES, Measure
from metrics.measures import extra as ext
from metrics.ranking.judged import JudgedRanking

if TYPE_CHECKING:
    import pandas as pd


class Prepared(Protocol):
    """What :func:`side_by_side` reads of a prepared run (:class:`metrics.explain.core.Prepared`, which
    calls this module)."""

    ranking: JudgedRanking

    def view(self, m: Measure) -> tuple[JudgedRanking, bool]: ...


__all__ = ["Convention", "COLUMNS", "side_by_side", "conventions_of", "positional_ranking", "as_table", "records"]

#: the table's columns, in order
COLUMNS = ("variant", "convention", "measure", "value", "dcg", "ideal_dcg", "trec_eval", "difference", "asked", "note")

_AP = ("map", "map_ext")
_NDCG = ("ndcg", "ndcg_cut", "ndcg_ext")
#: how many other relevance levels (-l) are shown for a binary measure: the grades nearest to the level in force
_LEVELS_SHOWN = 3


@dataclass(frozen=True)
class Convention:
    """One variant of a measure: its key, what it is in words, the measure computing it, the sentence
    saying where it differs from trec_eval's, and whether it reads the judgments by position."""

    key: str
    convention: str
    measure: Measure
    note: str
    positional: bool = False


def trec_measure(m: Measure) -> Measure:
    """trec_eval's measure of the family ``m`` is a variant of (``m`` itself for trec_eval's families)."""
    if m.family == "map_ext":
        return Measure("map", (), m.rel)
    if m.family == "ndcg_ext" and not dict(m.options).get("gains"):
        k = int(m.params[0])
        return Measure("ndcg", ()) if k == ext.WHOLE_RANKING else Measure("ndcg_cut", (k,))
    return Measure(m.family, m.params, m.rel, tuple(o for o in m.options if o[0] != "judged_only"), m.trec_text)


def _ndcg_plain(m: Measure) -> bool:
    """nDCG without gain values of its own (trec_eval's ``ndcg.1=3`` and ``gains=`` are left alone)."""
    return m.family in _NDCG and not (m.family == "ndcg" and m.params) and not dict(m.options).get("gains")


def _cutoff(m: Measure) -> int:
    return int(m.params[0]) if m.family in ("ndcg_cut", "ndcg_ext") else ext.WHOLE_RANKING


def conventions_of(m: Measure, level: int, grades: list[int]) -> list[Convention]:
    """The variants that apply to measure ``m`` at relevance level ``level``, trec_eval's first;
    ``grades``: the positive grades judged for the query (the other relevance levels worth showing)."""
    trec = trec_measure(m)
    out = [Convention("trec_eval", "trec_eval's " + trec.trec_name, trec, _TREC_NOTE.get(trec.family, ""))]
    if trec.family == "map":
        out += _ap_conventions(trec, level)
    elif _ndcg_plain(trec):
        out += _ndcg_conventions(trec, m)
    shown = 1 if trec.family in _NDCG else _LEVELS_SHOWN  # one row says that -l leaves nDCG alone
    for g in sorted((g for g in set(grades) if g >= 1 and g != level), key=lambda g: (abs(g - level), g))[:shown]:
        note = (
            f"-l {g}: the same value, as nDCG's gains are the grades: the relevance level does not enter"
            if trec.family in _NDCG
            else f"-l {g}: relevant means a grade >= {g} instead of >= {level}: R and the ranks that count change, "
            "the ranking does not"
        )
        other = Measure(trec.family, trec.params, g, trec.options, trec.trec_text)
        out.append(Convention(f"level_{g}", f"trec_eval's {trec.trec_name} with -l {g}", other, note))
    if m.rel is None and not any(c.measure == m for c in out):
        out.insert(1, Convention("asked", f"{m} as asked", m, "The options asked for (see the other rows for each)"))
    return out


_TREC_NOTE = {
    "map": "trec_eval's: the precision at each relevant document retrieved, summed and divided by all R relevant "
    "documents (each one never retrieved adds 0)",
    "ndcg": "trec_eval's: gain = the grade, discount log2(i + 1), ideal ranking of all judged documents of the query",
    "ndcg_cut": "trec_eval's: gain = the grade, discount log2(i + 1), ideal ranking of all judged documents of the "
    "query, both cut at k",
    "recip_rank": "trec_eval's: 1 / the rank of the first relevant document retrieved, 0 if none is",
}


def _ap_conventions(trec: Measure, level: int) -> list[Convention]:
    rel = trec.rel
    return [
        Convention(
            "over_retrieved",
            "AP over the relevant documents retrieved",
            Measure("map_ext", (), rel, (("over", "retrieved"),)),
            "Divides by the relevant documents retrieved instead of all R: equal to trec_eval's when every relevant "
            "document is retrieved, higher when some are not",
        ),
        Convention(
            "interpolated",
            "interpolated AP",
            Measure("map_ext", (), rel, (("precision", "interpolated"),)),
            "Each relevant document counts the highest precision at its rank or below instead of the precision at "
            "its rank: never lower than trec_eval's",
        ),
        Convention(
            "positional",
            "positional relevance, AP over the matches",
            Measure("map_ext", (), None, (("over", "retrieved"),)),
            f"Relevant only where a document stands at its own place in the ground-truth order (the documents of "
            f"grade >= {rel if rel is not None else level} by decreasing grade), divided by those matches; "
            "trec_eval counts every relevant document wherever it is ranked",
            positional=True,
        ),
    ]


def _ndcg_conventions(trec: Measure, asked: Measure) -> list[Convention]:
    k = _cutoff(trec)
    opts = dict(asked.options) if asked.family == "ndcg_ext" else {}
    base = opts.get("base", ext.NDCG_DEFAULTS["base"]) if opts.get("discount") == "jk" else ext.NDCG_DEFAULTS["base"]
    jk = ext.ndcg_options(discount="jk", base=base)

    def ext_measure(o: ext.NdcgOptions) -> Measure:
        return Measure("ndcg_ext", (k,), None, o.non_default())

    b = f"{jk.base:g}"
    return [
        Convention(
            "jk",
            f"Järvelin-Kekäläinen discount, base {b}",
            ext_measure(jk),
            f"Divides the gain at rank i by log_{b}(i) instead of log2(i + 1), ranks below {b} undiscounted: the "
            "top ranks weigh more",
        ),
        Convention(
            "exp_gain",
            "exponential gain 2^grade - 1",
            ext_measure(ext.ndcg_options(gain="exp")),
            "Gain 2^grade - 1 instead of the grade: the higher grades weigh more",
        ),
        Convention(
            "ideal_retrieved",
            "ideal ranking of the retrieved documents",
            ext_measure(ext.ndcg_options(ideal="retrieved")),
            "The ideal ranking reorders the retrieved documents only: equal to trec_eval's when every judged "
            "relevant document is retrieved, higher when some are not",
        ),
    ]


def positional_ranking(r: JudgedRanking) -> tuple[JudgedRanking, np.ndarray]:
    """The ranking read by position, and for each query whether that reading applies.

    A query's ground-truth order is its documents of grade >= the relevance level (at least 1) by
    decreasing grade; it is an order only where those grades all differ.  A document is relevant
    (code 1) where it stands at its own place in that order, rank i holding the i-th document; every
    other judged document is non-relevant (code 0).  Where the reading does not apply, no document is."""
    level = max(r.relevance_level, 1)
    counts = np.asarray(r.rel_levels[:, level:], dtype=np.int64)  # judged documents of each grade >= level
    applies = (counts <= 1).all(axis=1) & (counts.sum(axis=1) > 0)
    # the ground-truth grades of every query, highest first, laid end to end
    q_of, col = np.nonzero(counts[:, ::-1] == 1)
    truth = (counts.shape[1] - 1 - col) + level
    n_truth = np.bincount(q_of, minlength=r.n_queries)
    start = np.concatenate([[0], np.cumsum(n_truth)[:-1]]).astype(np.int64)
    q, rank = r.qidx.astype(np.int64), r.rank.astype(np.int64)
    inside = rank < n_truth[q]
    at = np.where(inside, start[q] + rank, 0)
    match = inside & applies[q] & (len(truth) > 0) & (r.rel == (truth[at] if len(truth) else -1))
    codes = np.where(match, 1, np.where(r.rel >= 0, 0, r.rel))
    matches = np.bincount(q[match], minlength=r.n_queries)
    judged = np.asarray(r.rel_levels, dtype=np.int64).sum(axis=1)
    levels = np.stack([judged - matches, matches], axis=1)
    return r.with_codes(codes, levels, 1), applies


def side_by_side(prep: Prepared, m: Measure, row: int | None) -> pd.DataFrame:
    """The conventions of measure ``m`` side by side for the query at ``row`` of the prepared run (None:
    the summary): one row per variant (see the module's docstring for the columns)."""
    import pandas as pd

    if FAMILIES[m.family].kind == "text":
        raise ValueError(f"{m.trec_name} is text, not a number: it has no conventions to compare")
    view, _ = prep.view(m)
    level = view.relevance_level
    levels = view.rel_levels if row is None else view.rel_levels[row : row + 1]
    grades = [int(g) for g in np.flatnonzero(np.asarray(levels).sum(axis=0) > 0)]
    positional: tuple[JudgedRanking, np.ndarray] | None = None
    rows = []
    for c in conventions_of(m, level, grades):
        r = prep.ranking
        if c.positional:
            positional = positional or positional_ranking(view)
            r, applies = positional
            if not (applies.all() if row is None else applies[row]):
                continue  # no ground-truth order: the grades of the relevant documents are not all different
        ((_, values, aggregate),) = list(compute(r, [c.measure]))
        if row is None:
            value = math.nan if aggregate is None else float(aggregate)
        else:
            value = float(values[row])
        dcg = ideal = math.nan
        if row is not None and c.measure.family in _NDCG and _ndcg_plain(c.measure):
            dcg, ideal = _dcg_parts(prep.view(c.measure)[0], c.measure, row)
        rows.append(
            {
                "variant": c.key,
                "convention": c.convention,
                "measure": str(c.measure),
                "value": value,
                "dcg": dcg,
                "ideal_dcg": ideal,
                "asked": c.measure == m and not c.positional,
                "note": c.note,
            }
        )
    frame = pd.DataFrame(rows)
    frame["trec_eval"] = frame["value"].iloc[0]
    frame["difference"] = frame["value"] - frame["trec_eval"]
    return frame.loc[:, list(COLUMNS)]


def _dcg_parts(r: JudgedRanking, m: Measure, row: int) -> tuple[float, float]:
    """DCG and ideal DCG of nDCG measure ``m`` for the query at ``row``, by the nDCG kernels' own sums."""
    options = {k: v for k, v in m.options if k != "judged_only"} if m.family == "ndcg_ext" else {}
    dcg, ideal = ext.dcg_matrices(r, (_cutoff(m),), ext.ndcg_options(**options))
    return float(dcg[row, 0]), float(ideal[row, 0])


def as_table(frame: pd.DataFrame, what: str) -> Table:
    """A table of conventions side by side as an explanation's :class:`~metrics.explain.model.Table`
    (``what``: the measure and query it is for, in its title)."""
    rows = tuple(
        {"convention": r["convention"], "measure": r["measure"], "value": r["value"], "note": r["note"]}
        for r in frame.to_dict("records")
    )
    return Table(f"Conventions side by side: {what}", ("convention", "measure", "value", "note"), rows)


def records(frame: pd.DataFrame) -> list[dict]:
    """The rows of a conventions table as plain values (NaN as None), for JSON."""
    return [
        {k: (None if isinstance(v, float) and v != v else v) for k, v in r.items()} for r in frame.to_dict("records")
    ]
