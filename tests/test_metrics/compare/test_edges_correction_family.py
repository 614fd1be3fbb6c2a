"""The family of a multiple-testing correction where the library takes PyTerrier's words
(``compare(ev, baseline=0, correction="bonferroni")``): PyTerrier's Experiment corrects per measure,
``multipletests(pvalues, method=correction)`` over the runs compared with the baseline on one measure.
Checked against statsmodels applied that way; every output names its family."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

import metrics
from metrics.compare import compare, describe_settings, format_comparison

SAMPLE = Path(__file__).resolve().parents[3] / "workbench" / "resources" / "sample"
RUNS = [str(SAMPLE / name) for name in ("run_bm25.txt", "run_bm25_rm3.txt", "run_tfidf_title.txt")]
MEASURES = ["map", "P.10", "ndcg_cut.10", "recip_rank"]


@pytest.fixture(scope="module")
def ev():
    return metrics.evaluate(str(SAMPLE / "qrels.txt"), RUNS, MEASURES)


def _per_measure(table: pd.DataFrame, method: str) -> np.ndarray:
    """statsmodels' multipletests over the non-baseline runs of each measure, as pyterrier's Experiment."""
    expected = np.full(len(table), np.nan)
    for measure in pd.unique(table["measure"]):
        rows = np.flatnonzero(table["measure"].to_numpy(object) == measure)
        expected[rows] = multipletests(table["p_value"].to_numpy()[rows], method=method)[1]
    return expected


@pytest.mark.parametrize("method", ["bonferroni", "holm", "fdr_bh", "sidak"])
def test_pyterrier_words_correct_per_measure(ev, method):
    table = compare(ev, baseline=0, correction=method, bootstrap=0)
    assert len(table) == 2 * len(table["measure"].unique())
    np.testing.assert_allclose(table["p_corrected"].to_numpy(), _per_measure(table, method), rtol=1e-12)
    assert set(table["correction_family"]) == {"per measure (2 comparisons)"}
    assert table.attrs["correction_family"] == "per measure"


def test_all_runs_and_measures_on_request(ev):
    table = compare(ev, baseline=0, correction="bonferroni", bootstrap=0, family="all")
    expected = multipletests(table["p_value"].to_numpy(), method="bonferroni")[1]
    np.testing.assert_allclose(table["p_corrected"].to_numpy(), expected, rtol=1e-12)
    assert set(table["correction_family"]) == {f"all runs and measures ({len(table)} comparisons)"}
    with pytest.raises(ValueError, match="family must be one of"):
        compare(ev, baseline=0, family="run")


def test_every_output_names_its_family(ev):
    table = compare(ev, baseline=0, correction="holm", bootstrap=0)
    assert "per measure" in describe_settings(table)[0]
    assert "each measure apart (2 per measure" in format_comparison(table)
    assert "correction family per measure" in table.settings_text()
    assert "each measure apart" in metrics.report.to_markdown(table)


@pytest.mark.parametrize(
    "family, words", [("all", "all runs and measures (8 comparisons)"), ("measure", "per measure (2 comparisons)")]
)
def test_ir_eval_compare_names_its_family(family, words):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "metrics",
            "--compare",
            "1",
            "--format",
            "json",
            "--correction-family",
            family,
            *(f"-m{m}" for m in MEASURES),
            str(SAMPLE / "qrels.txt"),
            *RUNS,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert {row["correction_family"] for row in rows} == {words}
