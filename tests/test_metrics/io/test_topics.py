"""Query texts: tab-separated files and TREC topics."""

from __future__ import annotations

import gzip

import pytest

from metrics.errors import InputError
from metrics.io.topics import read_queries, sniff

TREC = """<top>
<num> Number: 301
<title> International Organized Crime

<desc> Description:
Identify organizations that participate in international criminal activity.

<narr> Narrative:
A relevant document must as a minimum identify the organization.
</top>

<top>
<num> Number: 302
<title>
<desc> Description:
Is the disease of Poliomyelitis (polio) under control?
</top>
"""

XML = """<topics task="qa" batch="1">
  <topic number="1">
    <query>coronavirus origin</query>
    <question>what is the origin of COVID-19</question>
  </topic>
</topics>
"""


def test_tab_separated_queries_with_or_without_header(tmp_path):
    p = tmp_path / "queries.tsv"
    p.write_text("qid\tquery\n1030303\twho is aziz hashim\n1037496\twho is rep scalise?\n")
    assert read_queries(p) == {"1030303": "who is aziz hashim", "1037496": "who is rep scalise?"}
    gz = tmp_path / "queries.tsv.gz"
    gz.write_bytes(gzip.compress(b"19335\tanthropological definition of environment\n"))
    assert read_queries(gz) == {"19335": "anthropological definition of environment"}


def test_trec_topics_take_the_title_or_else_the_description(tmp_path):
    p = tmp_path / "topics.301-302"
    p.write_text(TREC)
    assert read_queries(p) == {
        "301": "International Organized Crime",
        "302": "Is the disease of Poliomyelitis (polio) under control?",
    }


def test_xml_topics(tmp_path):
    p = tmp_path / "topics.xml"
    p.write_text(XML)
    assert read_queries(p) == {"1": "coronavirus origin"}


def test_sniff_tells_queries_from_qrels_and_runs():
    assert sniff(b"1\twhat is a query\n2\tanother one here\n")
    assert sniff(TREC.encode())
    assert not sniff(b"1 0 D1 1\n1 0 D2 0\n")
    assert not sniff(b"1\t0\tD1\t1\n")
    assert not sniff(b"1 Q0 D1 1 9.5 run\n")


def test_a_carriage_return_inside_a_line_is_a_blank_not_a_line_end(tmp_path):
    """A qrels file whose lines start with "\r" and hold one tab each (found by the differential tests):
    trec_eval reads 4 judgements, and so must every door; cut at its "\r"s it looked like 'qid<TAB>text'."""
    from workbench.state.loading import load_file

    data = b"\rLA0101531 iter\t8 0\r\n\rFBIS3-245\titer 8 3\r\n\rMARCO_348\titer 8 \r\t2\r\n\rLA0101212 iter 8 0\r\n"
    assert not sniff(data)
    path = tmp_path / "qrels.txt"
    path.write_bytes(data)
    _, held = load_file(str(path), None, None)
    loaded = held.frames()  # (the window holds columns; their frames as the library gives them)
    assert loaded.kind == "qrels" and len(loaded.qrels) == 4
    grades = dict(zip(loaded.qrels["query_id"], loaded.qrels["relevance"].tolist()))
    assert grades == {"LA0101531": 0, "FBIS3-245": 3, "MARCO_348": 2, "LA0101212": 0}
    assert set(loaded.qrels["doc_id"]) == {"8"}  # ('iter' is the second field)
    # "\x1c" is a blank to str.split(), part of the document id to trec_eval: 4 fields, a qrels line
    data = b"`x270:\tQ0 fs\x1cx858 1\n`x270: Q0 m   \t1000\n"
    assert not sniff(data)
    path.write_bytes(data)
    _, held = load_file(str(path), None, None)
    assert held.kind == "qrels" and held.qrels.doc.tolist() == [b"fs\x1cx858", b"m"]


def test_a_file_of_neither_layout_names_the_line(tmp_path):
    p = tmp_path / "q.tsv"
    p.write_text("1\tfine query\n2\tbroken\tline\n")
    with pytest.raises(InputError, match=r"q.tsv, line 2: 3 tab-separated fields; expected 'qid<TAB>text'"):
        read_queries(p)
