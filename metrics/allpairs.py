"""Every run against every other: all-pairs comparisons, the randomised Tukey HSD, and letters.

Input is the tidy per-query frame of :func:`metrics.evaluate` (columns ``run``,
``query_id``, ``measure``, ``value``), as for :func:`metrics.compare.compare`.

:func:`compare_all_pairs` returns one row per (measure, a, b) with a before b
in the runs' order: means over the paired queries, ``difference`` (a - b),
effect size d_z, a bootstrap interval of the difference, wins/ties/losses of
a, the p-value of the chosen test and the p-value corrected over every pair
and measure.  The intervals of all pairs of a measure come from one shared
resampling of the queries (:func:`paired_bootstrap_intervals`: a matrix
product instead of one resampling per pair, 16x faster for 50 runs).  Each
pair used to draw its own resamples from a stream named after the pair, so the
same seed gives other (equally distributed) intervals than before this change;
the kernel itself gives ``bootstrap_ci``'s and ``scipy.stats.bootstrap``'s
percentile interval for the same generator.  The tests:

* ``"t"``, ``"wilcoxon"``, ``"permutation"``: the paired tests of
  :mod:`metrics.compare` (scipy's ``ttest_rel`` and ``wilcoxon``, a vectorised
  sign-flip randomisation test), on each pair's paired queries; the pairs with
  the same paired queries share one matrix of random signs
  (:func:`paired_permutation_tests`; each pair used to draw its own, so the
  same seed gives other p-values than before);
* ``"bootstrap"``: the paired bootstrap test of Sakai (2006): resamples of
  the centred differences ``d - mean(d)``; ``p = (k + 1) / (B + 1)`` with k the
  resamples whose ``|mean|`` reaches the observed ``|mean(d)|``.  scipy's
  ``bootstrap`` gives intervals, not this test, so it is written here; all
  pairs with the same paired queries share one resampling
  (:func:`paired_bootstrap_tests`, as for the intervals; each pair used to
  draw its own, so the same seed gives other p-values than before);
* ``"tukey"``: the randomised Tukey HSD (Carterette 2012, "Multiple testing
  in statistical analysis of systems-based information retrieval
  experiments"): on the queries every run has a value for, each permutation
  shuffles every query's values across the runs; a pair's p-value is the
  share of permutations whose largest difference between run means (max -
  min) reaches the pair's observed |difference| (with the observed assignment
  counted once more).  It controls the family-wise error over all pairs of a
  measure by construction, so no further correction is applied to it.  No
  library offers it (statsmodels' ``pairwise_tukeyhsd`` is the parametric,
  unpaired relative), hence numpy here, vectorised over permutations in chunks
  with ``Generator.permuted``.

Seeds make every p-value and interval reproducible (the same seed, runs and
measures give the same numbers; ``ir-eval --seed``).  The default 10,000
permutations (and bootstrap resamples) keep a p-value near 0.05 within about
0.01 of its exact value: its Monte-Carlo standard error ``sqrt(p (1 - p) / B)``
is 0.0022, so 0.01 is 4.6 standard errors (checked in the tests against p-values
from full enumeration, for the randomisation test and the Tukey HSD).

:func:`significance_letters` gives each run a letter (a, b, c... in order) and
each (run, measure) the letters of the runs it is significantly better than,
as ranx and many papers print them.
"""

from __future__ import annotations

import math
import string
import zlib

import numpy as np
import pandas as pd

from .compare.baseline import _run_order, _select_measures, _tidy
from .compare.statistics import _CHUNK as _DRAW_BLOCK
from .compare.statistics import _clean, _effect_size, _test_pair, adjust_pvalues
from .errors import Cancelled
from .stat_methods import ALL_PAIRS_TESTS, CORRECTIONS, canonical_correction, canonical_test

PAIR_COLUMNS = [
    "measure",
    "a",
    "b",
    "mean_a",
    "mean_b",
    "difference",
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
_CHUNK = 1 << 22  # values of one block of permuted tables (32 MiB as float64)


def _rng(seed: int, measure, stream: str) -> np.random.Generator:
    words = [int(seed), zlib.crc32(str(measure).encode()), zlib.crc32(stream.encode())]
    return np.random.default_rng(np.random.SeedSequence(words))


def bootstrap_test(differences, resamples: int = 10000, rng=0) -> float:
    """Two-sided paired bootstrap test of ``mean(differences) == 0`` (shift method)."""
    d = np.asarray(differences, dtype=np.float64)
    n = d.size
    if n < 2:
        return math.nan
    if not d.any():
        return 1.0
    rng = np.random.default_rng(rng)
    centred = d - d.mean()
    observed = abs(d.mean())
    allowance = 1e-12 * max(1.0, np.abs(d).max())
    rows = max(1, (1 << 20) // n)
    count = done = 0
    while done < resamples:
        m = min(rows, resamples - done)
        means = centred[rng.integers(0, n, size=(m, n))].mean(axis=1)
        count += int(np.count_nonzero(np.abs(means) >= observed - allowance))
        done += m
    return (count + 1) / (resamples + 1)


def paired_bootstrap_intervals(
    differences, resamples: int = 10000, ci: float = 0.95, rng: np.random.Generator | int | None = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap intervals of the mean of every column of ``differences`` (queries x pairs) at once.

    One matrix of resampled query indices (``resamples x n``, drawn with
    ``rng.integers(0, n, size=(resamples, n))``) is shared by every column.
    The design is paired: a query is one observation of every system, so
    resampling queries and reading every pair's difference on the same
    resample is the bootstrap of each pair (each column's interval, on its
    own, is distributed exactly as :func:`metrics.compare.bootstrap_ci`'s);
    only the intervals of different pairs become dependent.  It is the
    computation of ``scipy.stats.bootstrap((differences.T,), np.mean,
    vectorized=True, method="percentile")`` (scipy also shares one index matrix
    over the batch dimensions, and draws it the same way, so the same generator
    gives the same intervals), without its ``pairs x resamples x n``
    temporaries: the means are ``counts @ differences / n`` with ``counts`` the
    number of times each query is drawn in each resample, one matrix product
    per block.  Quantiles are numpy's linear ones, as in ``bootstrap_ci``.

    Columns with no non-zero difference get (0, 0); fewer than 2 rows or
    ``resamples == 0`` give NaN intervals.
    """
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim != 2 or np.isnan(d).any():
        raise ValueError("differences must be a 2-d array (queries x pairs) without NaN")
    if not 0.0 < ci < 1.0:
        raise ValueError(f"ci must lie strictly between 0 and 1; got {ci}")
    if resamples < 0:
        raise ValueError("resamples must not be negative")
    n, pairs = d.shape
    low, high = np.full(pairs, np.nan), np.full(pairs, np.nan)
    if n < 2 or resamples == 0 or pairs == 0:
        return low, high
    for first, part in _resampled_means(d, resamples, rng):
        low[first : first + part.shape[1]], high[first : first + part.shape[1]] = np.quantile(
            part, [(1.0 - ci) / 2.0, (1.0 + ci) / 2.0], axis=0
        )
    zero = ~d.any(axis=0)
    low[zero] = high[zero] = 0.0
    return low, high


def _resampled_means(d: np.ndarray, resamples: int, rng):
    """Yield ``(first, means)``: the means of columns ``first:first + k`` of ``d`` (n x pairs) over
    ``resamples`` bootstrap resamples of its rows, a ``resamples x k`` block; every block from the
    same index matrix ``rng.integers(0, n, size=(resamples, n))`` (drawn in row blocks)."""
    n, pairs = d.shape
    rng = np.random.default_rng(rng)
    start = rng.bit_generator.state
    rows = max(1, _CHUNK // (4 * n))  # resamples per block of counts
    cols = max(1, _CHUNK // resamples)  # pairs per block of resampled means
    means = np.empty((resamples, min(cols, pairs)))
    for first in range(0, pairs, cols):
        block = d[:, first : first + cols]
        # the same index matrix for every block of pairs: the generator restarts from its state
        rng.bit_generator.state = start
        done = 0
        while done < resamples:
            m = min(rows, resamples - done)
            idx = rng.integers(0, n, size=(m, n))
            idx += (np.arange(m) * n)[:, None]
            counts = np.bincount(idx.ravel(), minlength=m * n).reshape(m, n).astype(np.float64)
            np.matmul(counts, block, out=means[done : done + m, : block.shape[1]])
            done += m
        part = means[:, : block.shape[1]]
        part /= n
        yield first, part


def paired_bootstrap_tests(
    differences, resamples: int = 10000, rng: np.random.Generator | int | None = 0
) -> np.ndarray:
    """:func:`bootstrap_test` of every column of ``differences`` (queries x pairs) at once.

    One shared resampling of the queries, as in :func:`paired_bootstrap_intervals`
    (the paired design: a resample of queries is a resample of every pair);
    each column's p-value is the one :func:`bootstrap_test` gives with the same
    generator: the resampled means of the centred differences are
    ``counts @ d / n - mean(d)``.  NaN for fewer than 2 rows, 1.0 for a column
    without any non-zero difference.
    """
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim != 2 or np.isnan(d).any():
        raise ValueError("differences must be a 2-d array (queries x pairs) without NaN")
    if resamples < 1:
        raise ValueError("resamples must be at least 1")
    n, pairs = d.shape
    if n < 2:
        return np.full(pairs, np.nan)
    mean = d.mean(axis=0)
    observed = np.abs(mean)
    allowance = 1e-12 * np.maximum(1.0, np.abs(d).max(axis=0, initial=0.0))
    count = np.zeros(pairs, dtype=np.int64)
    for first, part in _resampled_means(d, resamples, rng):
        k = part.shape[1]
        part -= mean[first : first + k]
        count[first : first + k] = np.count_nonzero(
            np.abs(part) >= observed[first : first + k] - allowance[first : first + k], axis=0
        )
    p = (count + 1) / (resamples + 1)
    p[~d.any(axis=0)] = 1.0
    return p


def paired_permutation_tests(
    differences, permutations: int = 10000, rng: np.random.Generator | int | None = 0
) -> np.ndarray:
    """:func:`metrics.compare.permutation_test` of every column of ``differences`` (queries x pairs) at once.

    One matrix of random signs (``permutations x n``) shared by every column:
    flipping the sign of a query's difference swaps the two runs' values on
    that query, and in the paired design one set of swaps serves every pair
    (each pair's p-value, on its own, is distributed as with its own signs).
    The signs are drawn exactly as ``permutation_test`` draws them (random
    bits in the same blocks), so each column's p-value is the one it gives
    with the same generator; the signed sums are ``2 (bits @ d) - sum(d)``,
    one matrix product per block.  NaN for fewer than 2 rows, 1.0 for a
    column without any non-zero difference.
    """
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim != 2 or np.isnan(d).any():
        raise ValueError("differences must be a 2-d array (queries x pairs) without NaN")
    if permutations < 1:
        raise ValueError("permutations must be at least 1")
    n, pairs = d.shape
    if n < 2:
        return np.full(pairs, np.nan)
    rng = np.random.default_rng(rng)
    start = rng.bit_generator.state
    total = d.sum(axis=0)
    observed = np.abs(total)
    allowance = 1e-9 * np.abs(d).sum(axis=0)
    rows = max(1, _DRAW_BLOCK // n)  # permutation_test's blocks of draws
    cols = max(1, _CHUNK // min(rows, permutations))
    count = np.zeros(pairs, dtype=np.int64)
    for first in range(0, pairs, cols):
        block = d[:, first : first + cols]
        last = first + block.shape[1]
        rng.bit_generator.state = start  # the same signs for every block of pairs
        done = 0
        while done < permutations:
            m = min(rows, permutations - done)
            bits = np.unpackbits(np.frombuffer(rng.bytes((m * n + 7) // 8), dtype=np.uint8), count=m * n)
            sums = 2.0 * (bits.reshape(m, n).astype(np.float64) @ block) - total[first:last]
            count[first:last] += np.count_nonzero(np.abs(sums) >= observed[first:last] - allowance[first:last], axis=0)
            done += m
    p = (count + 1) / (permutations + 1)
    p[~d.any(axis=0)] = 1.0
    return p


def _groups(wide: np.ndarray, pairs: list) -> list:
    """``[(query mask, pairs)]``: the pairs of columns of ``wide`` grouped by their paired queries."""
    present = ~np.isnan(wide)
    groups: dict[bytes, list] = {}
    for i, j in pairs:
        groups.setdefault(np.packbits(present[:, i] & present[:, j]).tobytes(), []).append((i, j))
    return list(groups.items())


def _pair_resamplings(wide: np.ndarray, pairs: list, seed: int, measure, stream: str, kernel) -> dict:
    """``{(i, j): kernel(d, rng)[column]}`` for the pairs of columns of ``wide`` (queries x runs, NaN = missing).

    Pairs with the same paired queries (all of them, when no run misses a
    query) share one resampling, seeded by the seed, the measure, ``stream``
    and those queries.
    """
    out = {}
    for key, members in _groups(wide, pairs):
        mask = np.unpackbits(np.frombuffer(key, dtype=np.uint8), count=wide.shape[0]).astype(bool)
        sub = wide[mask]
        d = _clean(sub[:, [i for i, _ in members]] - sub[:, [j for _, j in members]])
        values = kernel(d, _rng(seed, measure, f"{stream} {zlib.crc32(key)}"))
        out.update({pair: value for pair, value in zip(members, values)})
    return out


def _pair_intervals(wide: np.ndarray, pairs: list, resamples: int, ci: float, seed: int, measure) -> dict:
    """``{(i, j): (low, high)}``: :func:`paired_bootstrap_intervals` by groups of pairs."""

    def kernel(d, rng):
        low, high = paired_bootstrap_intervals(d, resamples, ci, rng)
        return [(float(lo), float(hi)) for lo, hi in zip(low, high)]

    return _pair_resamplings(wide, pairs, seed, measure, "ci", kernel)


def tukey_hsd(table: np.ndarray, permutations: int = 10000, rng=0, progress=None) -> np.ndarray:
    """Randomised Tukey HSD p-values, a runs x runs matrix, for ``table`` (queries x runs, no NaN)."""
    x = np.asarray(table, dtype=np.float64)
    q, s = x.shape
    p = np.full((s, s), np.nan)
    if q < 2 or s < 2:
        return p
    rng = np.random.default_rng(rng)
    observed = np.abs(x.mean(axis=0)[:, None] - x.mean(axis=0)[None, :])
    allowance = 1e-12 * max(1.0, float(np.abs(x).max()))
    rows = max(1, _CHUNK // (q * s))
    counts = np.zeros((s, s), dtype=np.int64)
    done = 0
    while done < permutations:
        m = min(rows, permutations - done)
        shuffled = rng.permuted(np.broadcast_to(x, (m, q, s)), axis=2)  # each query's values across runs
        means = shuffled.mean(axis=1)
        ranges = means.max(axis=1) - means.min(axis=1)  # the largest difference of one permutation
        ranges.sort()
        # for each pair: permutations whose range reaches the observed difference
        counts += m - np.searchsorted(ranges, observed - allowance, side="left")
        done += m
        if progress is not None and progress(done / permutations) is False:
            raise Cancelled("Tukey HSD cancelled")
    p = (counts + 1) / (permutations + 1)
    np.fill_diagonal(p, np.nan)
    return p


def compare_all_pairs(
    per_query,
    *,
    runs=None,
    measures=None,
    test: str = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    permutations: int = 10000,
    bootstrap: int = 10000,
    ci: float = 0.95,
    seed: int = 0,
    progress=None,
) -> pd.DataFrame:
    """Compare every pair of runs on every measure; one row per (measure, a, b), a before b in order.

    ``runs``: the runs to compare, in order (default: all, in the frame's order).
    ``permutations``: permutations of the randomisation test and the Tukey
    HSD, resamples of the bootstrap test; the default 10,000 keeps a p-value
    near 0.05 within about 0.01 (module docstring).  ``bootstrap``: resamples
    of the intervals.  ``seed`` makes p-values and intervals reproducible.
    ``correction`` applies over every pair and measure for the pairwise tests;
    the Tukey HSD controls the family-wise error over a measure's pairs itself
    and gets ``correction = "none"``.  ``progress(fraction)`` may return False
    to cancel (:class:`metrics.errors.Cancelled`).
    """
    frame = _tidy(per_query)
    test = canonical_test(test, pairs=True)
    correction = "none" if test == "tukey" else canonical_correction(correction)
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie strictly between 0 and 1; got {alpha}")
    if int(permutations) < 1:
        raise ValueError("permutations must be at least 1")
    order = _run_order(per_query, frame) if runs is None else list(runs)
    chosen = _select_measures(frame, measures)
    frame = frame.loc[frame["measure"].isin(chosen) & frame["run"].isin(order) & frame["value"].notna()]
    rows = []
    steps = max(1, len(chosen))
    for mi, measure in enumerate(chosen):
        wide = frame.loc[frame["measure"] == measure].pivot(index="query_id", columns="run", values="value")
        wide = wide.reindex(columns=order)
        table = wide.to_numpy(np.float64)
        every = [(i, j) for i in range(len(order)) for j in range(i + 1, len(order))]
        intervals = _pair_intervals(table, every, int(bootstrap), ci, seed, measure)
        if test == "permutation":
            tests = _pair_resamplings(
                table,
                every,
                seed,
                measure,
                "test",
                lambda d, rng: paired_permutation_tests(d, int(permutations), rng).tolist(),
            )
        if test == "bootstrap":
            tests = _pair_resamplings(
                table,
                every,
                seed,
                measure,
                "test",
                lambda d, rng: paired_bootstrap_tests(d, int(permutations), rng).tolist(),
            )
        tukey = None
        if test == "tukey":
            complete = wide.dropna()
            part = None if progress is None else (lambda f, mi=mi: progress((mi + f) / steps))
            tukey = tukey_hsd(complete.to_numpy(), int(permutations), _rng(seed, measure, "tukey"), part)
        for i, a in enumerate(order):
            for j in range(i + 1, len(order)):
                b = order[j]
                va, vb = table[:, i], table[:, j]
                paired = ~np.isnan(va) & ~np.isnan(vb)
                d = _clean(va[paired] - vb[paired])
                n = int(d.size)
                row = {
                    "measure": measure,
                    "a": a,
                    "b": b,
                    "mean_a": float(va[paired].mean()) if n else math.nan,
                    "mean_b": float(vb[paired].mean()) if n else math.nan,
                    "difference": float(d.mean()) if n else math.nan,
                    "wins": int(np.count_nonzero(d > 0)),
                    "ties": int(np.count_nonzero(d == 0)),
                    "losses": int(np.count_nonzero(d < 0)),
                    "n_queries": n,
                    "effect_size": _effect_size(d) if n >= 2 else math.nan,
                }
                row["ci_low"], row["ci_high"] = intervals[i, j]
                if tukey is not None:
                    row["p_value"] = float(tukey[i, j])
                elif test in ("bootstrap", "permutation"):
                    row["p_value"] = float(tests[i, j])
                else:
                    row["p_value"] = _test_pair(d, test, int(permutations), _rng(seed, measure, f"test {a} {b}"))
                rows.append(row)
        if progress is not None and test != "tukey" and progress((mi + 1) / steps) is False:
            raise Cancelled("comparison cancelled")
    result = pd.DataFrame(
        rows,
        columns=[c for c in PAIR_COLUMNS if c not in ("p_corrected", "test", "correction", "significant", "alpha")],
    )
    result["p_corrected"] = adjust_pvalues(result["p_value"].to_numpy(np.float64), correction)
    result["test"], result["correction"], result["alpha"] = test, correction, float(alpha)
    result["significant"] = (result["p_corrected"] <= alpha).fillna(False).astype(bool)
    for col in ("wins", "ties", "losses", "n_queries"):
        result[col] = result[col].astype(np.int64)
    result = result[PAIR_COLUMNS]
    result.attrs.update(
        runs=list(order),
        test=test,
        correction=correction,
        alpha=float(alpha),
        permutations=int(permutations),
        seed=int(seed),
        ci=float(ci),
        bootstrap=int(bootstrap),
    )
    return result


def _json_value(value):
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    return str(value)


def pairs_to_json(pairs: pd.DataFrame) -> dict:
    """The document ``ir-eval --all-pairs --format json`` writes, as a dict ready for :func:`json.dump`.

    ``runs``: the run labels in the order compared (a before b in every pair);
    ``test``, ``correction``, ``alpha``, ``permutations``, ``seed``, ``ci``
    (the intervals' confidence level) and ``bootstrap`` (their resamples);
    ``pairs``: one object per row of :func:`compare_all_pairs` with its columns
    but ``alpha`` (``measure``, ``a``, ``b``, ``p_value``, ``p_corrected``,
    ``difference`` = mean of a - b, ``effect_size`` d_z, ``ci_low``/``ci_high``,
    ...).  Numbers are written in full (``repr`` precision: pandas' ``to_json``
    rounds to a number of decimal places, which loses the digits of small
    p-values); NaN and infinite values (an effect size without spread) as null.
    """
    attrs = pairs.attrs
    records = [
        {key: _json_value(value) for key, value in row.items() if key != "alpha"}
        for row in pairs.to_dict(orient="records")
    ]
    return {
        "runs": [str(r) for r in attrs.get("runs", [])],
        "test": attrs.get("test"),
        "correction": attrs.get("correction"),
        "alpha": attrs.get("alpha"),
        "permutations": attrs.get("permutations"),
        "seed": attrs.get("seed"),
        "ci": attrs.get("ci"),
        "bootstrap": attrs.get("bootstrap"),
        "pairs": records,
    }


def letter(i: int) -> str:
    """a, b, ..., z, aa, ab, ... for runs 0, 1, 2, ..."""
    out = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        out = string.ascii_lowercase[r] + out
    return out


def significance_letters(pairs: pd.DataFrame, runs=None, lower_is_better=()) -> dict:
    """``{(run, measure): "bd"}``: the letters of the runs each run is significantly better than.

    Run i has letter :func:`letter` (i) in ``runs`` order (default: the order the pairs were made in).
    Better means a higher mean, or a lower one for measures in ``lower_is_better``.
    """
    runs = list(runs if runs is not None else pairs.attrs.get("runs") or pd.unique(pairs[["a", "b"]].values.ravel()))
    letters = {r: letter(i) for i, r in enumerate(runs)}
    lower = set(map(str, lower_is_better))
    out: dict = {}
    for row in pairs.loc[pairs["significant"]].itertuples(index=False):
        diff = row.difference if str(row.measure) not in lower else -row.difference
        if diff > 0:
            winner, loser = row.a, row.b
        elif diff < 0:
            winner, loser = row.b, row.a
        else:
            continue
        out.setdefault((winner, str(row.measure)), set()).add(letters[loser])
    return {k: "".join(sorted(v, key=lambda s: (len(s), s))) for k, v in out.items()}


def describe(pairs: pd.DataFrame) -> str:
    """One sentence stating the test, the correction and alpha, for under a table."""
    test = pairs.attrs.get("test", "t")
    correction = pairs.attrs.get("correction", "none")
    alpha = pairs.attrs.get("alpha", 0.05)
    n = int(pairs["p_value"].notna().sum())
    if test == "tukey":
        how = (
            f"which controls the family-wise error over each measure's pairs, "
            f"{pairs.attrs.get('permutations', 10000)} permutations"
        )
    else:
        how = f"{CORRECTIONS[correction]} correction over {n} tests" if correction != "none" else "no correction"
    return (
        f"Letters: the runs a value is significantly better than ({ALL_PAIRS_TESTS[test]}, {how}, alpha = {alpha:g})."
    )


def format_pairs(pairs: pd.DataFrame) -> str:
    """A readable table of the pairs for a terminal."""
    head = f"{'measure':<14} {'a':<16} {'b':<16} {'diff':>8} {'p':>8} {'p corr':>8}  sig"
    lines = [describe(pairs), "", head, "-" * len(head)]
    for r in pairs.itertuples(index=False):
        lines.append(
            f"{str(r.measure):<14} {str(r.a):<16} {str(r.b):<16} {r.difference:>+8.4f} "
            f"{r.p_value:>8.4f} {r.p_corrected:>8.4f}  {'*' if r.significant else ''}"
        )
    return "\n".join(lines) + "\n"
