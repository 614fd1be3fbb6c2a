"""The statistical tests and multiple-testing corrections offered, in one table (no scipy here).

:mod:`metrics.compare` (a run against a baseline), :mod:`metrics.compare.allpairs` (every pair of runs) and the
window's significance panel all read this table: a method's code, the words reports use for it, the
short label the window shows, and the other spellings accepted for it.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = [
    "Method",
    "TEST_METHODS",
    "CORRECTION_METHODS",
    "TESTS",
    "ALL_PAIRS_TESTS",
    "PAIRS_ONLY",
    "CORRECTIONS",
    "canonical_test",
    "canonical_correction",
]


class Method(NamedTuple):
    """A test or correction offered (a named tuple: ``ir-eval`` reads this table at every start, and a named
    tuple costs a tenth of a frozen dataclass to define)."""

    code: str
    description: str  # in the sentences of reports: "paired t-test"
    label: str  # short, in the window: "t-test"
    aliases: tuple[str, ...] = ()  # other spellings accepted (lower case)
    pairs_only: bool = False  # a test of every pair of runs only, not of a run against a baseline


TEST_METHODS = (
    # ranx's names too: "student" (its paired t-test) and "fisher" (its randomization test)
    Method("t", "paired t-test", "t-test", ("ttest", "t-test", "paired-t", "ttest_rel", "student", "student-t")),
    Method("wilcoxon", "Wilcoxon signed-rank test", "Wilcoxon", ("signed-rank",)),
    Method(
        "permutation",
        "paired randomization test",
        "Permutation",
        ("randomization", "randomisation", "fisher", "fisher-randomization"),
    ),
    Method("bootstrap", "paired bootstrap test", "Bootstrap", (), pairs_only=True),
    Method("tukey", "randomised Tukey HSD", "Tukey HSD", ("hsd", "tukey-hsd"), pairs_only=True),
)
#: every method of statsmodels' ``multipletests``, under its spellings there too (``fdr_bh``, ``hs``, ``fdr_i``)
CORRECTION_METHODS = (
    Method("none", "no correction", "None", ("",)),
    Method("bonferroni", "Bonferroni", "Bonferroni", ("b", "bonf")),
    Method("holm", "Holm", "Holm", ("holm-bonferroni", "h")),
    Method(
        "bh",
        "Benjamini-Hochberg",
        "BH (FDR)",
        ("fdr_bh", "benjamini-hochberg", "fdr", "fdr_i", "fdr_p", "fdri", "fdrp"),
    ),
    Method("sidak", "Sidak", "Sidak", ("s", "šidák")),
    Method("holm-sidak", "Holm-Sidak", "Holm-Sidak", ("hs", "holm_sidak", "holm-šidák")),
    Method("hochberg", "Simes-Hochberg", "Hochberg", ("sh", "simes-hochberg")),
    Method("hommel", "Hommel", "Hommel", ("ho",)),
    Method(
        "by", "Benjamini-Yekutieli", "BY (FDR)", ("fdr_by", "benjamini-yekutieli", "fdr_n", "fdr_c", "fdrn", "fdrcorr")
    ),
    Method("tsbh", "two-stage Benjamini-Hochberg", "Two-stage BH", ("fdr_tsbh", "fdr_2sbh")),
    Method(
        "tsbky", "two-stage Benjamini-Krieger-Yekutieli", "Two-stage BKY", ("fdr_tsbky", "fdr_2sbky", "fdr_twostage")
    ),
    Method("gbs", "Gavrilov-Benjamini-Sarkar", "GBS (FDR)", ("fdr_gbs",)),
    Method("lfdr", "local false discovery rate", "Local FDR", ("lfdr_sl",)),
)

#: tests of a run against a baseline: code -> description
TESTS = {m.code: m.description for m in TEST_METHODS if not m.pairs_only}
#: tests of every pair of runs: code -> description
ALL_PAIRS_TESTS = {m.code: m.description for m in TEST_METHODS}
#: tests that compare every pair only
PAIRS_ONLY = tuple(m.code for m in TEST_METHODS if m.pairs_only)
#: corrections: code -> description
CORRECTIONS = {m.code: m.description for m in CORRECTION_METHODS}


def _canonical(value, methods, what: str) -> str:
    key = str(value).strip().lower()
    for m in methods:
        if key == m.code or key in m.aliases:
            return m.code
    raise ValueError(f"unknown {what} {value!r}; expected one of {', '.join(m.code for m in methods)}")


def canonical_test(value, *, pairs: bool = False) -> str:
    """The code of the test named ``value`` (``"ttest"`` -> ``"t"``); ValueError naming the choices if none.
    With ``pairs`` the all-pairs tests are accepted too."""
    methods = TEST_METHODS if pairs else tuple(m for m in TEST_METHODS if not m.pairs_only)
    return _canonical(value, methods, "test")


def canonical_correction(value) -> str:
    """The code of the correction named ``value`` (``"fdr"`` -> ``"bh"``); ValueError naming the choices if none."""
    return _canonical(value, CORRECTION_METHODS, "correction")
