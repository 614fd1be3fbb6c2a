"""``ir-eval --overlap``, ``--coverage``, ``--versus``, ``--traits``, ``--agreement``: the shape of the text,
CSV and JSON outputs, their numbers those of the library, and usage errors before any file is read."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest
from conftest import random_collection

import metrics
from metrics.analysis import judgment_coverage, rank_overlap
from metrics.cli import ir_eval as cli


@pytest.fixture
def files(tmp_path):
    """Qrels and three TREC run files (ties, unjudged documents, a query one run does not answer)."""
    qrels, _ = random_collection(0)
    qpath = tmp_path / "qrels.txt"
    qpath.write_text("".join(f"{q}\tQ0\t{d}\t{g}\n" for q, d, g in qrels.itertuples(index=False)))
    paths = {"qrels": str(qpath)}
    for i, name in enumerate(["bm25", "dense", "mixed"]):
        run = random_collection(3 * i, name=name)[1]
        if name == "dense":
            run = run[run["query_id"] != "q3"]
        path = tmp_path / f"{name}.run"
        path.write_text(
            "".join(f"{q} Q0 {d} {r} {s!r} {name}\n" for r, (q, d, s) in enumerate(run.itertuples(index=False)))
        )
        paths[name] = str(path)
    return paths


def run_cli(argv, capsys):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def runs_of(files):
    return [files["bm25"], files["dense"], files["mixed"]]


def test_overlap_csv_one_row_per_pair_and_query_then_all(files, capsys):
    code, out, err = run_cli(["--overlap", 10, "--format", "csv", files["qrels"], *runs_of(files)], capsys)
    assert code == 0, err
    table = pd.read_csv(io.StringIO(out), dtype={"query": str})
    assert list(table.columns) == ["run_a", "run_b", "query", "jaccard", "rbo"]
    lib = rank_overlap(runs_of(files), 10, qrels=files["qrels"])
    per_query = table[table["query"] != "all"].reset_index(drop=True)
    assert per_query[["run_a", "run_b", "query"]].values.tolist() == lib[["run_a", "run_b", "query_id"]].values.tolist()
    np.testing.assert_array_equal(per_query["rbo"], lib["rbo"])  # every digit
    alls = table[table["query"] == "all"]
    assert alls[["run_a", "run_b"]].values.tolist() == [["bm25", "dense"], ["bm25", "mixed"], ["dense", "mixed"]]
    # each pair's queries, then its mean over them
    for (a, b), rows in table.groupby(["run_a", "run_b"], sort=False):
        assert rows["query"].iloc[-1] == "all" and (rows["query"].iloc[:-1] != "all").all()
        assert rows["rbo"].iloc[-1] == pytest.approx(rows["rbo"].iloc[:-1].mean(), abs=1e-15)
    assert "q3" not in set(table[(table["run_a"] == "dense") | (table["run_b"] == "dense")]["query"])


def test_overlap_rbo_p_text_and_json(files, capsys):
    code, text, _ = run_cli(["--overlap", 5, "--rbo-p", 0.5, files["qrels"], *runs_of(files)], capsys)
    assert code == 0
    lines = text.splitlines()
    assert lines[0].startswith("# rank overlap at depth 5") and "p = 0.5" in lines[0]
    assert lines[1].split() == ["run_a", "run_b", "query", "jaccard", "rbo"]
    assert [line.split()[2] for line in lines[2:]] == ["all"] * 3
    code, with_queries, _ = run_cli(["--overlap", 5, "-q", files["qrels"], *runs_of(files)], capsys)
    assert len(with_queries.splitlines()) > len(lines)
    code, out, _ = run_cli(
        ["--overlap", 5, "--rbo-p", 0.5, "--format", "json", files["qrels"], *runs_of(files)], capsys
    )
    doc = json.loads(out)
    assert out == json.dumps(doc, indent=1, ensure_ascii=False) + "\n"  # json.dump's layout, written by hand
    assert doc["settings"]["depth"] == 5 and doc["settings"]["rbo_p"] == 0.5
    assert [(p["run_a"], p["run_b"]) for p in doc["pairs"]] == [
        ("bm25", "dense"),
        ("bm25", "mixed"),
        ("dense", "mixed"),
    ]
    lib = rank_overlap(runs_of(files), 5, 0.5, qrels=files["qrels"])
    first = lib[(lib["run_a"] == "bm25") & (lib["run_b"] == "dense")]
    pair = doc["pairs"][0]
    assert list(pair["queries"]) == first["query_id"].tolist()
    assert [v["rbo"] for v in pair["queries"].values()] == first["rbo"].tolist()
    assert pair["all"]["queries"] == len(first) and pair["all"]["rbo"] == pytest.approx(first["rbo"].mean())
    assert float(text.splitlines()[2].split()[4]) == pytest.approx(pair["all"]["rbo"], abs=5e-5)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--overlap", "0"], "K must be 1 or more"),
        (["--overlap", "5", "--rbo-p", "1"], "strictly between 0 and 1"),
        (["--coverage", "10", "--rbo-p", "0.5"], "goes with --overlap"),
        (["--coverage", "ten"], "whole numbers"),
        (["--versus", "map"], "two runs"),
        (["--traits", "map", "--gap", "0.2"], "goes with --coverage"),
        (["--agreement", "-m", "no_such_measure"], "no_such_measure"),
        (["--overlap", "5", "-m", "map"], "goes with --coverage or --agreement"),
        (["--versus", "map", "--top", "3"], "go with --traits"),
    ],
)
def test_usage_errors_before_any_file_is_read(argv, message, capsys):
    code, out, err = run_cli([*argv, "missing-qrels", "missing-a", "missing-b", "missing-c"], capsys)
    assert code == 1 and out == ""
    assert message in err and "Traceback" not in err


def test_one_run_is_not_enough_to_overlap(files, capsys):
    code, _, err = run_cli(["--overlap", 10, files["qrels"], files["bm25"]], capsys)
    assert code == 1 and "at least two runs" in err


def test_a_missing_file_is_one_line(files, capsys):
    code, out, err = run_cli(["--overlap", 10, files["qrels"], files["bm25"], "no-such.run"], capsys)
    assert code == 2 and out == "" and err.strip() == "ir-eval: no-such.run: no such file"


def test_coverage_csv_json_and_the_warning(files, capsys, tmp_path):
    # a run whose top documents the qrels never saw
    new = tmp_path / "new.run"
    new.write_text("".join(f"{q} Q0 unseen{k} {k} {100 - k} new\n" for q in ("q2", "q3", "q5") for k in range(10)))
    runs = [*runs_of(files), str(new)]
    code, out, err = run_cli(["--coverage", "10,5", "-m", "map", "--format", "csv", files["qrels"], *runs], capsys)
    assert code == 0
    assert "run 'new'" in err and "likely underestimated" in err
    assert "run 'bm25'" not in err
    table = pd.read_csv(io.StringIO(out), dtype={"query": str})
    assert list(table.columns[:6]) == ["run", "query", "Judged@10", "Judged@5", "unjudged@10", "unjudged@5"]
    assert list(table.columns[-3:]) == ["map", "map (-J)", "below_others"]
    alls = table[table["query"] == "all"].set_index("run")
    lib = judgment_coverage(files["qrels"], runs, (10, 5)).set_index("run")
    np.testing.assert_array_equal(alls["Judged@10"], lib["Judged@10"])
    assert alls["below_others"].tolist() == [False, False, False, True]
    assert alls.loc["new", "Judged@10"] == 0.0 and alls.loc["new", "unjudged@10"] == 10
    ev = metrics.evaluate(files["qrels"], runs, ["map"])
    np.testing.assert_allclose(alls["map"], ev.summary()["map"].to_numpy(), rtol=0, atol=1e-15)
    assert table["run"].tolist() == sorted(table["run"], key=["bm25", "dense", "mixed", "new"].index)

    code, out, _ = run_cli(["--coverage", "3", "--format", "json", files["qrels"], *runs], capsys)
    doc = json.loads(out)
    assert list(doc["runs"]) == ["bm25", "dense", "mixed", "new"]
    flagged = doc["runs"]["new"]["all"]
    assert flagged["below_others"] is True and "likely underestimated" in flagged["warning"]
    holes = doc["runs"]["new"]["queries"]["q2"]["holes"]
    assert holes == [{"rank": k + 1, "doc_id": f"unseen{k}"} for k in range(3)]

    code, text, _ = run_cli(["--coverage", "10", "-q", "-m", "P.5", files["qrels"], *runs], capsys)
    assert code == 0
    assert "# runs well below the others" in text and "-J" in text
    assert "1:unseen0 2:unseen1" in text


def test_versus_text_and_csv(files, capsys):
    argv = ["--versus", "P.5", files["qrels"], files["bm25"], files["dense"]]
    code, text, _ = run_cli(argv, capsys)
    assert code == 0
    last = text.splitlines()[-1]
    assert last.startswith("# bm25:") and "wins" in last and "queries both runs answer" in last
    code, out, _ = run_cli([*argv[:2], "--format", "csv", *argv[2:]], capsys)
    table = pd.read_csv(io.StringIO(out), dtype={"query": str})
    assert list(table.columns) == ["query", "run_a", "value_a", "run_b", "value_b", "difference", "outcome"]
    assert "q3" not in set(table["query"])
    assert set(table["outcome"]) <= {"win", "loss", "tie"}
    np.testing.assert_allclose(table["difference"], table["value_a"] - table["value_b"])
    wins = sum(int(part.split()[0]) for part in last.split(":")[1].split(",")[:1])
    assert wins == (table["outcome"] == "win").sum()


def test_traits_and_agreement(files, capsys, tmp_path):
    texts = tmp_path / "queries.tsv"
    texts.write_text("q2\tlong query of five terms\nq5\tshort query\n")
    code, out, _ = run_cli(
        ["--traits", "map", "--queries", texts, "--format", "csv", files["qrels"], *runs_of(files)], capsys
    )
    assert code == 0
    table = pd.read_csv(io.StringIO(out), dtype={"query": str})
    assert list(table.columns) == ["query", "relevant", "judged", "length", "runs", "mean", "std", "min", "max"]
    assert table.set_index("query").loc["q2", "length"] == 5
    code, out, _ = run_cli(["--traits", "map", "--top", 2, "--format", "json", files["qrels"], *runs_of(files)], capsys)
    doc = json.loads(out)
    assert len(doc["hardest"]) == len(doc["easiest"]) == len(doc["disputed"]) == 2
    assert [c["trait"] for c in doc["correlations"]] == ["relevant", "judged"]
    code, text, _ = run_cli(["--traits", "map", files["qrels"], *runs_of(files)], capsys)
    assert "Spearman's rho" in text and "hardest" in text

    argv = ["--agreement", "-m", "map", "-m", "P.5 ndcg_cut.10", files["qrels"], *runs_of(files)]
    code, out, _ = run_cli([*argv[:5], "--format", "csv", *argv[5:]], capsys)
    assert code == 0
    table = pd.read_csv(io.StringIO(out))
    assert list(table.columns) == ["measure_a", "measure_b", "runs", "tau", "p_value"]
    assert len(table) == 3 and (table["runs"] == 3).all()
    code, text, _ = run_cli(argv, capsys)
    assert "Kendall's tau" in text and "flips" in text
    code, out, _ = run_cli([*argv[:5], "--format", "json", *argv[5:]], capsys)
    assert set(json.loads(out)) == {"settings", "tau", "flips"}
