"""Which files the window takes for a collection: after TREC, and not query texts."""

from __future__ import annotations

import json

from metrics.documents.formats import collection_format

PASSAGE = "The engine of the battery ran hot. A recipe for the garden village was written on the ribbon by hand."


def test_collections_are_told_by_their_content(tmp_path):
    tsv = tmp_path / "a.txt"
    tsv.write_text("".join(f"D{i}\t{PASSAGE}\n" for i in range(20)))
    beir = tmp_path / "b.txt"
    beir.write_text("".join(json.dumps({"_id": f"D{i}", "title": "T", "text": PASSAGE}) + "\n" for i in range(5)))
    pyserini = tmp_path / "c.txt"
    pyserini.write_text(json.dumps({"id": "D1", "contents": PASSAGE}) + "\n")
    trec = tmp_path / "d.txt"
    trec.write_text(f"<DOC>\n<DOCNO>D1</DOCNO>\n<TEXT>{PASSAGE}</TEXT>\n</DOC>\n")
    assert [collection_format(str(p)) for p in (tsv, beir, pyserini, trec)] == ["tsv", "beir", "jsonl", "trec"]


def test_runs_qrels_and_query_texts_are_not_collections(tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("q1\tQ0 d1 1 2.5 tag\nq1 Q0 d2 2 1.5 tag\n")  # (TREC first: a tab is a blank to trec_eval)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\n")
    queries = tmp_path / "queries.tsv"
    queries.write_text("".join(f"{i}\twhat is the battery of an engine\n" for i in range(30)))
    beir_queries = tmp_path / "queries.jsonl"
    beir_queries.write_text(json.dumps({"_id": "1", "text": "battery engine", "metadata": {}}) + "\n")
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    for path in (run, qrels, queries, beir_queries, empty, tmp_path / "absent.txt"):
        assert collection_format(str(path)) is None, path.name


def test_telling_a_collection_apart_does_not_load_the_store():
    """The window asks of every file it opens whether it is a collection
    (:func:`metrics.documents.formats.collection_format`): that module imported alone leaves the store,
    SQLite and ``xml`` unloaded, and the package's names are still there when used."""
    import subprocess
    import sys

    probe = (
        "import json, sys\n"
        "import metrics.documents.formats\n"
        "alone = sorted(m for m in ('sqlite3', 'xml.etree', 'metrics.documents.store') if m in sys.modules)\n"
        "import metrics, metrics.documents as d\n"
        "named = [callable(d), d.FORMATS is metrics.documents.formats.FORMATS, d.DocumentStore.__name__]\n"
        "print(json.dumps([alone, named, metrics.documents is d]))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [[], [True, True, "DocumentStore"], True]
