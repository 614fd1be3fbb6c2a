"""Judgment coverage: how much of each run's top ranks the qrels judged, where the holes are, and what
the scores become when the unjudged documents are dropped (trec_eval's ``-J``).

A measure counts an unjudged document as non-relevant.  A run from the pool that made the qrels has
few of them near the top; a new run (a neural re-ranker scored on an old pool) may have many, and its
scores are then likely underestimated.  The fraction judged is ir_measures' ``Judged@k``, computed by
the registry's ``Judged`` family through the engine like every other measure: of the first
``min(k, retrieved)`` documents of a query, those the qrels list (with any grade, negative ones
included), 0 for a query with no document.

"Well below the others": a run is flagged when its mean ``Judged@k`` (the first cutoff asked for,
10 by default) is more than ``gap`` (0.10 by default: one document in ten) below the median of the
other runs' mean ``Judged@k``.  The median of the others, not of all runs, so that with two runs
the one is compared with the other; a run alone is never flagged.
"""

from __future__ import annotations

import numpy as np

from metrics.analysis.ranked import loaded_runs, top_documents
from metrics.engine.evaluate import encoded, evaluate
from metrics.engine.settings import Settings
from metrics.ranking.qrels_index import NONPOOL

__all__ = [
    "judgment_coverage",
    "coverage_by_query",
    "judgment_holes",
    "condensed_scores",
    "DEFAULT_GAP",
    "UNDERESTIMATED",
]

#: how far (in Judged@k) below the median of the other runs a run is flagged
DEFAULT_GAP = 0.10
#: what a flag means, in the words every door shows
UNDERESTIMATED = "unjudged documents count as non-relevant: this run's scores are likely underestimated"


def _judged_names(cutoffs) -> list[str]:
    cutoffs = [int(k) for k in cutoffs]
    if not cutoffs or min(cutoffs) < 1:
        raise ValueError(f"the cutoffs of Judged@k must be 1 or more, not {cutoffs}")
    return [f"Judged@{k}" for k in dict.fromkeys(cutoffs)]


def judgment_coverage(qrels, runs, cutoffs=(10,), *, gap: float = DEFAULT_GAP, settings: Settings | None = None):
    """Per run, the mean ``Judged@k`` over its queries for each of ``cutoffs`` (the first one is the
    one compared), whether it is well below the others' (see the module's note), and by how much.

    ``qrels`` and ``runs``: anything :func:`metrics.evaluate` takes; ``settings``: what the runs are
    scored under (None: trec_eval's); with their ``complete`` (``-c``) the queries a run does not answer
    count with 0, as trec_eval's ``-c`` scores them.  Returns a frame ``run,
    queries, Judged@k..., others`` (the median of the other runs' mean at the first cutoff, NaN for a
    run alone), ``below_others`` (bool), runs in the order given."""
    import pandas as pd

    names = _judged_names(cutoffs)
    if not gap >= 0:
        raise ValueError(f"the gap must be 0 or more, not {gap}")
    ev = evaluate(encoded(qrels), loaded_runs(runs), names, settings=Settings.of(settings))
    table = ev.summary().reindex(columns=names)
    first = table[names[0]].to_numpy(dtype=np.float64)
    n = len(first)
    others = np.full(n, np.nan)
    if n > 1:
        grid = np.where(np.eye(n, dtype=bool), np.nan, np.broadcast_to(first, (n, n)))
        others = np.nanmedian(grid, axis=1)
    out = pd.DataFrame({"run": list(ev.runs), "queries": [len(ev.query_ids[r]) for r in ev.runs]})
    for name in names:
        out[name] = table[name].to_numpy(dtype=np.float64)
    out["others"] = others
    out["below_others"] = np.nan_to_num(others - first, nan=-np.inf) > gap
    return out


def coverage_by_query(qrels, runs, cutoffs=(10,)):
    """Per run and query: ``Judged@k`` for each of ``cutoffs`` (through the engine) and the number of
    unjudged documents among the first k (documents the qrels of the query do not list).  A frame
    ``run, query_id, Judged@k..., unjudged@k...``, runs in the order given, queries in trec_eval's
    order; a query a run does not answer has no row."""
    import pandas as pd

    runs = loaded_runs(runs)
    enc = encoded(qrels)
    names = _judged_names(cutoffs)
    cutoffs = [int(name.partition("@")[2]) for name in names]
    ev = evaluate(enc, runs, names)
    table = pd.DataFrame(
        {
            "run": np.repeat(np.array(ev.runs, dtype=object), [len(res.query_ids) for res in ev.results]),
            "query_id": np.concatenate(
                [np.array(res.query_ids, dtype=object) for res in ev.results] or [np.array([], dtype=object)]
            ),
        }
    )
    values = np.vstack([res.values for res in ev.results]) if ev.results else np.zeros((0, len(names)))
    for j, name in enumerate(names):
        table[name] = values[:, ev.results[0].names.index(name)] if ev.results else values[:, j]
    top = top_documents(runs, max(cutoffs), enc)
    assert top.rel is not None
    nq = len(top.queries)
    r, q = np.nonzero(top.lengths > 0)
    counts = pd.DataFrame(
        {"run": np.array(top.runs, dtype=object)[r], "query_id": np.array(top.queries, dtype=object)[q]}
    )
    hole = top.rel == NONPOOL
    for k in cutoffs:
        at = hole & (top.rank < k)
        per_cell = np.bincount(top.run[at].astype(np.int64) * nq + top.query[at], minlength=len(top.runs) * nq)
        counts[f"unjudged@{k}"] = per_cell[r * nq + q].astype(np.int64)
    return table.merge(counts, on=["run", "query_id"], how="left", validate="one_to_one")


def judgment_holes(qrels, runs, depth: int = 10):
    """Every unjudged document among the first ``depth`` of every query of every run: a frame ``run,
    query_id, rank`` (1-based, in trec_eval's order), ``doc_id``; runs in the order given, queries in
    trec_eval's order, ranks ascending."""
    import pandas as pd

    from metrics.io.formats import str_dtype
    from metrics.io.ids import ids_to_arrow

    top = top_documents(loaded_runs(runs), int(depth), encoded(qrels))
    assert top.rel is not None
    at = np.flatnonzero(top.rel == NONPOOL)
    return pd.DataFrame(
        {
            "run": np.array(top.runs, dtype=object)[top.run[at]],
            "query_id": np.array(top.queries, dtype=object)[top.query[at]],
            "rank": top.rank[at].astype(np.int64) + 1,
            "doc_id": pd.Series(ids_to_arrow(top.doc[at]), dtype=str_dtype()),
        }
    )


def condensed_scores(qrels, runs, measures=None, *, settings: Settings | None = None):
    """Each run's mean of each measure as scored under ``settings`` (None: trec_eval's; unjudged
    documents non-relevant) and on the condensed list (the same settings with trec_eval's ``-J``:
    unjudged documents dropped, the ranks closed up), both through the engine.

    A frame ``run, measure, value, condensed, change`` (``condensed - value``), runs in the order
    given, measures in trec_eval's order; ``measures`` as :func:`metrics.evaluate` takes them."""
    runs = loaded_runs(runs)
    enc = encoded(qrels)
    settings = Settings.of(settings)
    scored = evaluate(enc, runs, measures, settings=settings).aggregate
    condensed = evaluate(enc, runs, measures, settings=settings.replace(judged_only=True)).aggregate
    out = scored.merge(condensed, on=["run", "measure"], how="left", suffixes=("", "_j"), validate="one_to_one")
    out = out.rename(columns={"value_j": "condensed"})
    out["change"] = out["condensed"] - out["value"]
    return out
