"""The document store: every layout (plain and gzip) detected by content, ids byte for byte, bad lines in
both modes, text that is not UTF-8, a large document, and the index found again, made again, or left out."""

from __future__ import annotations

import gzip
import json
import os
import time

import pytest

import metrics
from metrics.documents import Document, open_documents
from metrics.errors import Cancelled, InputError

TSV = b"D1\tThe first passage about rivers.\nD2\tA second one, on forests.\n"
BEIR = (
    json.dumps({"_id": "D1", "title": "Rivers", "text": "The first passage about rivers."})
    + "\n"
    + json.dumps({"_id": "D2", "title": "Forests", "text": "A second one, on forests."})
    + "\n"
).encode()
PYSERINI = (
    json.dumps({"id": "D1", "contents": "The first passage about rivers."})
    + "\n"
    + json.dumps({"id": "D2", "contents": "A second one, on forests."})
    + "\n"
).encode()
TREC = b"""<DOC>
<DOCNO> D1 </DOCNO>
<HEADLINE>Rivers</HEADLINE>
<TEXT>
The first passage
about rivers.
</TEXT>
</DOC>
<DOC><DOCNO>D2</DOCNO><TITLE>Forests</TITLE><TEXT>A second one, on forests.</TEXT></DOC>
"""
LAYOUTS = {"tsv": TSV, "beir": BEIR, "jsonl": PYSERINI, "trec": TREC}


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    """Every index of these tests in a cache folder of its own."""
    monkeypatch.setenv("IR_WORKBENCH_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache" / "documents"


TITLES = {"tsv": "", "beir": "Rivers", "jsonl": "", "trec": "Rivers"}


def write(tmp_path, name, data: bytes, gz: bool = False):
    path = tmp_path / name
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("fmt", list(LAYOUTS))
def test_every_layout_is_detected_by_content_and_read(tmp_path, fmt, gz):
    path = write(tmp_path, "collection.data", LAYOUTS[fmt], gz)  # the name says nothing
    store = metrics.documents(path)
    assert store.format == fmt and len(store) == 2 and store.built
    assert store.path == os.path.abspath(path)
    docs = store.get(["D2", "D1", "D3"])
    assert list(docs) == ["D2", "D1"]  # in the order asked; D3 absent
    assert docs["D1"].text == "The first passage about rivers."
    assert docs["D1"].title == TITLES[fmt]
    assert docs["D2"].length == len("A second one, on forests.") and not docs["D2"].truncated
    assert not str(cache_path(store)).startswith(str(tmp_path / "collection"))


def cache_path(store):
    return store.index


def test_the_index_lives_in_the_cache_folder_never_beside_the_input(tmp_path, cache):
    path = write(tmp_path, "c.tsv", TSV)
    store = open_documents(path)
    assert store.index.parent == cache
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.tsv", "cache"]


def test_a_file_of_no_layout_is_refused_naming_it(tmp_path):
    path = write(tmp_path, "notes.txt", b"just some words\nand more\n")
    with pytest.raises(InputError) as err:
        open_documents(path)
    assert str(path) in str(err.value) and "collection.tsv" in str(err.value) and "corpus.jsonl" in str(err.value)
    with pytest.raises(InputError, match="_id"):
        open_documents(write(tmp_path, "x.jsonl", b'{"name": "x"}\n'))
    with pytest.raises(InputError, match="not a regular file"):
        open_documents(tmp_path)


@pytest.mark.parametrize(
    ("fmt", "data", "line"),
    [
        ("tsv", b"D1\tok\nno tab here\nD3\tok\n", 2),
        ("beir", b'{"_id": "D1", "text": "ok"}\n{"_id": "D2", "text": \n{"_id": "D3", "text": "ok"}\n', 2),
        ("jsonl", b'{"id": "D1", "contents": "ok"}\n{"contents": "no id"}\n{"id": "D3", "contents": "ok"}\n', 2),
        ("trec", b"<DOC><DOCNO>D1</DOCNO>ok</DOC>\nstray text\n<DOC><DOCNO>D3</DOCNO>ok</DOC>\n", 2),
    ],
)
def test_a_bad_line_is_named_or_skipped_and_counted(tmp_path, fmt, data, line):
    path = write(tmp_path, "c", data)
    with pytest.raises(InputError) as err:
        open_documents(path)
    assert err.value.line == line and err.value.path == str(path)
    store = open_documents(path, on_error="skip")
    assert store.skipped.count == 1 and store.skipped.lines == (line,)
    assert set(store.get(["D1", "D3"])) == {"D1", "D3"} and len(store) == 2
    with pytest.raises(InputError) as again:  # the index kept its skipped lines: raise mode still says so
        open_documents(path)
    assert again.value.line == line


def test_a_trec_document_without_its_end_is_named_by_its_start(tmp_path):
    path = write(tmp_path, "c.trec", b"<DOC><DOCNO>D1</DOCNO>ok</DOC>\n<DOC>\n<DOCNO>D2</DOCNO>\nnever ends\n")
    with pytest.raises(InputError, match="no </DOC>") as err:
        open_documents(path)
    assert err.value.line == 2


def test_an_id_listed_twice_is_named_with_both_lines(tmp_path):
    path = write(tmp_path, "c.tsv", b"D1\tfirst\nD2\tx\nD1\tagain\n")
    with pytest.raises(InputError, match="first on line 1") as err:
        open_documents(path)
    assert err.value.line == 3
    store = open_documents(path, on_error="skip")
    assert store.get(["D1"])["D1"].text == "first" and store.skipped.lines == (3,)


def test_text_that_is_not_utf8_is_replaced_and_flagged(tmp_path):
    path = write(tmp_path, "c.tsv", b"D1\tcaf\xe9 cr\xe8me\nD2\tplain\n")
    docs = open_documents(path).get(["D1", "D2"])
    assert docs["D1"].text == "caf\ufffd cr\ufffdme" and docs["D1"].replaced
    assert not docs["D2"].replaced
    beir = write(tmp_path, "c.jsonl", b'{"_id": "D1", "title": "t\xe9", "text": "ok"}\n')
    found = open_documents(beir).get(["D1"])["D1"]
    assert found.title == "t\ufffd" and found.replaced


def test_ids_that_differ_by_case_or_by_bytes_outside_utf8_are_kept_apart(tmp_path):
    path = write(tmp_path, "c.tsv", b"doc1\tlower\nDOC1\tupper\nd\xe91\tlatin-1\nd\xc3\xa91\tutf-8\n")
    store = open_documents(path)
    latin = b"d\xe91".decode("utf-8", "surrogateescape")  # as the run and qrels readers give that id
    docs = store.get(["doc1", "DOC1", latin, "dé1", "Doc1", "d\ud8001"])
    assert {k: v.text for k, v in docs.items()} == {"doc1": "lower", "DOC1": "upper", latin: "latin-1", "dé1": "utf-8"}


def test_ids_match_what_the_run_reader_gives(tmp_path):
    run = tmp_path / "run.txt"
    run.write_bytes(b"1 Q0 d\xe91 1 2.0 t\n1 Q0 DOC1 2 1.0 t\n")
    ids = list(metrics.read_run(run)["doc_id"])
    store = open_documents(write(tmp_path, "c.tsv", b"d\xe91\tlatin-1\nDOC1\tupper\n"))
    assert set(store.get(ids)) == set(ids)


def test_a_10_mb_document_is_stored_whole_and_cut_on_request(tmp_path):
    big = "word " * 2_000_000
    path = write(tmp_path, "c.tsv", b"BIG\t" + big.encode() + b"\nD2\tsmall\n")
    store = open_documents(path)
    cut = store.get(["BIG"], limit=1000)["BIG"]
    assert cut.truncated and len(cut.text) == 1000 and cut.length == len(big)
    whole = store.get(["BIG"])["BIG"]
    assert not whole.truncated and whole.text == big
    snippet = store.snippet("BIG", "word", width=50)
    assert snippet is not None and len(snippet.text) <= 52 and snippet.marks


def test_a_line_longer_than_the_bound_is_named(tmp_path, monkeypatch):
    import metrics.io.textfile as textfile

    monkeypatch.setattr(textfile, "MAX_LINE_BYTES", 1 << 16)
    path = write(tmp_path, "c.tsv", b"D1\tok\nD2\t" + b"x" * (3 << 20) + b"\n")
    with pytest.raises(InputError, match="longer than") as err:
        open_documents(path)
    assert err.value.line == 2


def test_the_index_is_found_again_without_indexing(tmp_path):
    path = write(tmp_path, "c.tsv", TSV)
    first = open_documents(path)
    made = first.index.stat().st_mtime_ns
    again = open_documents(path)
    assert first.built and not again.built
    assert again.index == first.index and again.index.stat().st_mtime_ns == made


def test_a_changed_collection_is_indexed_again(tmp_path):
    path = write(tmp_path, "c.tsv", TSV)
    assert open_documents(path).get(["D1"])["D1"].text.startswith("The first")
    path.write_bytes(b"D1\tchanged text\n")
    later = time.time() + 5
    os.utime(path, (later, later))
    store = open_documents(path)
    assert store.built and len(store) == 1 and store.get(["D1"])["D1"].text == "changed text"


def test_a_cancelled_index_leaves_nothing_that_is_used(tmp_path, cache, monkeypatch):
    import metrics.documents.store as store_module

    monkeypatch.setattr(store_module, "BATCH", 10)
    path = write(tmp_path, "c.tsv", b"".join(b"D%d\ttext %d\n" % (i, i) for i in range(100)))
    seen = []

    def progress(fraction):
        seen.append(fraction)
        return len(seen) < 3

    with pytest.raises(Cancelled):
        open_documents(path, progress)
    assert not list(cache.iterdir())  # neither the index nor its temporary file
    fractions = []
    store = open_documents(path, lambda f: fractions.append(f) or True)
    assert store.built and len(store) == 100 and fractions[-1] == 1.0
    assert fractions == sorted(fractions)


def test_an_unfinished_temporary_index_is_never_used(tmp_path, cache):
    path = write(tmp_path, "c.tsv", TSV)
    store = open_documents(path)
    store.close()
    store.index.rename(store.index.with_name("." + store.index.stem + ".0123456789ab.tmp"))
    assert open_documents(path).built


def test_a_thousand_lookups_from_another_thread(tmp_path):
    import threading

    path = write(tmp_path, "c.tsv", b"".join(b"D%d\ttext %d\n" % (i, i) for i in range(5000)))
    store = open_documents(path)
    out: dict[str, Document] = {}
    thread = threading.Thread(target=lambda: out.update(store.get([f"D{i}" for i in range(0, 5000, 5)])))
    thread.start()
    thread.join()
    assert len(out) == 1000 and out["D5"].text == "text 5"
