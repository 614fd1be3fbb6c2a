"""``ir-eval --all-pairs --format json``: runs in the order given, every pair with its numbers in full."""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import metrics
from metrics.compare import allpairs

REQUIRED = {"measure", "a", "b", "p_value", "p_corrected", "difference", "effect_size", "ci_low", "ci_high"}


@pytest.fixture
def trec_files(tmp_path):
    rng = np.random.default_rng(6)
    qrels = tmp_path / "qrels.txt"
    grades = rng.choice([-1, 0, 0, 1, 2], size=(30, 25))  # negative grades: pooled, not judged relevant
    qrels.write_text("".join(f"q{q} 0 d{d} {grades[q, d]}\n" for q in range(30) for d in range(25)))
    scores = {name: rng.random((30, 25)) for name in ("zeta", "alpha", "mid")}
    scores["copy"] = scores["alpha"]  # every difference zero against alpha
    paths = []
    for name, table in scores.items():  # not in alphabetical order
        queries = range(30) if name != "mid" else range(4, 30)  # mid misses four queries
        lines = [
            f"q{q} Q0 d{d} {rank} {round(table[q, d], 1)} {name}\n"  # rounded scores: ties
            for q in queries
            for rank, d in enumerate(np.argsort(-table[q]), 1)
        ]
        path = tmp_path / f"{name}.run"
        path.write_text("".join(lines))
        paths.append(str(path))
    return str(qrels), paths


def _same(x, y) -> bool:
    if isinstance(y, float) and not math.isfinite(y):
        return x is None
    return x == y


@pytest.mark.parametrize("test", ["t", "tukey"])
def test_json_has_the_runs_in_order_and_every_pair_in_full(trec_files, test):
    qrels, runs = trec_files
    out = subprocess.run(
        [sys.executable, "-m", "metrics", "--all-pairs", "--test", test, "--permutations", "3000"]
        + ["--seed", "9", "--format", "json", "-m", "map", "-m", "P.10", qrels, *runs],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    names = ["zeta", "alpha", "mid", "copy"]
    assert doc["runs"] == names
    assert (doc["test"], doc["seed"], doc["permutations"], doc["ci"], doc["bootstrap"]) == (test, 9, 3000, 0.95, 10000)
    pairs = doc["pairs"]
    expected_order = [(m, a, b) for m in ("map", "P_10") for a, b in itertools.combinations(names, 2)]
    assert [(p["measure"], p["a"], p["b"]) for p in pairs] == expected_order
    assert all(REQUIRED <= set(p) for p in pairs)

    # the same numbers, to the last digit, as the library gives in this process
    ev = metrics.evaluate(qrels, runs, ["map", "P.10"])
    ref = allpairs.compare_all_pairs(ev.per_query, runs=list(ev.runs), test=test, permutations=3000, seed=9)
    assert len(ref) == len(pairs) == 12
    for p, r in zip(pairs, ref.to_dict(orient="records")):
        for key in REQUIRED - {"measure"}:
            assert _same(p[key], r[key]), (p["a"], p["b"], key, p[key], r[key])
        assert p["n_queries"] == (26 if "mid" in (p["a"], p["b"]) else 30)
    copy = next(p for p in pairs if (p["measure"], p["a"], p["b"]) == ("map", "alpha", "copy"))
    assert copy["difference"] == 0.0 and copy["ci_low"] == copy["ci_high"] == 0.0 and copy["ties"] == 30
    if test == "t":
        from statsmodels.stats.multitest import multipletests

        expected = multipletests([p["p_value"] for p in pairs], method="holm")[1]
        np.testing.assert_allclose([p["p_corrected"] for p in pairs], expected, rtol=1e-12)


def test_small_p_values_keep_their_digits_and_undefined_numbers_are_null():
    base = np.arange(30) / 32  # exact in binary: base + 0.5 - base is 0.5 exactly
    rows = [("a", f"q{i}", "map", v) for i, v in enumerate(base)]
    rows += [("b", f"q{i}", "map", v + 0.3 + 0.01 * np.sin(i)) for i, v in enumerate(base)]  # p about 1e-30
    rows += [("c", f"q{i}", "map", v + 0.5) for i, v in enumerate(base)]  # a constant shift: infinite d_z
    frame = pd.DataFrame(rows, columns=["run", "query_id", "measure", "value"])
    pairs = allpairs.compare_all_pairs(frame, test="t", correction="bonferroni")
    doc = json.loads(json.dumps(allpairs.pairs_to_json(pairs), allow_nan=False))
    by_pair = {(p["a"], p["b"]): p for p in doc["pairs"]}
    assert 0 < pairs["p_value"][0] < 1e-20
    assert by_pair["a", "b"]["p_value"] == pairs["p_value"][0]  # all 17 significant digits, not 15 decimals
    assert by_pair["a", "b"]["p_corrected"] == pairs["p_corrected"][0]
    assert by_pair["a", "c"]["effect_size"] is None and pairs["effect_size"][1] == -math.inf
    assert by_pair["a", "c"]["p_value"] == 0.0
