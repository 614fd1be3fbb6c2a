"""Comparison with the baseline as the window shows it (plain Python, no Qt).

:func:`compute` runs in a worker: the paired tests of :func:`metrics.compare.compare`
on an evaluation's per-query values, and the per-query differences of every
measure for the difference chart.  The GUI thread only looks results up
(:func:`summary_marks`, :func:`legend`, :meth:`Comparison.differences_for`).
"""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from metrics.measures import is_count
from metrics.presentation import HIGHER, LOWER, format_pvalue, significance_marker
from metrics.stat_methods import ALL_PAIRS_TESTS as STAT_ALL_TESTS
from metrics.stat_methods import CORRECTION_METHODS, TEST_METHODS
from metrics.stat_methods import CORRECTIONS as STAT_CORRECTIONS
from metrics.stat_methods import PAIRS_ONLY as STAT_PAIRS_ONLY
from metrics.stat_methods import TESTS as STAT_TESTS


class _LazyCompare:
    """:mod:`metrics.compare`, imported on first use (in the thread that compares): the window is shown
    without it, and its tests bring scipy (``scipy.special`` for the t-test, about 0.2 s; ``scipy.stats`` for
    the rank tests, about 0.6 s) only when the first comparison runs."""

    def __getattr__(self, name):
        import metrics.compare

        return getattr(metrics.compare, name)


mc = _LazyCompare()

#: Tests offered in the window: code -> short label (the one table: :mod:`metrics.stat_methods`).
TESTS = {m.code: m.label for m in TEST_METHODS}
#: Tests that compare every pair only (not one run with a baseline).
PAIRS_ONLY = STAT_PAIRS_ONLY
#: What is compared: code -> short label.
MODES = {"baseline": "with the baseline", "pairs": "all pairs"}
#: Corrections offered in the window: code -> short label.
CORRECTIONS = {m.code: m.label for m in CORRECTION_METHODS}
ALPHAS = (0.1, 0.05, 0.01, 0.005, 0.001)
#: the all-pairs comparison of the window compares at most this many runs (the best by the measure in
#: focus, and the baseline): 50 runs are 1,225 pairs, and a runs x runs matrix still readable
MAX_PAIR_RUNS = 50

PAD = "\u2002"  # en space, about as wide as a dagger: keeps the decimals of a column aligned


@dataclass(frozen=True)
class Settings:
    """How runs are compared with the baseline."""

    test: str = "t"
    alpha: float = 0.05
    correction: str = "holm"
    permutations: int = 10000
    bootstrap: int = 10000
    seed: int = 0
    mode: str = "baseline"  # "baseline": every run against the baseline; "pairs": every pair of runs

    def __post_init__(self):
        if self.mode not in MODES:
            raise ValueError(f"unknown comparison {self.mode!r}; expected one of {', '.join(MODES)}")
        if self.test in PAIRS_ONLY and self.mode != "pairs":
            raise ValueError(f"the {TESTS[self.test]} compares all pairs of runs")
        if self.test not in TESTS:
            raise ValueError(f"unknown test {self.test!r}; expected one of {', '.join(TESTS)}")
        if self.correction not in CORRECTIONS:
            raise ValueError(f"unknown correction {self.correction!r}; expected one of {', '.join(CORRECTIONS)}")
        if not 0.0 < float(self.alpha) < 1.0:
            raise ValueError(f"alpha must lie strictly between 0 and 1; got {self.alpha}")


@dataclass(frozen=True)
class Request:
    """Inputs of one comparison; a value, so a worker can own it."""

    per_query: pd.DataFrame  # Evaluation.per_query (run, query_id, measure, value)
    runs: tuple[str, ...]  # run order
    baseline: str
    settings: Settings
    #: the runs compared in pairs (mode "pairs"), in order; None: every run
    pair_runs: tuple[str, ...] | None = None

    @property
    def paired(self) -> tuple[str, ...]:
        """The runs the all-pairs comparison compares."""
        return self.runs if self.pair_runs is None else self.pair_runs

    def same_as(self, other: Request) -> bool:
        """Whether ``other`` asks for the same comparison (of the very same per-query values)."""
        return self.per_query is other.per_query and (self.runs, self.baseline, self.settings, self.pair_runs) == (
            other.runs,
            other.baseline,
            other.settings,
            other.pair_runs,
        )

    @property
    def quick(self) -> bool:
        """Whether the comparison takes a fraction of a second whatever the runs (the t-test of every run
        with the baseline, once :mod:`scipy.special`, whose ``stdtr`` gives its p-values, is imported): worth
        computing with the scores, before the window draws them.  The first comparison imports it (about
        0.2 s of CPU), so it runs in its own job once the scores are drawn, and its marks appear a moment
        after them."""
        return self.settings.mode == "baseline" and self.settings.test == "t" and "scipy.special" in sys.modules


@dataclass
class Comparison:
    """Result of :func:`compute`."""

    request: Request
    table: pd.DataFrame  # metrics.compare.compare frame
    differences: dict[str, pd.DataFrame] = field(default_factory=dict)  # measure -> per_query_differences
    pairs: pd.DataFrame | None = None  # metrics.compare.allpairs frame (mode "pairs")
    #: whether ``table`` has its bootstrap intervals (``ci_low``, ``ci_high``); the window's comparisons have
    #: not until an export computes them (no view shows them): see :func:`compute`
    intervals: bool = True
    _pair_rows: dict | None = field(default=None, init=False, repr=False, compare=False)
    #: the summary table's marks and tooltips, by (runs, columns): made in the worker that computed the
    #: comparison (:func:`prepare_marks`), so that the window's thread only takes them (500 runs: 60 ms)
    _marks: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def letters(self) -> dict:
        """``{(run, measure): letters}`` of the runs each run is significantly better than (mode "pairs")."""
        if self.pairs is None:
            return {}
        from metrics.compare.allpairs import significance_letters

        return significance_letters(self.pairs, list(self.request.paired))

    def pair(self, a: str, b: str, measure: str):
        """The all-pairs row of runs ``a`` and ``b`` (either order) on ``measure``, as a dict, or None."""
        if self.pairs is None:
            return None
        if self._pair_rows is None:  # built once: the matrix view asks for every cell
            self._pair_rows = {}
            for row in self.pairs.to_dict(orient="records"):
                m = str(row["measure"])
                self._pair_rows[(m, row["a"], row["b"])] = self._pair_rows[(m, row["b"], row["a"])] = row
        return self._pair_rows.get((str(measure), a, b))

    def is_for(self, results) -> bool:
        """Whether this comparison was computed from these evaluation results."""
        return results is not None and self.request.per_query is results.evaluation.per_query

    def differences_for(self, measure: str, run: str | None = None) -> pd.DataFrame:
        """Per-query differences for one measure (one run, or all when ``run`` is None)."""
        frame = self.differences.get(measure)
        if frame is None:
            return pd.DataFrame(columns=["query_id", "run", "delta", "baseline_value", "value"])
        if run is None:
            return frame
        return frame.loc[frame["run"] == run].reset_index(drop=True)

    def row(self, run: str, measure: str):
        t = self.table
        hit = t.loc[(t["run"] == run) & (t["measure"] == measure)]
        return None if hit.empty else hit.iloc[0]


def compute(request: Request, progress=None, *, intervals: bool = True) -> Comparison:
    """Paired tests of every run against the baseline, and the per-query differences.

    ``intervals=False``: without the bootstrap intervals of the differences with the baseline (10,000
    resamples of every run: most of the comparison's time, 1.7 s of 2 with 500 runs).  The window computes
    the marks it shows that way; an export that writes the intervals computes them
    (:func:`with_intervals`), and the window keeps them for the next one."""
    s = request.settings
    source, measures = _source(request)
    pairs = None
    if s.mode == "pairs":
        from metrics.compare.allpairs import compare_all_pairs

        part = None if progress is None else (lambda f: progress(0.7 * f))
        pairs = compare_all_pairs(
            source,
            runs=list(request.paired),
            measures=measures,
            test=s.test,
            correction=s.correction,
            alpha=s.alpha,
            permutations=s.permutations,
            bootstrap=s.bootstrap,  # one shared resampling for all pairs: well under a second for 50 runs
            seed=s.seed,
            progress=part,
        )
    # against the baseline too: the per-query differences and their chart
    table = _against_baseline(request, source, measures, intervals)
    if progress is not None and progress(0.8) is False:
        from metrics.errors import Cancelled

        raise Cancelled("comparison cancelled")
    differences = mc.per_query_differences_by_measure(source, request.baseline)
    return Comparison(request=request, table=table, differences=differences, pairs=pairs, intervals=intervals)


def with_intervals(comparison: Comparison, progress=None) -> Comparison:
    """``comparison`` with the bootstrap intervals of its table: the table computed again with them (the
    same draws and tests: the same p-values), its per-query differences and pairs as they are."""
    if comparison.intervals:
        return comparison
    source, measures = _source(comparison.request)
    table = _against_baseline(comparison.request, source, measures, True)
    if progress is not None:
        progress(1.0)
    completed = dataclasses.replace(comparison, table=table, intervals=True)
    completed._marks.update(comparison._marks)  # (the same tests and p-values: the same marks)
    return completed


def _source(request: Request):
    per_query = request.per_query
    measures = [m for m in pd.unique(per_query["measure"]) if not is_count(m)]
    return _Ordered(per_query, list(request.runs)), measures


def _against_baseline(request: Request, source, measures: list, intervals: bool) -> pd.DataFrame:
    s = request.settings
    return mc.compare(
        source,
        request.baseline,
        measures=measures,
        test="t" if s.test in PAIRS_ONLY else s.test,
        correction=s.correction,
        family="all",  # (the window corrects over every run and measure shown, as ir-eval --compare; it says so)
        alpha=s.alpha,
        permutations=s.permutations,
        bootstrap=s.bootstrap if intervals else 0,
        seed=s.seed,
    )


class _Ordered:
    """A per-query frame with a run order (what metrics.compare reads from an Evaluation)."""

    def __init__(self, per_query: pd.DataFrame, runs: list[str]):
        self.per_query = per_query
        self.runs = runs


# ---------------------------------------------------------------- lookups for views


def marker(row) -> str:
    """Dagger (significantly higher than the baseline), double dagger (lower) or ''."""
    return significance_marker(row)


def tooltip(row, family: int) -> str:
    """What a marked (or unmarked) value of a run means against the baseline."""
    test = STAT_TESTS.get(row["test"], str(row["test"]))
    correction = STAT_CORRECTIONS.get(row["correction"], str(row["correction"]))
    verdict = (
        f"significantly {'higher' if row['delta'] > 0 else 'lower'} than the baseline"
        if bool(row["significant"])
        else "not significantly different from the baseline"
    )
    lines = [
        f"{row['run']} vs {row['baseline']} on {row['measure']}: {verdict}",
        f"mean {row['mean']:.4f} vs {row['baseline_mean']:.4f} (Δ {row['delta']:+.4f}), "
        f"{_count(row['wins'], 'win')} / {_count(row['ties'], 'tie')} / {_count(row['losses'], 'loss')} "
        f"over {_count(row['n_queries'], 'query')}",
        f"p = {format_pvalue(row['p_value'])} ({test}, two-sided)",
    ]
    if row["correction"] == "none":
        lines.append(f"no correction for multiple testing ({family} tests); α = {row['alpha']:g}")
    else:
        corrected = format_pvalue(row["p_corrected"])
        lines.append(f"corrected p = {corrected} ({correction} over {family} tests); α = {row['alpha']:g}")
    return "\n".join(lines)


def _count(n, noun: str) -> str:
    plural = {"loss": "losses", "query": "queries"}.get(noun, noun + "s")
    return f"{int(n)} {noun if int(n) == 1 else plural}"


def prepare_marks(comparison: Comparison, summary: pd.DataFrame) -> None:
    """Make the marks of the summary table of ``summary`` (the results' runs x measures) now, in the worker
    that computed ``comparison``: :func:`summary_marks` then finds them."""
    from workbench.state.tables import summary_table

    summary_marks(comparison, summary_table(summary)[0])


def summary_marks(comparison: Comparison | None, table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Marks and tooltips for a summary table (a ``run`` column, then one column per measure).

    Same shape as ``table``; a cell of a run other than the baseline on a
    compared measure gets the marker and a tooltip; unmarked cells of compared
    measures get :data:`PAD` so that the numbers stay aligned; the baseline's
    ``run`` cell says it is the baseline.  Made once per comparison and table shape (copies are given).
    """
    key = None
    if comparison is not None and "run" in table.columns:
        key = (tuple(table["run"]), tuple(str(c) for c in table.columns))
        made = comparison._marks.get(key)
        if made is not None:
            marks, tips = made
            return marks.copy(), tips.copy()
    columns = [str(c) for c in table.columns]
    marks = np.full((len(table), len(columns)), "", dtype=object)
    tips = np.full((len(table), len(columns)), "", dtype=object)
    if comparison is not None and "run" in table.columns:
        # cells filled through plain arrays and dictionaries: with 100 runs a lookup per cell in the
        # comparison's frame (or pandas' .at) takes seconds on the GUI thread
        fill = _letter_marks if comparison.pairs is not None else _baseline_marks
        fill(comparison, list(table["run"]), columns, marks, tips)
    made = (
        pd.DataFrame(marks, index=table.index, columns=table.columns, dtype=object),
        pd.DataFrame(tips, index=table.index, columns=table.columns, dtype=object),
    )
    if key is not None and comparison is not None:
        comparison._marks[key] = made
        return made[0].copy(), made[1].copy()
    return made


def _baseline_marks(comparison: Comparison, runs: list, columns: list, marks, tips) -> None:
    """The marker of each value against the baseline (dagger, double dagger), with its test in the tooltip."""
    t = comparison.table
    family = int(t["p_value"].notna().sum())
    names = [str(c) for c in t.columns]  # the rows as dictionaries, from the columns' lists (to_dict is slower)
    records = (dict(zip(names, values)) for values in zip(*(t[c].tolist() for c in t.columns)))
    lookup = {(r["run"], str(r["measure"])): r for r in records}
    measures = {str(m) for m in pd.unique(t["measure"])}
    compared = [j for j, col in enumerate(columns) if col in measures]
    run_col = columns.index("run")
    for i, run in enumerate(runs):
        if run == comparison.request.baseline:
            marks[i, run_col] = " (baseline)"
            tips[i, run_col] = "The other runs are compared with this run"
        for j in compared:
            marks[i, j] = PAD  # unmarked values line up with marked ones
            row = lookup.get((run, columns[j]))
            if row is not None:
                marks[i, j] = marker(row) or PAD
                tips[i, j] = tooltip(row, family)


def _letter_marks(comparison: Comparison, runs_shown: list, columns: list, marks, tips) -> None:
    """Letters: each run's letter after its name, and after each value the letters of the runs it is
    significantly better than (with the pairs in the tooltip)."""
    from metrics.compare.allpairs import letter

    runs = list(comparison.request.paired)
    letter_of = {r: letter(i) for i, r in enumerate(runs)}
    got = comparison.letters()
    width = max([len(v) for v in got.values()] + [0])
    pairs = comparison.pairs
    if pairs is None:  # (letters are drawn for an all-pairs comparison only)
        return
    compared = {str(m) for m in pairs["measure"]}
    # (run, measure) -> [(other, difference of run - other, corrected p, significant)]
    seen: dict = {}
    rows = pairs[["measure", "a", "b", "difference", "p_corrected", "significant"]]
    for measure, a, b, difference, p_corrected, significant in rows.itertuples(index=False, name=None):
        m = str(measure)
        seen.setdefault((a, m), {})[b] = (difference, p_corrected, bool(significant))
        seen.setdefault((b, m), {})[a] = (-difference, p_corrected, bool(significant))
    run_col = columns.index("run")
    for i, run in enumerate(runs_shown):
        if run not in letter_of:
            continue
        marks[i, run_col] = f" ({letter_of[run]})"
        for j, col in enumerate(columns):
            if col not in compared:
                continue
            text = got.get((run, col), "")
            marks[i, j] = "\u2009" + text.ljust(width, "\u2002") if width else ""
            against = seen.get((run, col), {})
            lines = []
            for other in runs:
                if other not in against:
                    continue
                diff, p, significant = against[other]
                verdict = ("better" if diff > 0 else "worse") if significant else "not different"
                lines.append(
                    f"vs ({letter_of[other]}) {other}: Δ {diff:+.4f}, corrected p = {format_pvalue(p)} — {verdict}"
                )
            tips[i, j] = "\n".join(lines)


def paired_note(comparison: Comparison) -> str:
    """`` Pairs of the best 50 of 1000 runs by map (and the baseline).`` when not every run is compared."""
    request = comparison.request
    if request.pair_runs is None or len(request.pair_runs) == len(request.runs):
        return ""
    return f" Pairs of the best {MAX_PAIR_RUNS} of {len(request.runs)} runs by the measure in focus (and the baseline)."


def legend(comparison: Comparison | None) -> str:
    """One line under the summary table: what the marks mean and how they were computed."""
    if comparison is None:
        return ""
    if comparison.pairs is not None:
        from metrics.compare.allpairs import describe

        n_sig = int(comparison.pairs["significant"].sum())
        return (
            f"{describe(comparison.pairs)} {n_sig} of {len(comparison.pairs)} pairs differ significantly."
            + paired_note(comparison)
        )
    s = comparison.request.settings
    family = int(comparison.table["p_value"].notna().sum())
    n_sig = int(comparison.table["significant"].sum())
    test = STAT_ALL_TESTS[s.test]
    corr = "no correction" if s.correction == "none" else f"{STAT_CORRECTIONS[s.correction]} correction"
    return (
        f"{HIGHER} significantly higher, {LOWER} significantly lower than the baseline "
        f"{comparison.request.baseline} ({test}, {corr} over {family} tests, α = {s.alpha:g}); "
        f"{n_sig} of {family} differences significant."
    )
