"""README's library example, run on the bundled sample: a baseline named by its file (the window's label)
as well as by its tag, ``metrics.report`` without its own import, ``inspect_file`` with qrels as a dict or
a path."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[2] / "workbench" / "resources" / "sample"


@pytest.fixture
def files(tmp_path):
    """README's file names (bm25.txt, dense.txt), their tags not their names, as Anserini's runs are."""
    shutil.copy(SAMPLE / "qrels.txt", tmp_path / "qrels.txt")
    for name, source in (("bm25.txt", "run_bm25.txt"), ("dense.txt", "run_bm25_rm3.txt")):
        text = (SAMPLE / source).read_text()
        tag = "Anserini" if name == "bm25.txt" else "dense_retriever"
        (tmp_path / name).write_text("".join(line.rsplit(" ", 1)[0] + f" {tag}\n" for line in text.splitlines()))
    return tmp_path


README = """
import metrics

qrels = metrics.read_qrels("qrels.txt")
runs = [metrics.read_run("bm25.txt"), metrics.read_run("dense.txt")]
ev = metrics.evaluate(qrels, runs, ["map", "ndcg_cut.10", "P.5,10", "AP", "nDCG@10"])
ev.summary()
ev.per_query
ev.per_query_wide("ndcg_cut_10")

from metrics.compare import compare
by_file = compare(ev, baseline="bm25", test="t", correction="holm")
compare(ev, baseline=0, correction="holm-sidak")
text = metrics.report.to_markdown(ev.aggregate, digits={"nDCG@10": 3, "AP": 2})

from metrics.compare.allpairs import compare_all_pairs, significance_letters
pairs = compare_all_pairs(ev, test="tukey", permutations=200)
significance_letters(pairs)

from metrics.inspect.files import inspect_file
dicts = {"401": {"DOC-000-0040": 1, "DOC-000-0106": 0}}
as_dict = inspect_file("bm25.txt", qrels=dicts).to_dict()
as_path = inspect_file("bm25.txt", qrels="qrels.txt").to_dict()
print(ev.runs, sorted(set(by_file["baseline"])), as_dict["against_qrels"]["shared_queries"],
      as_path["against_qrels"]["shared_queries"], "|" in text)
"""


def test_the_readme_example_runs_as_written(files):
    # a fresh interpreter: metrics.report must be reachable without "import metrics.report"
    done = subprocess.run(
        [sys.executable, "-c", README], cwd=files, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["['Anserini',", "'dense_retriever']", "['Anserini']", "1", "60", "True"]


def test_the_baseline_by_tag_by_file_name_and_by_path(files):
    import metrics
    from metrics.compare import compare

    ev = metrics.evaluate(files / "qrels.txt", [str(files / "bm25.txt"), str(files / "dense.txt")], ["map"])
    for name in ("Anserini", "bm25", "bm25.txt", str(files / "bm25.txt"), 0):
        assert compare(ev, baseline=name, bootstrap=0).attrs["baseline"] == "Anserini", name


def test_a_baseline_that_names_two_runs_is_refused_naming_both(files):
    import metrics
    from metrics.compare import compare

    (files / "other").mkdir()
    shutil.copy(files / "dense.txt", files / "other" / "bm25.txt")
    ev = metrics.evaluate(files / "qrels.txt", [str(files / "bm25.txt"), str(files / "other" / "bm25.txt")], ["map"])
    with pytest.raises(
        ValueError, match=r"'bm25' could be any of: run 'Anserini' \(file .*bm25.txt\); run 'dense_retriever'"
    ):
        compare(ev, baseline="bm25")
    # a label of one run that is the file name of another
    ev = metrics.evaluate(
        files / "qrels.txt", {"bm25": str(files / "dense.txt"), "x": str(files / "bm25.txt")}, ["map"]
    )
    with pytest.raises(ValueError, match=r"run 'bm25' \(its label\); run 'x' \(file"):
        compare(ev, baseline="bm25")


def test_inspect_file_takes_qrels_as_a_dict_or_a_path(files):
    from metrics.inspect.files import inspect_file

    as_dict = inspect_file(files / "bm25.txt", qrels={"401": {"DOC-000-0040": 1}})
    as_path = inspect_file(files / "bm25.txt", qrels=str(files / "qrels.txt"))
    assert as_dict.against_qrels["shared_queries"] == 1 and as_path.against_qrels["shared_queries"] == 60
