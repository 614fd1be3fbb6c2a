"""The comparisons' hand-written numerics against the library calls that do the same job.

One measure of a realistic comparison: 250 queries, 100 runs (99 pairs with the baseline, or the
4,950 pairs of all of them), 10,000 resamples; a comparison of 10 measures takes ten times as long.
Prints milliseconds per measure (best of ``--rounds``) and the largest difference between the two
results where both draw the same random numbers.

    python benchmarks/library_numerics.py [--queries 250] [--runs 100] [--resamples 10000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from scipy import stats

from metrics.compare import pairs as engine
from metrics.compare import resampling


def best(f, rounds: int) -> tuple[float, object]:
    out, times = None, []
    for _ in range(rounds):
        t0 = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t0)
    return min(times) * 1e3, out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=250)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--resamples", type=int, default=10000)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args(argv)
    n, runs, b, k = a.queries, a.runs, a.resamples, a.rounds
    rng = np.random.default_rng(0)
    values = np.clip(rng.normal(0.4, 0.2, (n, 1)) + rng.normal(0, 0.1, (n, runs)), 0, 1)
    first, second = np.arange(1, runs), np.zeros(runs - 1, dtype=np.intp)  # every run against run 0
    d = values[:, first] - values[:, second]  # queries x pairs
    print(f"{n} queries, {runs} runs ({runs - 1} pairs with the baseline), {b} resamples; ms per measure")

    # bootstrap intervals: scipy.stats.bootstrap draws the same index matrix from the same generator
    own, (lo, hi) = best(lambda: resampling._intervals_by_runs(values, first, second, b, 0.95, 5), k)
    batch = max(1, (1 << 22) // (n * (runs - 1)))  # resamples per batch: 32 MiB of resampled differences

    def scipy_intervals():
        return stats.bootstrap(
            (d.T,), np.mean, vectorized=True, axis=-1, method="percentile", n_resamples=b, batch=batch, rng=5
        ).confidence_interval

    lib, ref = best(scipy_intervals, k)
    diff = max(np.abs(lo - ref.low).max(), np.abs(hi - ref.high).max())
    print(f"bootstrap intervals: here {own:.0f}, scipy.stats.bootstrap {lib:.0f} (difference {diff:.1e})")

    # paired bootstrap test: scipy's bootstrap distribution of the centred differences, counted here
    mean = d.mean(axis=0)
    largest = np.abs(d).max(axis=0)
    own, p = best(lambda: resampling._bootstrap_tests_by_runs(values, first, second, mean, largest, b, 5), k)

    def scipy_bootstrap_test():
        dist = stats.bootstrap(
            ((d - mean).T,), np.mean, vectorized=True, axis=-1, method="percentile", n_resamples=b, batch=batch, rng=5
        ).bootstrap_distribution
        threshold = np.abs(mean) - 1e-12 * np.maximum(1.0, largest)
        return (np.count_nonzero(np.abs(dist) >= threshold[:, None], axis=1) + 1) / (b + 1)

    lib, ref = best(scipy_bootstrap_test, k)
    print(
        f"bootstrap test: here {own:.0f}, scipy.stats.bootstrap's distribution {lib:.0f} "
        f"(difference {np.abs(p - ref).max():.1e})"
    )

    # sign-flip randomisation test: scipy draws other signs (no difference to show, only the time)
    total, spread = d.sum(axis=0), np.abs(d).sum(axis=0)
    own, _ = best(lambda: resampling._permutation_tests_by_runs(values, first, second, total, spread, b, 5), k)

    def scipy_permutation():
        return stats.permutation_test(
            (d.T,),
            lambda x, axis: np.mean(x, axis=axis),
            permutation_type="samples",
            vectorized=True,
            n_resamples=b,
            batch=batch,
            axis=-1,
            rng=5,
        ).pvalue

    lib, _ = best(scipy_permutation, k)
    print(f"permutation test: here {own:.0f}, scipy.stats.permutation_test {lib:.0f}")

    # randomised Tukey HSD: each query's values shuffled across the runs (scipy: "samples" of k paired samples)
    hsd_b = max(1, b // 10)
    own, _ = best(lambda: resampling.tukey_hsd(values, hsd_b, 5), 1)

    def spread_of_means(*samples, axis):
        means = np.stack([s.mean(axis=axis) for s in samples])
        return means.max(axis=0) - means.min(axis=0)

    def scipy_tukey():
        return stats.permutation_test(
            tuple(values.T),
            spread_of_means,
            permutation_type="samples",
            vectorized=True,
            n_resamples=hsd_b,
            batch=max(1, (1 << 22) // (n * runs)),
            rng=5,
        ).null_distribution

    lib, _ = best(scipy_tukey, 1)
    print(f"randomised Tukey HSD ({hsd_b} permutations): here {own:.0f}, scipy.stats.permutation_test {lib:.0f}")

    # Wilcoxon with ties on few queries: every sign flip, as scipy's Wilcoxon does, with a vectorised statistic
    small = np.round(rng.normal(0.02, 0.1, (runs - 1, 13)), 2)
    small[:, 0] = 0.0
    own, p = best(lambda: engine._signed_rank_flips(small), k)

    def scipy_rows():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.array([stats.wilcoxon(row).pvalue for row in small])

    lib, ref = best(scipy_rows, 1)
    print(
        f"Wilcoxon, 13 queries with ties, {runs - 1} rows: here {own:.0f}, scipy.stats.wilcoxon row by row "
        f"{lib:.0f} (difference {np.abs(p - ref).max():.1e})"
    )


if __name__ == "__main__":
    main()
