"""Every multiple-testing correction of statsmodels' ``multipletests``, in the library, ``compare`` and
``ir-eval --compare``, against statsmodels itself; a baseline by position; rounding per measure."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

import metrics
from metrics import report
from metrics.cli.ir_eval import main
from metrics.compare import compare
from metrics.compare.allpairs import compare_all_pairs
from metrics.compare.corrections import adjust_pvalues
from metrics.stat_methods import CORRECTION_METHODS, CORRECTIONS, canonical_correction

#: our code -> statsmodels' name
STATSMODELS = {
    "bonferroni": "bonferroni",
    "sidak": "sidak",
    "holm": "holm",
    "holm-sidak": "holm-sidak",
    "hochberg": "simes-hochberg",
    "hommel": "hommel",
    "bh": "fdr_bh",
    "by": "fdr_by",
    "tsbh": "fdr_tsbh",
    "tsbky": "fdr_tsbky",
    "gbs": "fdr_gbs",
    "lfdr": "lfdr",
}


def _families():
    rng = np.random.default_rng(7)
    yield rng.uniform(size=1)
    yield np.array([0.01, 0.04, 0.03, 0.005])
    yield np.array([0.02, 0.02, 0.02, 0.5, 0.5, 1.0, 0.0])  # ties, 0 and 1
    yield np.concatenate([rng.uniform(0, 0.01, 15), rng.uniform(size=60)])  # some true effects
    yield rng.uniform(size=200)
    yield np.round(rng.uniform(size=300), 2)  # many ties


def test_every_statsmodels_method_is_offered():
    assert set(STATSMODELS) | {"none"} == set(CORRECTIONS)
    for code, name in STATSMODELS.items():
        assert canonical_correction(name) == code


@pytest.mark.parametrize("alpha", [0.05, 0.1])
@pytest.mark.parametrize("code", sorted(STATSMODELS))
def test_adjusted_pvalues_equal_statsmodels(code, alpha):
    for p in _families():
        if code == "lfdr" and (p == 0).any():  # statsmodels' isotonic regression fails on a gap of width 0
            got = adjust_pvalues(p, code, alpha)
            assert (got[p == 0] == 0).all() and ((got >= 0) & (got <= 1)).all()
            p = p[p > 0]
        expected = multipletests(p, alpha=alpha, method=STATSMODELS[code])[1]
        np.testing.assert_allclose(adjust_pvalues(p, code, alpha), expected, rtol=1e-12, atol=1e-15)
        # NaN entries stay NaN and are not counted in the family
        with_nan = np.insert(p, [0, len(p) // 2], np.nan)
        got = adjust_pvalues(with_nan, STATSMODELS[code], alpha)
        assert np.isnan(got[[0, len(p) // 2 + 1]]).all()
        np.testing.assert_allclose(got[~np.isnan(with_nan)], expected, rtol=1e-12, atol=1e-15)


def test_statsmodels_short_spellings_are_accepted():
    p = np.array([0.01, 0.04, 0.03, 0.005])
    for short, code in {
        "b": "bonferroni",
        "s": "sidak",
        "hs": "holm-sidak",
        "h": "holm",
        "sh": "hochberg",
        "ho": "hommel",
        "fdr_i": "bh",
        "fdr_n": "by",
        "fdr_2sbky": "tsbky",
    }.items():
        np.testing.assert_array_equal(adjust_pvalues(p, short), adjust_pvalues(p, code))
    with pytest.raises(ValueError, match="holm-sidak"):
        adjust_pvalues(p, "fdr_xyz")


def _tidy(seed: int = 3, runs=("base", "a", "b", "c"), measures=("AP", "nDCG@10")) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for m in measures:
        base = rng.uniform(size=30)
        for i, r in enumerate(runs):
            values = np.clip(base + rng.normal(0.03 * i, 0.1, size=30), 0, 1)
            rows += [(r, f"q{q}", m, v) for q, v in enumerate(values)]
    return pd.DataFrame(rows, columns=["run", "query_id", "measure", "value"])


@pytest.mark.parametrize("code", ["holm-sidak", "hommel", "tsbky", "lfdr"])
def test_compare_and_all_pairs_correct_with_every_method(code):
    frame = _tidy()
    out = compare(frame, "base", correction=STATSMODELS[code], alpha=0.1, bootstrap=0, family="all")
    assert (out["correction"] == code).all()
    expected = multipletests(out["p_value"].to_numpy(), alpha=0.1, method=STATSMODELS[code])[1]
    np.testing.assert_allclose(out["p_corrected"].to_numpy(), expected, rtol=1e-12)
    assert (out["significant"] == (out["p_corrected"] <= 0.1)).all()
    pairs = compare_all_pairs(frame, correction=code, bootstrap=0, permutations=200)
    expected = multipletests(pairs["p_value"].to_numpy(), alpha=0.05, method=STATSMODELS[code])[1]
    np.testing.assert_allclose(pairs["p_corrected"].to_numpy(), expected, rtol=1e-12)
    description = dict((m.code, m.description) for m in CORRECTION_METHODS)[code]
    assert description in report.to_markdown(out)


def test_baseline_by_position():
    frame = _tidy()
    by_label = compare(frame, "a", bootstrap=0)
    pd.testing.assert_frame_equal(compare(frame, 1, bootstrap=0), by_label)
    pd.testing.assert_frame_equal(compare(frame, -3, bootstrap=0), by_label)
    assert set(compare(frame, 0, bootstrap=0)["baseline"]) == {"base"}
    with pytest.raises(ValueError, match="position 4 is out of range: there are 4 runs"):
        compare(frame, 4)
    with pytest.raises(ValueError, match="not found"):
        compare(frame, "zz")


def _files(tmp_path):
    rng = np.random.default_rng(5)
    qrels = [f"q{q} 0 d{d} {int(rng.integers(0, 3))}" for q in range(25) for d in range(12)]
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    paths = []
    for name in ("base", "one", "two"):
        lines = [f"q{q} Q0 d{d} 0 {rng.normal():.4f} {name}" for q in range(25) for d in range(12)]
        path = tmp_path / f"{name}.run"
        path.write_text("\n".join(lines) + "\n")
        paths.append(str(path))
    return str(tmp_path / "qrels"), paths


def test_cli_compare_takes_every_correction_and_a_position(tmp_path, capsys):
    qrels, runs = _files(tmp_path)
    assert main(["--compare", "2", "--correction", "holm-sidak", "--format", "csv", "-m", "map", qrels, *runs]) == 0
    table = pd.read_csv(__import__("io").StringIO(capsys.readouterr().out))
    assert set(table["baseline"]) == {"one"} and set(table["correction"]) == {"holm-sidak"}
    expected = multipletests(table["p_value"].to_numpy(), method="holm-sidak")[1]
    np.testing.assert_allclose(table["p_corrected"].to_numpy(), expected, rtol=1e-12)
    for code in set(CORRECTIONS) - {"none"}:
        assert main(["--compare", runs[0], "--correction", code, "-m", "map", qrels, *runs]) == 0
        assert dict((m.code, m.description) for m in CORRECTION_METHODS)[code] in capsys.readouterr().out


def test_rounding_per_measure_in_the_tables():
    ev = metrics.evaluate(
        {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}},
        {"r1": {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0, "x": 3.0}}, "r2": {"q1": {"b": 2.0, "a": 1.0}}},
        ["map", "P.2"],
    )
    text = report.to_markdown(ev.aggregate, digits={"map": 2, "P_2": 3})
    assert "| r1 | **0.75** | 0.500 |" in text and "| r2 | 0.50 | 0.500 |" in text
    assert "| r1 | **0.7500** | 0.500 |" in report.to_markdown(ev.aggregate, digits={"P_2": 3})  # 4 for the others
    assert "0.8" in report.to_latex(ev.aggregate, digits={"map": 1})
