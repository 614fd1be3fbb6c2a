"""All-pairs comparisons: every test against an independent implementation; letters; the command line."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from metrics.compare import allpairs


def _per_query(values: dict, measure="map") -> pd.DataFrame:
    rows = [(run, f"q{i}", measure, float(v)) for run, vs in values.items() for i, v in enumerate(vs)]
    return pd.DataFrame(rows, columns=["run", "query_id", "measure", "value"])


@pytest.fixture
def four_runs():
    rng = np.random.default_rng(11)
    base = rng.random(40)
    return {
        "a": base,
        "b": base + 0.01 * rng.standard_normal(40),
        "c": base + 0.08 + 0.05 * rng.standard_normal(40),
        "d": np.clip(base - 0.2 + 0.05 * rng.standard_normal(40), 0, 1),
    }


def test_tukey_hsd_matches_a_plain_loop(four_runs):
    x = np.column_stack(list(four_runs.values()))[:12]  # a few queries: p-values away from 0
    got = allpairs.tukey_hsd(x, 20000, rng=5)
    loop_rng = np.random.default_rng(99)
    means = x.mean(axis=0)
    observed = np.abs(means[:, None] - means[None, :])
    count = np.zeros_like(observed)
    for _ in range(4000):
        shuffled = np.array([loop_rng.permutation(row) for row in x])
        m = shuffled.mean(axis=0)
        count += (m.max() - m.min()) >= observed - 1e-12
    expected = (count + 1) / 4001
    off = ~np.eye(4, dtype=bool)
    # Monte-Carlo error of the loop's 4000 draws dominates: 4 standard errors
    assert np.all(np.abs(got[off] - expected[off]) <= 4 * np.sqrt(expected[off] * (1 - expected[off]) / 4000) + 1e-3)
    assert np.isnan(np.diag(got)).all()


@pytest.mark.parametrize(
    "test, reference",
    [
        ("t", lambda a, b: stats.ttest_rel(a, b).pvalue),
        ("wilcoxon", lambda a, b: stats.wilcoxon(a - b).pvalue),
    ],
)
def test_parametric_and_rank_tests_equal_scipy_for_every_pair(four_runs, test, reference):
    pairs = allpairs.compare_all_pairs(_per_query(four_runs), test=test, correction="none")
    assert list(zip(pairs["a"], pairs["b"])) == [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("c", "d")]
    for r in pairs.itertuples():
        assert r.p_value == pytest.approx(reference(four_runs[r.a], four_runs[r.b]), rel=1e-12)
        assert r.difference == pytest.approx(np.mean(four_runs[r.a] - four_runs[r.b]))
        assert r.n_queries == 40 and r.wins + r.ties + r.losses == 40


def test_corrections_span_every_pair_and_measure(four_runs):
    frame = pd.concat([_per_query(four_runs, "map"), _per_query({k: v[::-1] for k, v in four_runs.items()}, "P_10")])
    pairs = allpairs.compare_all_pairs(frame, test="t", correction="bh")
    assert len(pairs) == 12
    expected = stats.false_discovery_control(pairs["p_value"].to_numpy(), method="bh")
    np.testing.assert_allclose(pairs["p_corrected"].to_numpy(), expected, rtol=1e-12)


def test_bootstrap_test_matches_a_plain_loop():
    rng = np.random.default_rng(3)
    d = rng.normal(0.03, 0.1, size=25)
    got = allpairs.bootstrap_test(d, 20000, rng=1)
    loop = np.random.default_rng(2)
    centred = d - d.mean()
    k = sum(abs(np.mean(loop.choice(centred, size=d.size))) >= abs(d.mean()) for _ in range(4000))
    expected = (k + 1) / 4001
    assert abs(got - expected) <= 4 * np.sqrt(expected * (1 - expected) / 4000) + 1e-3


def test_seeded_p_values_are_reproducible_and_cancel_works(four_runs):
    frame = _per_query(four_runs)
    one = allpairs.compare_all_pairs(frame, test="tukey", permutations=2000, seed=7)
    two = allpairs.compare_all_pairs(frame, test="tukey", permutations=2000, seed=7)
    assert one["p_value"].tolist() == two["p_value"].tolist()
    assert set(one["correction"]) == {"none"}  # the HSD controls the family itself
    from metrics.errors import Cancelled

    with pytest.raises(Cancelled):
        allpairs.compare_all_pairs(frame, test="tukey", permutations=200000, progress=lambda f: False)


def test_letters_name_the_runs_each_run_is_significantly_better_than(four_runs):
    pairs = allpairs.compare_all_pairs(_per_query(four_runs), test="t", correction="holm")
    letters = allpairs.significance_letters(pairs, ["a", "b", "c", "d"])
    sig = {(r.a, r.b): (r.significant, r.difference) for r in pairs.itertuples()}
    assert sig[("a", "c")][0] and sig[("a", "c")][1] < 0  # c is far better than a
    assert "a" in letters[("c", "map")] and "d" in letters[("c", "map")]
    assert "c" not in letters.get(("a", "map"), "")
    assert [allpairs.letter(i) for i in (0, 25, 26, 27)] == ["a", "z", "aa", "ab"]


def test_cli_all_pairs_json(tmp_path):
    rng = np.random.default_rng(4)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 d{d} {int(rng.integers(0, 3))}\n" for q in range(25) for d in range(30)))
    runs = []
    for name in ("first", "second", "third"):
        path = tmp_path / f"{name}.run"
        lines = []
        for q in range(25):
            scores = rng.random(30)
            for rank, d in enumerate(np.argsort(-scores), 1):
                lines.append(f"{q} Q0 d{d} {rank} {scores[d]:.6f} {name}\n")
        path.write_text("".join(lines))
        runs.append(str(path))
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "metrics",
            "--all-pairs",
            "--test",
            "tukey",
            "--permutations",
            "500",
            "--format",
            "json",
            "-m",
            "map",
            "-m",
            "P.10",
            str(qrels),
            *runs,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["runs"] == ["first", "second", "third"] and doc["test"] == "tukey"
    assert len(doc["pairs"]) == 6
    for pair in doc["pairs"]:
        assert {"measure", "a", "b", "p_value", "p_corrected", "difference", "effect_size", "ci_low", "ci_high"} <= set(
            pair
        )
    usage = subprocess.run(
        [sys.executable, "-m", "metrics", "--test", "tukey", str(qrels), *runs],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert usage.returncode == 1 and "add --all-pairs" in usage.stderr


def test_reports_carry_the_letters_and_say_how_they_were_decided(four_runs, tmp_path):
    from metrics import report

    frame = _per_query(four_runs)
    pairs = allpairs.compare_all_pairs(frame, test="t", correction="holm")
    summary = frame.groupby(["run", "measure"], as_index=False)["value"].mean()
    letters = allpairs.significance_letters(pairs, ["a", "b", "c", "d"])
    md = report.to_markdown(summary, kind="summary", pairs=pairs, title="Four runs", qrels="qrels.txt")
    assert md.startswith("# Four runs\n\nQrels: qrels.txt; runs: a, b, c, d\n")
    row_c = next(line for line in md.splitlines() if line.startswith("| (c) c "))
    assert f"<sup>{letters[('c', 'map')]}</sup>" in row_c
    assert "Letters: the runs a value is significantly better than (paired t-test, Holm correction over 6 tests" in md
    tex = report.to_latex(summary, kind="summary", pairs=pairs)
    assert rf"\textsuperscript{{{letters[('c', 'map')]}}}" in tex and "(a) a" in tex
    page = report.to_html(summary, kind="summary", pairs=pairs)
    assert f"<sup>{letters[('c', 'map')]}</sup>" in page and "Letters:" in page


@pytest.mark.parametrize("queries", [2, 3, 5, 10, 43, 200, 250])
@pytest.mark.parametrize("shape", ["normal", "rounded", "few values", "tiny spread"])
def test_the_t_test_of_many_rows_is_scipys_to_the_last_bit(queries, shape):
    """The t-test of many rows at once gives the p-values of ``ttest_1samp`` bit for bit (it is computed in
    scipy's arithmetic without importing ``scipy.stats``), and those of ``ttest_rel``, down to p-values far
    below 1e-80; ties (rounded scores, a few distinct differences) and tiny spreads included."""
    from metrics.compare.statistics import paired_t_pvalues

    rng = np.random.default_rng(queries)
    if shape == "normal":
        d = rng.normal(rng.uniform(-0.3, 0.3, size=(300, 1)), rng.uniform(0.001, 0.3, size=(300, 1)), (300, queries))
    elif shape == "rounded":
        d = np.round(rng.normal(0.02, 0.2, (300, queries)), 2)
    elif shape == "few values":
        d = rng.choice([0.0, 0.25, -0.5, 1 / 3], (300, queries))
    else:
        d = rng.uniform(-1, 1, (300, queries)) * 1e-7 + 1e-9
    d = d[(d != d[:, :1]).any(axis=1)]  # (a row without spread is decided before the test: p = 0 or 1)
    got = paired_t_pvalues(d)
    np.testing.assert_array_equal(got, stats.ttest_1samp(d, 0.0, axis=1).pvalue)
    np.testing.assert_allclose(got, stats.ttest_rel(d, np.zeros_like(d), axis=1).pvalue, rtol=1e-12, atol=0)


def test_scipy_is_imported_when_a_comparison_runs_and_for_the_t_test_scipy_special_alone():
    """Importing the comparisons leaves scipy out (the window is shown without it); the window's default
    comparison (t-test, Holm) imports :mod:`scipy.special` only: ``scipy.stats``, about 0.6 s of CPU to
    import, is left out, and the marks of significance do not wait for it."""
    code = (
        "import sys, numpy as np, pandas as pd\n"
        "from metrics.compare.allpairs import compare_all_pairs\n"
        "print(any(m.split('.')[0] == 'scipy' for m in sys.modules))\n"
        "rng = np.random.default_rng(0)\n"
        "rows = [(r, 'map', str(q), float(rng.random())) for r in 'abcd' for q in range(30)]\n"
        "frame = pd.DataFrame(rows, columns=['run', 'measure', 'query_id', 'value'])\n"
        "pairs = compare_all_pairs(frame, test='t', correction='holm')\n"
        "print(len(pairs), 'scipy.special' in sys.modules, 'scipy.stats' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "6", "True", "False"]
