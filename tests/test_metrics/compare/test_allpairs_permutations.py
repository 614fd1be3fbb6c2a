"""The default number of permutations against exact p-values (full enumeration); seeds reproduce p-values."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from metrics.compare import allpairs


def _frame(values: dict) -> pd.DataFrame:
    rows = [(run, f"q{i}", "map", float(v)) for run, vs in values.items() for i, v in enumerate(vs)]
    return pd.DataFrame(rows, columns=["run", "query_id", "measure", "value"])


def _check_monte_carlo_error(estimates: np.ndarray, exact: float) -> None:
    b = 10000  # the default, which the calls below rely on
    assert allpairs.compare_all_pairs.__kwdefaults__["permutations"] == b
    se = np.sqrt(exact * (1 - exact) / b)  # 0.0022 at p = 0.05
    assert np.abs(estimates - exact).max() <= 0.01  # "within about 0.01": 4.6 standard errors
    # the estimates scatter as the binomial standard error says (20 draws: sd within 0.5-1.6 of it)
    assert 0.5 * se <= estimates.std(ddof=1) <= 1.6 * se


def test_default_permutations_keep_a_randomisation_p_value_near_005_within_001():
    rng = np.random.default_rng(0)
    d = np.round(np.round(rng.normal(0, 1, 16), 1) + 0.74, 2)  # ties among |d|; exact p = 0.0512
    base = np.linspace(0.0, 1.0, 16)
    values = {"a": base + d, "b": base}
    diff = values["a"] - values["b"]
    signs = 1 - 2 * ((np.arange(1 << 16)[:, None] >> np.arange(16)) & 1)  # all 65,536 sign vectors
    exact = float(np.mean(np.abs(signs @ diff) >= abs(diff.sum()) - 1e-9 * np.abs(diff).sum()))
    assert 0.045 < exact < 0.055
    frame = _frame(values)
    estimates = np.array(
        [allpairs.compare_all_pairs(frame, test="permutation", seed=s, bootstrap=0)["p_value"][0] for s in range(20)]
    )
    _check_monte_carlo_error(estimates, exact)


def test_default_permutations_keep_a_tukey_p_value_near_005_within_001():
    rng = np.random.default_rng(0)
    x = np.round(rng.random((7, 1)) + np.array([0, 0.1, 0.25]) + 0.08 * rng.standard_normal((7, 3)), 2)
    # exact randomised Tukey HSD: every one of the 6^7 assignments of each query's values to the runs
    perms = np.array(list(itertools.permutations(range(3))))
    choice = np.array(list(itertools.product(range(6), repeat=7)))
    means = x[np.arange(7)[None, :, None], perms[choice]].mean(axis=1)
    ranges = means.max(axis=1) - means.min(axis=1)
    observed = abs(x[:, 1].mean() - x[:, 2].mean())
    exact = float(np.mean(ranges >= observed - 1e-12))
    assert 0.06 < exact < 0.07
    values = {"r0": x[:, 0], "r1": x[:, 1], "r2": x[:, 2]}
    estimates = []
    for s in range(20):
        pairs = allpairs.compare_all_pairs(_frame(values), test="tukey", seed=s, bootstrap=0)
        estimates.append(pairs.set_index(["a", "b"]).loc[("r1", "r2"), "p_value"])
    _check_monte_carlo_error(np.array(estimates), exact)


@pytest.fixture
def trec_files(tmp_path):
    rng = np.random.default_rng(4)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 d{d} {int(rng.integers(0, 3))}\n" for q in range(20) for d in range(25)))
    paths = []
    for name in ("zeta", "alpha", "mid"):  # not in alphabetical order
        lines = []
        for q in range(20):
            scores = rng.random(25)
            lines += [f"{q} Q0 d{d} {rank} {scores[d]:.6f} {name}\n" for rank, d in enumerate(np.argsort(-scores), 1)]
        path = tmp_path / f"{name}.run"
        path.write_text("".join(lines))
        paths.append(str(path))
    return str(qrels), paths


def _ir_eval(*args) -> dict:
    out = subprocess.run([sys.executable, "-m", "metrics", *args], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.parametrize("test", ["permutation", "tukey"])
def test_seed_reproduces_p_values_and_intervals_on_the_command_line(trec_files, test):
    qrels, runs = trec_files
    common = ["--all-pairs", "--test", test, "--permutations", "2000", "--format", "json", "-m", "map", "-m", "P.10"]
    one = _ir_eval(*common, "--seed", "3", qrels, *runs)
    two = _ir_eval(*common, "--seed", "3", qrels, *runs)
    other = _ir_eval(*common, "--seed", "4", qrels, *runs)
    key = ("p_value", "ci_low", "ci_high")
    assert [[p[k] for k in key] for p in one["pairs"]] == [[p[k] for k in key] for p in two["pairs"]]
    assert one["seed"] == 3 and other["seed"] == 4
    assert [p["p_value"] for p in one["pairs"]] != [p["p_value"] for p in other["pairs"]]
    assert [p["ci_low"] for p in one["pairs"]] != [p["ci_low"] for p in other["pairs"]]
