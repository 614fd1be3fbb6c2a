"""A comparison in words: the settings as sentences, and a fixed-width table for the terminal."""

from __future__ import annotations

import math

import pandas as pd

from metrics.compare.baseline import COLUMNS, _unique
from metrics.presentation import format_pvalue, significance_marker
from metrics.stat_methods import CORRECTIONS, TESTS


def describe_settings(comparison: pd.DataFrame) -> list[str]:
    """Sentences stating baseline, test, correction, alpha and interval of a comparison.

    Read from the columns, or from ``attrs`` when the frame has no rows.
    """
    attrs = {"baseline": "baseline", "test": "test", "correction": "correction", "alpha": "alpha", "ci_level": "ci"}

    def values(col):
        if col in comparison.columns and len(comparison):
            return _unique(comparison[col])
        return [comparison.attrs[attrs[col]]] if attrs[col] in comparison.attrs else []

    baselines = ", ".join(map(str, values("baseline"))) or "n/a"
    tests = ", ".join(_test_description(t, comparison) for t in values("test")) or "n/a"
    corrections = ", ".join(CORRECTIONS.get(c, str(c)) for c in values("correction")) or "n/a"
    alphas = ", ".join(f"{a:g}" for a in values("alpha")) or "n/a"
    levels = ", ".join(f"{100 * c:g}%" for c in values("ci_level"))
    family = int(comparison["p_value"].notna().sum()) if "p_value" in comparison else 0
    plural = "s" if family != 1 else ""
    families = _unique(comparison["correction_family"]) if "correction_family" in comparison and len(comparison) else []
    over = f"{family} test{plural}"
    measures = _unique(comparison["measure"]) if "measure" in comparison and len(comparison) else []
    if families and all(str(f).startswith("per measure") for f in families) and len(measures) == 1:
        over = f"{family} test{plural} (per measure: one measure here)"
    elif families and all(str(f).startswith("per measure") for f in families):
        sizes = sorted({str(f).split("(", 1)[1].split()[0] for f in families})
        over = f"the tests of each measure apart ({'/'.join(sizes)} per measure; {family} test{plural} in all)"
    elif families:
        over = f"{family} test{plural}, all runs and measures together"
    if values("correction") == ["none"]:
        correction_text = f"No correction for multiple testing ({family} test{plural})."
    else:
        correction_text = f"Correction: {corrections} over {over}."
    lines = [
        f"Baseline: {baselines}. Test: {tests} (two-sided). {correction_text} Significance level alpha = {alphas}."
    ]
    if {"n_baseline_only", "n_run_only"} <= set(comparison.columns) and len(comparison):
        unpaired = comparison["n_baseline_only"] + comparison["n_run_only"]
        if (unpaired > 0).any():
            lines.append(
                "Queries are paired on query_id; queries with a value for only one of "
                f"the two runs are left out (up to {int(unpaired.max())} per "
                "comparison, see n_baseline_only and n_run_only)."
            )
    if levels:
        draws = []
        if "bootstrap" in comparison.attrs:
            draws.append(f"{comparison.attrs['bootstrap']} resamples")
        if "seed" in comparison.attrs:
            draws.append(f"seed {comparison.attrs['seed']}")
        drawn = f" ({', '.join(draws)})" if draws else ""
        lines.append(
            f"Interval: bootstrap {levels} confidence interval of the mean difference"
            f"{drawn}; effect size d_z = mean(diff) / sd(diff)."
        )
    return lines


def _test_description(code, comparison) -> str:
    text = TESTS.get(code, str(code))
    if code == "permutation" and "permutations" in comparison.attrs:
        text += f", {comparison.attrs['permutations']} permutations"
    return text


def _fmt_num(x, digits=4, sign=False) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def format_comparison(comparison: pd.DataFrame) -> str:
    """A fixed-width text table of a :func:`compare` result, for the terminal.

    The header states baseline, test, correction (with the family size) and
    alpha; the column ``sig`` holds ``+`` (significantly higher than the
    baseline), ``-`` (significantly lower) or nothing; a footer explains the
    marks and reports queries left out by the pairing. Plain ASCII.
    """
    missing = [c for c in COLUMNS if c not in comparison.columns]
    if missing:
        raise ValueError(f"not a comparison frame: lacks {', '.join(missing)}")
    corr_codes = "/".join(map(str, _unique(comparison["correction"]) or [comparison.attrs.get("correction", "")]))
    levels = _unique(comparison["ci_level"]) or [comparison.attrs.get("ci", 0.95)]
    ci_head = f"{100 * levels[0]:g}% CI" if len(levels) == 1 else "CI"
    header = [
        "measure",
        "run",
        "baseline",
        "mean",
        "delta",
        ci_head,
        "p",
        f"p ({corr_codes or 'corrected'})",
        "d_z",
        "W/T/L",
        "n",
        "sig",
    ]
    body = []
    for _, r in comparison.iterrows():
        ci_text = (
            f"[{_fmt_num(r['ci_low'], sign=True)}, {_fmt_num(r['ci_high'], sign=True)}]"
            if not math.isnan(r["ci_low"])
            else "n/a"
        )
        body.append(
            [
                str(r["measure"]),
                str(r["run"]),
                _fmt_num(r["baseline_mean"]),
                _fmt_num(r["mean"]),
                _fmt_num(r["delta"], sign=True),
                ci_text,
                format_pvalue(r["p_value"]),
                format_pvalue(r["p_corrected"]),
                _fmt_num(r["effect_size"], 3, sign=True),
                f"{r['wins']}/{r['ties']}/{r['losses']}",
                str(r["n_queries"]),
                significance_marker(r, ascii_only=True),
            ]
        )
    numeric = {2, 3, 4, 6, 7, 8, 10}
    widths = [max([len(h)] + [len(b[i]) for b in body]) for i, h in enumerate(header)]

    def line(cells):
        return "  ".join(
            c.rjust(w) if i in numeric else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))
        ).rstrip()

    out = describe_settings(comparison)
    out.append("")
    out.append(line(header))
    out.append("  ".join("-" * w for w in widths))
    out.extend(line(b) for b in body)
    out.append("")
    alphas = ", ".join(f"{a:g}" for a in _unique(comparison["alpha"]) or [comparison.attrs.get("alpha", math.nan)])
    out.append(
        f"sig: + significantly higher, - significantly lower than the baseline "
        f"(corrected p <= {alphas}); W/T/L: queries where the run wins/ties/loses."
    )
    unpaired = comparison.loc[(comparison["n_baseline_only"] > 0) | (comparison["n_run_only"] > 0)]
    for _, r in unpaired.iterrows():
        out.append(
            f"note: {r['run']} / {r['measure']}: {r['n_baseline_only']} queries only in "
            f"the baseline, {r['n_run_only']} only in the run; left out (paired on "
            "query_id)."
        )
    return "\n".join(out) + "\n"
