"""Every run against a baseline: pairing by query, one row of statistics per (run, measure).

The conventions are stated in :mod:`metrics.compare`.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from metrics.compare.pairs import pair_statistics
from metrics.compare.statistics import _clean, adjust_pvalues
from metrics.measures import is_count
from metrics.stat_methods import canonical_correction, canonical_test

#: Columns of the frame returned by :func:`compare`, in order.
#: the columns of one pair's test, in a baseline comparison and in all pairs (metrics.compare.allpairs)
TEST_COLUMNS = [
    "p_value",
    "p_corrected",
    "ci_low",
    "ci_high",
    "effect_size",
    "wins",
    "ties",
    "losses",
    "n_queries",
    "test",
    "correction",
    "significant",
    "alpha",
]
COLUMNS = [
    "run",
    "measure",
    "baseline",
    "baseline_mean",
    "mean",
    "delta",
    *TEST_COLUMNS,
    "ci_level",
    "n_baseline_only",
    "n_run_only",
    "correction_family",
]
#: the families of tests a correction is over: PyTerrier's (the runs against the baseline, one measure at a
#: time, as its Experiment corrects) and every (run, measure) pair of the call
FAMILIES = {"measure": "per measure", "all": "all runs and measures"}
_INT_COLUMNS = ("wins", "ties", "losses", "n_queries", "n_baseline_only", "n_run_only")


# ---------------------------------------------------------------- validation


def _tidy(per_query) -> pd.DataFrame:
    frame = getattr(per_query, "per_query", per_query)
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(
            "per_query must be a DataFrame with columns run, query_id, measure, "
            f"value (or an Evaluation); got {type(per_query).__name__}"
        )
    missing = [c for c in ("run", "query_id", "measure", "value") if c not in frame.columns]
    if missing:
        raise ValueError(
            f"per-query frame lacks column(s) {', '.join(missing)}; expected run, query_id, measure, value"
        )
    dup = frame.duplicated(["run", "query_id", "measure"])
    if dup.any():
        row = frame.loc[dup].iloc[0]
        raise ValueError(
            f"per-query frame has more than one value for run {row['run']!r}, "
            f"query {row['query_id']!r}, measure {row['measure']!r}"
        )
    return frame


def _run_order(source, frame: pd.DataFrame) -> list:
    """Runs in the Evaluation's order when given one, else in order of appearance."""
    present = _unique(frame["run"])
    given = getattr(source, "runs", None)
    if isinstance(given, (list, tuple)) and set(given) >= set(present):
        have = set(present)
        return [r for r in given if r in have]
    return present


def _unique(values) -> list:
    if isinstance(values, (pd.Series, pd.Index)):
        values = pd.unique(values)  # then few to iterate over (a column of strings iterates slowly)
    return list(dict.fromkeys(values))


def _asked(source) -> list:
    """The measures in the order they were asked for when ``source`` is an Evaluation, else []."""
    names = getattr(source, "_names", None)
    return list(names()) if callable(names) else []


def _select_measures(frame: pd.DataFrame, measures, order=()) -> list[str]:
    present = _unique(frame["measure"])
    if measures is None:
        have = set(present)
        return [m for m in dict.fromkeys([*(m for m in order if m in have), *present]) if not is_count(m)]
    if isinstance(measures, str) or not isinstance(measures, Iterable):
        measures = [measures]
    chosen = [str(m) for m in measures]
    have = set(present)
    unknown = [m for m in chosen if m not in have]
    if unknown:
        raise ValueError(
            f"measure(s) {', '.join(unknown)} not in the per-query frame; it has {', '.join(map(str, present))}"
        )
    return _unique(chosen)


def _labels(values: list):
    """A column of labels: the list (typed as pandas infers it), or an empty object column."""
    return values if values else np.empty(0, dtype=object)


def _coded(frame: pd.DataFrame, runs: list, measures: list):
    """The rows of ``frame`` with a value, of a run in ``runs`` and a measure in ``measures``, as codes:
    ``(measure positions, run positions, query codes, values, query ids)``, the query codes in the
    ids' sorted order (the order ``pivot`` gives its index).

    One factorisation of each column instead of a mask and a pivot per measure: the window compares
    a hundred runs on every measure, and those took most of the comparison's time."""
    m_codes, m_names = pd.factorize(frame["measure"])
    r_codes, r_names = pd.factorize(frame["run"])
    measure_at = {m: k for k, m in enumerate(measures)}
    run_at = {r: k for k, r in enumerate(runs)}
    m_pos = np.array([measure_at.get(m, -1) for m in m_names], dtype=np.intp)[m_codes]
    r_pos = np.array([run_at.get(r, -1) for r in r_names], dtype=np.intp)[r_codes]
    keep = (m_codes >= 0) & (r_codes >= 0) & (m_pos >= 0) & (r_pos >= 0) & frame["value"].notna().to_numpy()
    q_codes, queries = pd.factorize(frame["query_id"][keep], sort=True)
    return m_pos[keep], r_pos[keep], q_codes, frame["value"].to_numpy(np.float64)[keep], queries


def _tables(frame: pd.DataFrame, runs: list, measures: list) -> list[tuple[pd.Index, np.ndarray]]:
    """Each measure's values as a table, queries x ``runs`` with NaN where a run has no value, and the
    query ids of its rows (sorted): what ``pivot(index="query_id", columns="run", values="value")``
    and ``reindex(columns=runs)`` give for the measure's rows with a value, in ``measures`` order."""
    m_pos, r_pos, q_codes, values, queries = _coded(frame, runs, measures)
    out = []
    for k in range(len(measures)):
        at = m_pos == k
        q = q_codes[at]
        present = np.unique(q)
        table = np.full((len(present), len(runs)), np.nan)
        table[np.searchsorted(present, q), r_pos[at]] = values[at]
        out.append((queries[present], table))
    return out


def _file_names(path: str) -> set:
    """The names a run's file goes by: the path given, its file name, and that name without its suffixes
    (``runs/bm25.txt``, ``bm25.txt``, ``bm25``; ``bm25.run.gz``: also ``bm25.run``)."""
    import os.path

    name = os.path.basename(path)
    return {path, name, os.path.splitext(name)[0], name.split(".")[0]} - {""}


def _baseline(runs: list, baseline, paths: dict | None = None):
    """The label of the baseline: ``baseline`` itself, the run whose file it names (the file name, or
    the name without its suffix: ``"bm25"`` for ``bm25.txt`` tagged ``Anserini``, as the window labels
    runs), or the run at that position when it is an int that labels no run (PyTerrier's
    ``baseline=0``: the first run; -1 the last).  A name that is the label of one run and the file of
    another, or the file of two runs, is refused naming them."""
    by_file = [
        r for r, p in (paths or {}).items() if r in runs and isinstance(baseline, str) and baseline in _file_names(p)
    ]
    named = ([baseline] if baseline in runs else []) + [r for r in by_file if r != baseline]
    if len(named) > 1:
        told = "; ".join(
            f"run {r!r}" + (f" (file {paths[r]})" if paths and r in paths and r != baseline else " (its label)")
            for r in named
        )
        raise ValueError(f"baseline {baseline!r} could be any of: {told}; give the run's label")
    if named:
        return named[0]
    if isinstance(baseline, (int, np.integer)) and not isinstance(baseline, bool):
        if -len(runs) <= baseline < len(runs):
            return runs[baseline]
        raise ValueError(f"baseline position {baseline} is out of range: there are {len(runs)} runs")
    raise ValueError(f"baseline run {baseline!r} not found; runs are {', '.join(map(repr, runs))}")


# ---------------------------------------------------------------- comparison


def paired_differences(per_query, baseline, measure) -> pd.DataFrame:
    """Paired values of every run against ``baseline`` for one measure.

    Returns a tidy frame ``query_id, run, baseline_value, value, delta`` with
    one row per run other than the baseline and per query where both values
    exist (inner join on ``query_id``; NaN counts as missing), in run order and
    then query order of the input. ``delta = value - baseline_value`` with the
    module's tie tolerance applied.
    """
    frame = _tidy(per_query)
    runs = _run_order(per_query, frame)
    baseline = _baseline(runs, baseline, getattr(per_query, "paths", None))
    measure = _select_measures(frame, [measure])[0]
    sub = frame.loc[frame["measure"] == measure, ["run", "query_id", "value"]]
    sub = sub.loc[sub["value"].notna()]
    base = sub.loc[sub["run"] == baseline, ["query_id", "value"]].rename(columns={"value": "baseline_value"})
    other = sub.loc[sub["run"] != baseline]
    joined = other.merge(base, on="query_id", how="inner", sort=False)
    joined["delta"] = _clean(joined["value"].to_numpy(np.float64) - joined["baseline_value"].to_numpy(np.float64))
    order = {r: i for i, r in enumerate(runs)}
    joined["_order"] = joined["run"].map(order)
    joined = joined.sort_values("_order", kind="stable").drop(columns="_order")
    return joined[["query_id", "run", "baseline_value", "value", "delta"]].reset_index(drop=True)


def per_query_differences(per_query, baseline, measure) -> pd.DataFrame:
    """Per-query differences to the baseline for one measure, for a difference chart.

    Columns ``query_id, run, delta, baseline_value, value`` (paired as in
    :func:`paired_differences`). Sorted by run (input order), then by ``delta``
    from largest to smallest, then by ``query_id``.
    """
    diffs = paired_differences(per_query, baseline, measure)
    runs = {r: i for i, r in enumerate(_run_order(per_query, _tidy(per_query)))}
    diffs["_order"] = diffs["run"].map(runs)
    diffs = diffs.sort_values(["_order", "delta", "query_id"], ascending=[True, False, True], kind="stable")
    return diffs[["query_id", "run", "delta", "baseline_value", "value"]].reset_index(drop=True)


def per_query_differences_by_measure(per_query, baseline, measures=None) -> dict[str, pd.DataFrame]:
    """:func:`per_query_differences` of several measures at once (default: every measure of the frame,
    counts too), ``{measure: frame}``: the frame is checked and split once, the rest is numpy (the
    window asks for every measure of up to a thousand runs)."""
    frame = _tidy(per_query)
    runs = _run_order(per_query, frame)
    baseline = _baseline(runs, baseline, getattr(per_query, "paths", None))
    chosen = _unique(frame["measure"]) if measures is None else _select_measures(frame, measures)
    m_pos, r_pos, q_codes, values, queries = _coded(frame, runs, chosen)
    labels = pd.Index(runs)  # taken by position, as the ids are: no Python string per row
    dtypes = {"query_id": frame["query_id"].dtype, "run": frame["run"].dtype}
    base_at = runs.index(baseline)
    out = {}
    for k, measure in enumerate(chosen):
        at = m_pos == k
        run, codes, value = r_pos[at], q_codes[at], values[at]
        base = np.full(len(queries), np.nan)
        is_base = run == base_at
        base[codes[is_base]] = value[is_base]
        keep = ~is_base & ~np.isnan(base[codes])
        run, codes, value = run[keep], codes[keep], value[keep]
        delta = _clean(value - base[codes])
        order = np.lexsort((codes, -delta, run))  # codes in the ids' sorted order
        out[str(measure)] = pd.DataFrame(
            {
                "query_id": queries.take(codes[order]).array,
                "run": labels.take(run[order]).array,
                "delta": delta[order],
                "baseline_value": base[codes[order]],
                "value": value[order],
            }
        ).astype(dtypes)
    return out


def compare(
    per_query,
    baseline,
    *,
    measures=None,
    test: str = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    permutations: int = 10000,
    bootstrap: int = 10000,
    ci: float = 0.95,
    seed: int | None = 0,
    family: str = "measure",
) -> pd.DataFrame:
    """Compare every run with ``baseline`` on every measure, query by query.

    Parameters
    ----------
    per_query : DataFrame with columns run, query_id, measure, value (or an
        object with a ``per_query`` attribute such as ``metrics.Evaluation``).
    baseline : label of the baseline run, the file it was read from (its name, or the name without its
        suffix: ``"bm25"`` for ``bm25.txt``, when no other run goes by that name), or its position among
        the runs (``0``: the first).
    measures : measure names (or objects whose ``str`` is the name) to compare;
        None for all measures in the frame, in their order there, except
        counts (measures of kind ``long`` in the registry: ``num_ret``,
        ``num_rel_ret``, ...), which describe the runs rather than their
        effectiveness and would only enlarge the family of tests; name them
        to compare them.
    test : ``"t"``, ``"wilcoxon"`` or ``"permutation"`` (see the module
        docstring for the exact conventions).
    correction : ``"none"``, ``"bonferroni"``, ``"holm"``, ``"bh"`` or any other of
        :data:`~metrics.stat_methods.CORRECTIONS` (statsmodels' ``multipletests`` names too), over the
        tests of ``family``.
    family : ``"measure"`` (the default): the correction is over the runs compared with the baseline on
        one measure, measure by measure, as PyTerrier's ``Experiment(..., baseline=, correction=)``
        corrects; ``"all"``: over every (run, measure) pair with a p-value in this call (``ir-eval
        --compare``'s default).  The column ``correction_family`` names it with its size ("per measure
        (3 comparisons)"), and ``attrs["correction_family"]`` its words ("per measure").
    alpha : significance level for the ``significant`` column
        (``p_corrected <= alpha``).
    permutations : sign vectors drawn by the permutation test.
    bootstrap : bootstrap resamples for the confidence interval (0 to skip).
    ci : confidence level of the interval.
    seed : seed of the permutation and bootstrap draws (None: not reproducible).

    Returns
    -------
    DataFrame with the columns of :data:`COLUMNS`: one row per (run, measure),
    runs other than the baseline in input order, measures within each run in
    the chosen order (an Evaluation's ``runs`` order when one is given).
    ``test`` and ``correction`` hold the canonical codes
    (keys of :data:`TESTS` and :data:`CORRECTIONS`); ``alpha`` and ``ci_level``
    repeat the settings. ``attrs`` records baseline, test, correction, alpha,
    ci, permutations, bootstrap and seed.
    """
    frame = _tidy(per_query)
    test = canonical_test(test)
    correction = canonical_correction(correction)
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {', '.join(map(repr, FAMILIES))}, not {family!r}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie strictly between 0 and 1; got {alpha}")
    if not 0.0 < ci < 1.0:
        raise ValueError(f"ci must lie strictly between 0 and 1; got {ci}")
    if int(permutations) < 1:
        raise ValueError("permutations must be at least 1")
    if int(bootstrap) < 0:
        raise ValueError("bootstrap must not be negative")
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % (1 << 63))  # type: ignore[operator]  # an int here
    elif int(seed) < 0:
        raise ValueError("seed must not be negative")
    runs = _run_order(per_query, frame)
    baseline = _baseline(runs, baseline, getattr(per_query, "paths", None))
    chosen = _select_measures(frame, measures, _asked(per_query))
    others = [r for r in runs if r != baseline]

    # one engine for both comparisons: the pairs (run, baseline), d = run - baseline
    base = runs.index(baseline)
    columns = [runs.index(r) for r in others]
    found = []
    for measure, (queries, table) in zip(chosen, _tables(frame, runs, chosen)):
        one = pair_statistics(
            table,
            [(c, base) for c in columns],
            queries=queries,
            measure=measure,
            test=test,
            permutations=int(permutations),
            bootstrap=int(bootstrap),
            ci=ci,
            seed=int(seed),
        )
        present = ~np.isnan(table)
        run_present, base_present = present[:, columns], present[:, [base]]
        one["n_baseline_only"] = np.count_nonzero(base_present & ~run_present, axis=0).astype(np.int64)
        one["n_run_only"] = np.count_nonzero(run_present & ~base_present, axis=0).astype(np.int64)
        found.append(one)

    def column(name: str) -> np.ndarray:  # runs x measures, run by run
        if not found:
            return np.empty(0, dtype=np.int64 if name in _INT_COLUMNS else np.float64)
        return np.stack([one[name] for one in found], axis=1).ravel()

    result = pd.DataFrame(
        {
            "run": _labels([r for r in others for _ in chosen]),
            "measure": _labels([m for _ in others for m in chosen]),
            "baseline": _labels([baseline] * (len(others) * len(chosen))),
            "baseline_mean": column("mean_j"),
            "mean": column("mean_i"),
            "delta": column("difference"),
            **{name: column(name) for name in ("p_value", "ci_low", "ci_high", "effect_size", *_INT_COLUMNS)},
        }
    )
    _correct(result, correction, alpha, family)
    result["test"] = test
    result["correction"] = correction
    result["significant"] = (result["p_corrected"] <= alpha).fillna(False).astype(bool)
    result["alpha"] = float(alpha)
    result["ci_level"] = float(ci)
    result = result[COLUMNS]
    result.attrs.update(
        baseline=baseline,
        test=test,
        correction=correction,
        alpha=float(alpha),
        ci=float(ci),
        permutations=int(permutations),
        bootstrap=int(bootstrap),
        seed=int(seed),
        correction_family=FAMILIES[family],
    )
    from metrics.compare.frame import comparison_frame

    return comparison_frame(result)


def _correct(result: pd.DataFrame, correction: str, alpha: float, family: str) -> None:
    """``p_corrected`` and ``correction_family`` of ``result``: the correction over each measure's rows
    (``family="measure"``) or over all of them (``"all"``); the family's size counts its p-values."""
    p = result["p_value"].to_numpy(np.float64)
    corrected = np.full(len(p), np.nan)
    named = np.empty(len(p), dtype=object)
    groups = (
        [np.arange(len(p))]
        if family == "all"
        else [np.flatnonzero(result["measure"].to_numpy(object) == m) for m in _unique(result["measure"])]
    )
    for rows in groups:
        corrected[rows] = adjust_pvalues(p[rows], correction, alpha)
        size = int(np.count_nonzero(~np.isnan(p[rows])))
        named[rows] = f"{FAMILIES[family]} ({size} comparison{'s' if size != 1 else ''})"
    result["p_corrected"] = corrected
    result["correction_family"] = pd.array(list(named), dtype=object) if len(p) else pd.array([], dtype=object)
