"""``ir-eval --qrels-vs``, ``--pool-bias``, ``--reproduce``: text, CSV and JSON hold the library's numbers,
a value that cannot be computed is told as ``n/a (why)`` and never as nan, and the exit statuses are
the others' (1: usage, 2: bad input)."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest
from judgments_data import collection_of, write_qrels, write_run

from metrics.cli import ir_eval as cli
from metrics.judgments import compare, leave_one_out, reproduction, system_agreement


@pytest.fixture
def files(tmp_path):
    qrels, other, runs = collection_of(5)
    paths = {"qrels": write_qrels(tmp_path / "qrels.txt", qrels), "other": write_qrels(tmp_path / "o.txt", other)}
    for name, run in list(runs.items())[:3]:
        paths[name] = write_run(tmp_path / f"{name}.txt", run, name)
    (tmp_path / "elsewhere.txt").write_text("zz 0 nothing 1\n")
    paths["elsewhere"] = str(tmp_path / "elsewhere.txt")
    return paths


def run_cli(argv, capsys):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _tables(csv_text: str) -> dict:
    parts = {}
    for block in csv_text.strip().split("\n\n"):
        name, _, body = block.partition("\n")
        parts[name.lstrip("# ")] = pd.read_csv(io.StringIO(body), dtype={"query_id": str})
    return parts


def test_qrels_vs_with_runs_in_three_formats(files, capsys):
    runs = [files["team0_a"], files["team0_b"], files["team1_a"]]
    code, text, _ = run_cli(["--qrels-vs", files["other"], files["qrels"], *runs], capsys)
    assert code == 0 and "nan" not in text.lower().replace("n/a", "")
    agreement = compare(files["qrels"], files["other"])
    systems = system_agreement(runs, files["qrels"], files["other"])
    assert f"kappa           {agreement.kappa:.4f}" in text and f"tau_ap          {systems.tau_ap:.4f}" in text
    code, out, _ = run_cli(["--qrels-vs", files["other"], files["qrels"], *runs, "--format", "json"], capsys)
    doc = json.loads(out)
    assert doc["alpha"] == agreement.alpha and doc["tau"] == systems.tau and len(doc["runs"]) == 3
    assert doc["pairs"] == agreement.pairs and doc["per_query"][0]["query_id"] == agreement.per_query["query_id"][0]
    code, out, _ = run_cli(["--qrels-vs", files["other"], files["qrels"], *runs, "--format", "csv"], capsys)
    tables = _tables(out)
    summary = tables["summary"].set_index("what")["value"]
    assert float(summary["weighted_kappa"]) == agreement.weighted_kappa
    assert list(tables["runs"]["score_a"]) == list(systems.scores["score_a"])


def test_what_cannot_be_computed_is_said_in_words(files, capsys):
    code, text, _ = run_cli(["--qrels-vs", files["elsewhere"], files["qrels"], files["team0_a"]], capsys)
    assert code == 0
    assert "kappa           n/a (not computable: no (query, document) pair is judged by both qrels)" in text
    assert "tau             n/a (not computable: it needs two runs scored under both qrels (one run given))" in text
    assert "nan" not in text.lower().replace("n/a", "")
    code, out, _ = run_cli(["--qrels-vs", files["elsewhere"], files["qrels"], "--format", "json"], capsys)
    doc = json.loads(out)
    assert doc["kappa"] is None and "no (query, document) pair" in doc["not_computable"]["kappa"]


def test_pool_bias(files, capsys):
    runs = [files["team0_a"], files["team0_b"], files["team1_a"]]
    code, out, _ = run_cli(
        ["--pool-bias", "--depth", "15", "--group-sep", "_", files["qrels"], *runs, "--format", "csv"], capsys
    )
    assert code == 0
    found = leave_one_out(runs, files["qrels"], "map", 15, lambda r: r.split("_")[0]).runs
    table = _tables(out)["runs"]
    assert list(table["score_loo"]) == list(found["score_loo"]) and list(table["group"]) == ["team0", "team0", "team1"]
    code, text, _ = run_cli(["--pool-bias", "-m", "P.10", files["qrels"], *runs], capsys)
    assert code == 0 and "P_10" in text and "Judged@10" in text


def test_reproduce(files, capsys):
    argv = ["--reproduce", files["team0_a"], files["team1_a"], "--baseline-orig", files["team0_b"]]
    argv += ["--baseline-repro", files["team1_b"] if "team1_b" in files else files["team0_b"], files["qrels"]]
    code, out, _ = run_cli(argv + ["--format", "json"], capsys)
    assert code == 0
    doc = json.loads(out)
    found = reproduction(files["team0_a"], files["team1_a"], files["qrels"], files["team0_b"], files["team0_b"])
    assert doc["kind"] == "reproducibility"
    assert [r["er"] for r in doc["effects"]] == [None if pd.isna(v) else v for v in found.effects["er"]]
    code, text, _ = run_cli(
        ["--reproduce", files["team0_a"], files["team1_a"], "--qrels-repro", files["other"], files["qrels"]], capsys
    )
    assert code == 0 and "replicability" in text and "n/a in rmse: not computable" in text


@pytest.mark.parametrize(
    "argv",
    [
        ["--pool-bias", "QRELS"],
        ["--reproduce", "A", "B", "--baseline-orig", "C", "QRELS"],
        ["--reproduce", "A", "B", "QRELS", "EXTRA"],
        ["--qrels-vs", "O", "QRELS", "--baseline-orig", "C"],
        ["--pool-bias", "--depth", "0", "QRELS", "RUN"],
        ["--pool-bias", "-m", "nonsense_measure", "QRELS", "RUN"],
    ],
)
def test_usage_errors_exit_1_before_reading(argv, capsys):
    code, out, err = run_cli(argv, capsys)
    assert code == 1 and not out and err.startswith("ir-eval: ")


def test_bad_input_exits_2(files, tmp_path, capsys):
    code, _, err = run_cli(["--pool-bias", files["qrels"], tmp_path / "missing.txt"], capsys)
    assert code == 2 and "no such file" in err
    bad = tmp_path / "bad.txt"
    bad.write_text("q1 0 d1 notagrade\n")
    code, _, err = run_cli(["--qrels-vs", bad, files["qrels"]], capsys)
    assert code == 2 and "bad.txt" in err
