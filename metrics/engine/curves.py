"""Curves for plotting: interpolated precision-recall, and measures at every rank k.

Both follow :func:`metrics.evaluate`'s conventions: the queries of a run are
those of the qrels that the run retrieved something for (trec_eval order),
"relevant" means grade >= the settings' ``relevance_level``, ties in score are broken by
document id as trec_eval breaks them, and the ``query_id == "all"`` rows are
the mean over those queries, summed in query order as trec_eval sums.  A run
without any evaluated query contributes no rows.

Both return tidy frames (one row per point) with the run label first; runs
are labelled as :func:`metrics.evaluate` labels them.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from metrics.engine.evaluate import labelled_runs
from metrics.engine.settings import Settings
from metrics.errors import checkpoint
from metrics.io.ids import shown
from metrics.measures import FAMILIES
from metrics.measures.aggregates import num_queries
from metrics.measures.extra import dcg_matrices, ndcg_ratio
from metrics.measures.extra import ndcg_options as _options
from metrics.measures.registry import mean
from metrics.ranking.judged import EncodedQrels, build_ranking

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["precision_recall", "at_k", "evaluate_with_curves", "RECALL_LEVELS", "AT_K_KINDS"]

#: trec_eval's 11 standard recall levels
RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
#: the kinds of :func:`at_k`
AT_K_KINDS = ("P", "R", "DCG", "NDCG")


def _check_qrels(qrels) -> None:
    if isinstance(qrels, EncodedQrels):  # encoded once by the caller (metrics.encode_qrels)
        return
    import pandas as pd  # here: scoring runs from disk (workbench.scoring.disk_runs) needs no pandas

    if not isinstance(qrels, pd.DataFrame):
        raise TypeError(f"qrels must be a DataFrame, not {type(qrels).__name__}")
    missing = {"query_id", "doc_id", "relevance"} - set(qrels.columns)
    if missing:
        raise ValueError(f"qrels lack columns {sorted(missing)}")


def _rankings(qrels, runs, settings: Settings | None):
    _check_qrels(qrels)
    options = Settings.of(settings).trec_options()
    for label, run in labelled_runs(runs):
        name = cast("pd.DataFrame", run).attrs.get("name", label)  # (DataFrames: columns=False)
        r = build_ranking(qrels, run, **options, run_id=str(name))
        if r.n_queries:
            yield label, r


def _tidy(parts, value_columns) -> pd.DataFrame:
    """Concatenate per-run blocks (label, query ids (n,), x (m,), values (n, m),
    all values (m,)) into a long frame: per-query rows, then the "all" rows."""
    import pandas as pd

    xname, yname, xdtype = value_columns
    frames: list[pd.DataFrame] = []
    # (the columns typed as one dict: a literal of Series and arrays had the type checker weigh every
    # overload of DataFrame for 2 s)
    columns: dict[str, Any]
    for label, qids, xs, values, overall in parts:
        n, m = values.shape
        q = np.concatenate(
            [np.repeat(np.asarray([shown(x) for x in qids], dtype=object), m), np.full(m, "all", dtype=object)]
        )
        columns = {
            "run": pd.Series(np.full(len(q), label, dtype=object), dtype="str"),
            "query_id": pd.Series(q, dtype="str"),
            xname: np.tile(np.asarray(xs, dtype=xdtype), n + 1),
            yname: np.concatenate([values.ravel(), overall]).astype(np.float64),
        }
        frames.append(pd.DataFrame(columns))
    if not frames:
        columns = {
            "run": pd.Series([], dtype="str"),
            "query_id": pd.Series([], dtype="str"),
            xname: np.zeros(0, dtype=xdtype),
            yname: np.zeros(0),
        }
        return pd.DataFrame(columns)
    return pd.concat(frames, ignore_index=True)


def _means(values: np.ndarray, r) -> np.ndarray:
    """:func:`mean` of every column: the running sum down the queries adds them one after the other, in
    their order, as :func:`mean` (and trec_eval) do, for all the columns at once."""
    if not len(values):
        return np.array([mean(values[:, j], r) for j in range(values.shape[1])], dtype=np.float64)
    n = num_queries(r)
    sums = np.cumsum(values, axis=0)[-1]
    return sums / n if n else sums


def precision_recall(qrels: pd.DataFrame, runs, levels=None, *, settings: Settings | None = None) -> pd.DataFrame:
    """Interpolated precision at recall levels, per query and averaged.

    Returns columns run, query_id, recall, precision: for every run, its
    queries in trec_eval order with one row per level (ascending), then the
    rows with query_id ``"all"`` (mean over the queries).  The values are
    trec_eval's ``iprec_at_recall``: at level x, the highest precision at or
    after the rank where lround(x * num_rel) relevant documents have been
    retrieved, 0 when that many are never retrieved (so level 0 gives the
    highest precision anywhere in the ranking).

    ``levels``: recall levels in [0, 1], default the 11 levels 0.0, 0.1, ...,
    1.0.  ``runs``: a run DataFrame, a list of them or a dict label -> run.  ``settings``: trec_eval's
    options (``-l -c -M -J -N``) the rankings are built with (None: trec_eval's defaults).
    """
    lv = _levels(levels)
    parts = [_pr_part(label, r, lv) for label, r in _rankings(qrels, runs, settings)]
    return _tidy(parts, ("recall", "precision", np.float64))


def _levels(levels) -> list[float]:
    if levels is None:
        levels = RECALL_LEVELS
    try:
        lv = sorted({float(x) for x in levels})
    except (TypeError, ValueError):
        raise ValueError("levels must be numbers between 0 and 1") from None
    if not lv or any(not math.isfinite(x) or x < 0.0 or x > 1.0 for x in lv):
        raise ValueError("levels must be one or more numbers between 0 and 1")
    return lv


def _pr_part(label, r, lv):
    values = np.asarray(FAMILIES["iprec_at_recall"].compute(r, tuple(lv)), dtype=np.float64)
    return label, r.query_ids, lv, values, _means(values, r)


def at_k(
    qrels: pd.DataFrame, runs, kind: str, k_max: int | None = None, *, settings: Settings | None = None
) -> pd.DataFrame:
    """A measure at every cutoff k = 1..k_max, per query and averaged.

    Returns columns run, query_id, k, value: for every run, its queries in
    trec_eval order with one row per k, then the rows with query_id ``"all"``
    (mean over the queries).  ``kind``:

    * ``"P"``: trec_eval's P_k (relevant in the top k, divided by k, missing
      ranks counting as non-relevant);
    * ``"R"``: trec_eval's recall_k (relevant in the top k / num_rel; 0 for
      a query without relevant documents);
    * ``"DCG"``: discounted cumulative gain of the top k;
    * ``"NDCG"``: DCG / ideal DCG of the top k, trec_eval's ndcg_cut_k with
      the default options.

    ``settings``: trec_eval's options the rankings are built with, ``k_max`` when none is given
    (100 by default), and for DCG and NDCG the nDCG variant (``gain``, ``discount``, ``base``,
    ``ideal``, as for the ``ndcg_ext`` measure, metrics/measures/extra.py); None: trec_eval's.
    """
    s = Settings.of(settings)
    ks, opts = _at_k_spec(kind, s.k_max if k_max is None else k_max, s.ndcg_options())
    parts = [_at_k_part(label, r, kind, ks, opts) for label, r in _rankings(qrels, runs, s)]
    return _tidy(parts, ("k", "value", np.int64))


def _at_k_spec(kind, k_max, ndcg_options):
    if kind not in AT_K_KINDS:
        raise ValueError(f"kind must be one of {', '.join(AT_K_KINDS)}, not {kind!r}")
    if isinstance(k_max, bool) or not float(k_max).is_integer() or k_max < 1:
        raise ValueError(f"k_max must be a positive integer, not {k_max!r}")
    opts = _options(**ndcg_options) if kind in ("DCG", "NDCG") else None
    return tuple(range(1, int(k_max) + 1)), opts


def _at_k_part(label, r, kind, ks, opts):
    if kind == "P":
        values = FAMILIES["P"].compute(r, ks)
    elif kind == "R":
        values = FAMILIES["recall"].compute(r, ks)
    else:
        assert opts is not None  # DCG and NDCG have options
        dcg, idcg = dcg_matrices(r, ks, opts)
        values = dcg if kind == "DCG" else ndcg_ratio(dcg, idcg)
    values = np.asarray(values, dtype=np.float64)
    return label, r.query_ids, ks, values, _means(values, r)


def evaluate_with_curves(
    qrels,
    runs,
    measures=None,
    *,
    settings: Settings | None = None,
    levels=None,
    kind: str = "NDCG",
    tidy: bool = True,
    on_run=None,
):
    """``(evaluation, precision_recall frame, at_k frame)``: what :func:`metrics.evaluate`,
    :func:`precision_recall` and :func:`at_k` give for the same runs, with each run's ranking built
    once for all three (the window's evaluation).

    ``tidy=False`` gives the curves as lists of blocks instead of frames, one per run with an
    evaluated query: ``(label, query ids, x values, values (queries x points), mean over the
    queries)``, what the frames are made of (a frame of 100 runs' NDCG@1..100 has 430,000 rows).
    ``on_run(label)``, if given, is called after each run is scored (progress; it may raise to stop).
    ``settings``: trec_eval's options, and the NDCG@k curve's ``k_max`` and nDCG variant (None:
    trec_eval's defaults)."""
    from metrics.engine.evaluate import _evaluate, encoded, written_names
    from metrics.measures import parse_measures

    settings = Settings.of(settings)
    lv = _levels(levels)
    ks, opts = _at_k_spec(kind, settings.k_max, settings.ndcg_options())
    pr_parts, at_k_parts = [], []

    def curves(label, r):
        if r.n_queries:
            pr_parts.append(_pr_part(label, r, lv))
            checkpoint()
            at_k_parts.append(_at_k_part(label, r, kind, ks, opts))
            checkpoint()
        if on_run is not None:
            on_run(label)

    ev = _evaluate(encoded(qrels), runs, parse_measures(measures), written_names(measures), settings, also=curves)
    if not tidy:
        return ev, pr_parts, at_k_parts
    return ev, _tidy(pr_parts, ("recall", "precision", np.float64)), _tidy(at_k_parts, ("k", "value", np.int64))
