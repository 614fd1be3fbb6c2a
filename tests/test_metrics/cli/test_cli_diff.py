"""``ir-eval --diff``: the page written whole and self-contained, its settings, rankings side by side,
grades, unjudged and missing documents, escaping, and never over an input."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from metrics.cli.ir_eval import main

SAMPLE = Path(__file__).resolve().parents[3] / "workbench" / "resources" / "sample"


@pytest.fixture
def sample(tmp_path, monkeypatch):
    monkeypatch.setenv("IR_WORKBENCH_CACHE", str(tmp_path / "cache"))
    for name in ("qrels.txt", "run_bm25.txt", "run_bm25_rm3.txt", "collection.tsv", "queries.tsv"):
        shutil.copyfile(SAMPLE / name, tmp_path / name)
    return tmp_path


def test_the_page_of_the_sample(sample, capsys):
    out = sample / "page.html"
    code = main(
        [
            "--diff",
            str(sample / "run_bm25.txt"),
            str(sample / "run_bm25_rm3.txt"),
            "--docs",
            str(sample / "collection.tsv"),
        ]
        + ["--qrels", str(sample / "qrels.txt"), "--topics", str(sample / "queries.tsv"), "--top", "5"]
        + ["--queries", "30", "-o", str(out)]
    )
    assert code == 0, capsys.readouterr().err
    page = out.read_text(encoding="utf-8")
    assert "page.html: 30 of 60 queries" in capsys.readouterr().out
    assert not re.search(r"(src|href)=\"(https?:)?//", page) and "<script" not in page  # nothing fetched
    assert "collection.tsv (tsv, 13" in page and "depth compared and shown" in page
    assert page.count('<div class="pair">') == 30 and "<mark>" in page
    assert re.search(r'<td class="g[0-4]">\d</td>', page) and 'class="unjudged"' in page
    assert re.search(r'href="#q\d+-b-\d+">rank \d+</a>', page)  # a document joined across the runs


def test_missing_documents_and_html_in_ids_are_said_and_escaped(sample, capsys):
    (sample / "a.txt").write_text("1 Q0 <b>x</b> 1 2.0 a\n1 Q0 d2 2 1.0 a\n")
    (sample / "b.txt").write_text("1 Q0 d2 1 2.0 b\n1 Q0 d3 2 1.0 b\n")
    (sample / "docs.jsonl").write_text('{"_id": "d2", "title": "<i>T</i> & co", "text": "the <script> word"}\n')
    (sample / "q.tsv").write_text("1\tword\n")
    out = sample / "p.html"
    code = main(
        ["--diff", str(sample / "a.txt"), str(sample / "b.txt"), "--docs", str(sample / "docs.jsonl")]
        + ["--topics", str(sample / "q.tsv"), "--by", "tau_ap", "-o", str(out)]
    )
    assert code == 0, capsys.readouterr().err
    page = out.read_text(encoding="utf-8")
    assert "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page
    assert "&lt;i&gt;T&lt;/i&gt; &amp; co" in page and "&lt;script&gt; <mark>word</mark>" in page
    assert page.count("not in the collection") == 2  # <b>x</b> and d3


def test_the_page_is_never_written_over_an_input(sample, capsys):
    run = sample / "run_bm25.txt"
    before = run.read_bytes()
    code = main(["--diff", str(run), str(sample / "run_bm25_rm3.txt"), "-o", str(run)])
    assert code == 1 and "input" in capsys.readouterr().err and run.read_bytes() == before


def test_a_measure_needs_qrels_and_a_bad_collection_is_named(sample, capsys):
    runs = [str(sample / "run_bm25.txt"), str(sample / "run_bm25_rm3.txt")]
    assert main(["--diff", *runs, "--by", "nDCG@10", "-o", str(sample / "p.html")]) == 1
    assert "--qrels" in capsys.readouterr().err
    (sample / "bad.tsv").write_text("D1\tok\nno tab\n")
    assert main(["--diff", *runs, "--docs", str(sample / "bad.tsv"), "-o", str(sample / "p.html")]) == 2
    err = capsys.readouterr().err
    assert "bad.tsv, line 2" in err and not (sample / "p.html").exists()
    assert (
        main(["--diff", *runs, "--docs", str(sample / "bad.tsv"), "--skip-bad-lines", "-o", str(sample / "p.html")])
        == 0
    )
    assert "collection lines left out" in (sample / "p.html").read_text(encoding="utf-8")
