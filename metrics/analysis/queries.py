"""Queries: one run against another per query, and each query's traits and difficulty over all runs.

Both read the per-query values of an evaluation (:class:`metrics.Evaluation`, or its tidy frame
``run, query_id, measure, value``).  A query's difficulty is the mean of a measure over the runs that
answer it, its dispute the spread of that measure over them (the sample standard deviation); its
traits are the number of judged and of relevant documents in the qrels and, given the query texts,
its length in terms (blank-separated words).  Spearman's rho of a trait against a measure is
:func:`scipy.stats.spearmanr`.
"""

from __future__ import annotations

import numpy as np

from metrics.engine.evaluate import encoded
from metrics.engine.settings import Settings

__all__ = ["per_query_values", "versus", "query_traits", "trait_correlations", "query_extremes", "TRAITS"]

#: the traits :func:`query_traits` can give, in their order
TRAITS = ("relevant", "judged", "length")


def per_query_values(results):
    """The tidy per-query frame ``run, query_id, measure, value`` of ``results``: an evaluation
    (:class:`metrics.Evaluation`) or such a frame already."""
    frame = getattr(results, "per_query", results)
    missing = {"run", "query_id", "measure", "value"} - set(frame.columns)
    if missing:
        raise ValueError(f"per-query values need the columns run, query_id, measure, value; missing {sorted(missing)}")
    return frame


def _measure(frame, measure) -> str:
    """The name ``measure`` has in ``frame`` (as written there, or its canonical name)."""
    names = list(dict.fromkeys(frame["measure"]))
    text = str(measure)
    if text in names:
        return text
    found = [n for n in names if _canonical(n) & _canonical(text)]
    if not found:
        raise ValueError(f"{text!r} is not among the measures evaluated ({', '.join(names)})")
    return found[0]


def _canonical(name: str) -> set[str]:
    from metrics.measures import parse_measures

    try:
        return {str(m) for m in parse_measures([name])}
    except (ValueError, KeyError):
        return set()


def _wide(frame, measure: str):
    """Values of one measure: index query_id (in order of first appearance), one column per run."""
    sub = frame[frame["measure"] == measure]
    wide = sub.pivot(index="query_id", columns="run", values="value")
    wide = wide.reindex(index=list(dict.fromkeys(sub["query_id"])), columns=list(dict.fromkeys(sub["run"])))
    wide.columns.name = None
    return wide


def versus(results, run_a: str, run_b: str, measure, *, tie: float = 0.0):
    """Run A against run B on ``measure``, per query both answer: a frame ``query_id, a, b, difference``
    (``a - b``), ``outcome`` (``win`` when A is higher by more than ``tie``, ``loss`` when lower by more,
    else ``tie``), queries in trec_eval's order.  The counts are ``frame["outcome"].value_counts()``."""
    import pandas as pd

    frame = per_query_values(results)
    name = _measure(frame, measure)
    wide = _wide(frame, name)
    for run in (run_a, run_b):
        if run not in wide.columns:
            raise ValueError(f"no run {run!r} among the runs evaluated ({', '.join(map(str, wide.columns))})")
    both = wide[[run_a, run_b]].dropna() if run_a != run_b else wide[[run_a]].dropna()
    a = both[run_a].to_numpy(dtype=np.float64)
    b = both[run_b].to_numpy(dtype=np.float64)
    diff = a - b
    outcome = np.where(diff > tie, "win", np.where(diff < -tie, "loss", "tie"))
    return pd.DataFrame(
        {"query_id": both.index.to_numpy(dtype=object), "a": a, "b": b, "difference": diff, "outcome": outcome}
    )


def query_traits(results, measure, qrels=None, queries=None, *, settings: Settings | None = None):
    """Per query evaluated: its traits and how the runs did on ``measure``.

    A frame ``query_id``, then ``relevant`` (judged documents of grade >= the relevance level of
    ``settings``; None: the settings ``results`` were scored with, as an :class:`~metrics.Evaluation`
    keeps them, else trec_eval's) and
    ``judged`` (documents the qrels judge, grade >= 0) when ``qrels`` are given, ``length`` (terms of
    its text, blank-separated) when ``queries`` (``{query id: text}``, or a path read by
    :func:`metrics.io.topics.read_queries`) are given, then ``runs`` (runs that answer it), ``mean``,
    ``std`` (sample standard deviation over those runs; NaN for one run), ``min``, ``max``.  Queries in
    the order of the evaluation (trec_eval's)."""
    import pandas as pd

    frame = per_query_values(results)
    wide = _wide(frame, _measure(frame, measure))
    out = pd.DataFrame({"query_id": wide.index.to_numpy(dtype=object)})
    if qrels is not None:
        enc = encoded(qrels)
        code = pd.Index(enc.queries).get_indexer(out["query_id"])
        rel = enc.rel.astype(np.int64)
        level = max(Settings.of(results if settings is None else settings).relevance_level, 0)
        counts = {
            "relevant": np.bincount(enc.qcode[rel >= level], minlength=enc.num_queries),
            "judged": np.bincount(enc.qcode[rel >= 0], minlength=enc.num_queries),
        }
        for trait, count in counts.items():
            out[trait] = np.where(code >= 0, count[np.maximum(code, 0)], 0).astype(np.int64)
    if queries is not None:
        if not hasattr(queries, "get"):
            from metrics.io.topics import read_queries

            queries = read_queries(queries)
        texts = pd.Series(out["query_id"].map(queries), dtype=object)
        # each text's words, NaN for a query without text (typed a plain Series: pandas-stubs give .str.len
        # to texts only, pandas counts the items of lists too)
        words: pd.Series = texts.str.split()
        out["length"] = words.str.len().astype(np.float64)
    values = wide.to_numpy(dtype=np.float64)
    out["runs"] = np.isfinite(values).sum(axis=1).astype(np.int64)
    out["mean"] = wide.mean(axis=1).to_numpy()
    out["std"] = wide.std(axis=1, ddof=1).to_numpy()
    out["min"] = wide.min(axis=1).to_numpy()
    out["max"] = wide.max(axis=1).to_numpy()
    return out


def trait_correlations(traits, against: str = "mean"):
    """Spearman's rho (:func:`scipy.stats.spearmanr`) of each trait of ``traits`` (a frame of
    :func:`query_traits`) against its column ``against``, over the queries where both are known: a
    frame ``trait, against, queries, rho, p_value``, one row per trait present."""
    import warnings

    import pandas as pd
    from scipy.stats import ConstantInputWarning, spearmanr

    rows = []
    for trait in [t for t in TRAITS if t in traits.columns]:
        x = traits[trait].to_numpy(dtype=np.float64)
        y = traits[against].to_numpy(dtype=np.float64)
        known = np.isfinite(x) & np.isfinite(y)
        n = int(known.sum())
        rho, p = (np.nan, np.nan)
        if n >= 2:
            with warnings.catch_warnings():  # a constant trait or measure: rho is NaN, which says it
                warnings.simplefilter("ignore", ConstantInputWarning)
                result = spearmanr(x[known], y[known])
            rho, p = float(result.statistic), float(result.pvalue)
        rows.append((trait, against, n, rho, p))
    return pd.DataFrame(rows, columns=["trait", "against", "queries", "rho", "p_value"])


def query_extremes(traits, n: int = 5):
    """The ``n`` hardest queries (lowest mean), the ``n`` easiest (highest mean) and the ``n`` most
    disputed (largest spread over the runs) of ``traits`` (a frame of :func:`query_traits`): a frame
    ``kind`` (``hardest``, ``easiest``, ``disputed``), ``place`` (1 = the most), ``query_id``, ``mean``,
    ``std``.  Equal values keep the queries' order."""
    import pandas as pd

    parts = []
    for kind, column, ascending in (("hardest", "mean", True), ("easiest", "mean", False), ("disputed", "std", False)):
        known = traits[np.isfinite(traits[column].to_numpy(dtype=np.float64))]
        chosen = known.sort_values(column, ascending=ascending, kind="stable").head(n)
        parts.append(
            pd.DataFrame(
                {
                    "kind": kind,
                    "place": np.arange(1, len(chosen) + 1),
                    "query_id": chosen["query_id"].to_numpy(dtype=object),
                    "mean": chosen["mean"].to_numpy(),
                    "std": chosen["std"].to_numpy(),
                }
            )
        )
    return pd.concat(parts, ignore_index=True)
