"""Tests for metrics.io.readers: file formats, errors, kind detection, progress."""

from __future__ import annotations

import gzip
import pickle
import threading

import numpy as np
import pandas as pd
import pytest

import metrics
from metrics.errors import Cancelled, InputError
from metrics.io import columns, table, textfile
from metrics.io.readers import (
    LoadedFile,
    detect_kind,
    detect_kind_with_reason,
    read_file,
    read_qrels,
    read_ranked_judgments,
    read_run,
)

RUN_LINES = [
    "301 Q0 FR940202-2-00150 1 2.129133 STANDARD",
    "301 Q0 FR940202-2-00151 2 1.724760 STANDARD",
    "302 Q0 doc_50_22#13_30 1 7.5 STANDARD",
    "302 Q0 LA010189-0001 2 -1e-3 STANDARD",
]
RUN_EXPECTED = pd.DataFrame(
    {
        "query_id": ["301", "301", "302", "302"],
        "doc_id": ["FR940202-2-00150", "FR940202-2-00151", "doc_50_22#13_30", "LA010189-0001"],
        "score": [2.129133, 1.724760, 7.5, -1e-3],
    }
)
QRELS_LINES = ["301 0 FR940202-2-00150 1", "301 0 FR940202-2-00151 0", "302 0 LA010189-0001 -1"]
QRELS_EXPECTED = pd.DataFrame(
    {
        "query_id": ["301", "301", "302"],
        "doc_id": ["FR940202-2-00150", "FR940202-2-00151", "LA010189-0001"],
        "relevance": np.array([1, 0, -1], dtype=np.int64),
    }
)


def write(tmp_path, text, name="input.txt", *, compress=False, raw=None):
    path = tmp_path / name
    data = raw if raw is not None else text.encode("utf-8")
    if compress:
        data = gzip.compress(data)
    path.write_bytes(data)
    return path


def plain(frame: pd.DataFrame) -> pd.DataFrame:
    """Columns as plain Python values, for comparisons independent of dtype."""
    return frame.astype({c: object for c in ("query_id", "doc_id")}).reset_index(drop=True)


def assert_frame_values(frame, expected):
    assert list(frame.columns) == list(expected.columns)
    pd.testing.assert_frame_equal(plain(frame), plain(expected), check_dtype=False, check_exact=True)


def reader_threads():
    return [t for t in threading.enumerate() if t.name == "trec-file-reader"]


def check_error(excinfo, path, line, *fragments):
    err = excinfo.value
    assert err.path == str(path)
    assert err.line == line
    text = str(err)
    if line is None:
        assert text.startswith(f"{path}: ")
    else:
        assert text.startswith(f"{path}, line {line}: ")
    for fragment in fragments:
        assert fragment in text, (fragment, text)
    assert err.expected and f"expected {err.expected}" in text


@pytest.fixture
def small_chunks(monkeypatch):
    """Make the reader cut files into many chunks of about 64 bytes."""
    monkeypatch.setattr(textfile, "CHUNK_BYTES", 64)


# --------------------------------------------------------------------------
# output shape


def test_run_columns_dtypes_and_attrs(tmp_path):
    path = write(tmp_path, "\n".join(RUN_LINES) + "\n", "bm25.run")
    run = read_run(path)
    assert_frame_values(run, RUN_EXPECTED)
    assert run["query_id"].dtype == "str"
    assert run["doc_id"].dtype == "str"
    assert run["score"].dtype == np.float64
    assert run.attrs["name"] == "STANDARD"
    assert run.attrs["path"] == str(path)
    assert read_run(path, name="mine").attrs["name"] == "mine"


def test_qrels_columns_and_dtypes(tmp_path):
    path = write(tmp_path, "\n".join(QRELS_LINES) + "\n")
    qrels = read_qrels(path)
    assert_frame_values(qrels, QRELS_EXPECTED)
    assert qrels["relevance"].dtype == np.int64
    assert qrels["query_id"].dtype == "str"


# --------------------------------------------------------------------------
# line and file variants that must read exactly like the plain file


def _variants(lines):
    body = "\n".join(lines) + "\n"
    return {
        "plain": (body, {}),
        "no final newline": (body.rstrip("\n"), {}),
        "gzip": (body, {"compress": True}),
        "gzip named .gz": (body, {"compress": True, "name": "input.txt.gz"}),
        "utf-8 bom": ("\ufeff" + body, {}),
        "crlf": (body.replace("\n", "\r\n"), {}),
        "tabs": (body.replace(" ", "\t"), {}),
        "repeated blanks": (body.replace(" ", "  \t "), {}),
        "leading and trailing blanks": ("".join(f"  \t{line} \t\n" for line in lines), {}),
        "blank lines": ("\n\n" + body.replace("\n", "\n \t\n\n") + "\n", {}),
        "comments": (
            "# header\n" + "".join(f"{line}\n   # note {i}\n#\n" for i, line in enumerate(lines)),
            {},
        ),
        "everything": (
            "\ufeff# c\r\n\r\n" + "".join(f" {line.replace(' ', chr(9) + '  ')} \r\n\t# c\r\n" for line in lines),
            {"compress": True},
        ),
    }


RUN_VARIANTS = _variants(RUN_LINES)
QRELS_VARIANTS = _variants(QRELS_LINES)


@pytest.mark.parametrize("variant", sorted(RUN_VARIANTS))
def test_run_variants_read_like_plain(tmp_path, variant):
    text, options = RUN_VARIANTS[variant]
    run = read_run(write(tmp_path, text, **options))
    assert_frame_values(run, RUN_EXPECTED)
    assert run.attrs["name"] == "STANDARD"


@pytest.mark.parametrize("variant", sorted(QRELS_VARIANTS))
def test_qrels_variants_read_like_plain(tmp_path, variant):
    text, options = QRELS_VARIANTS[variant]
    assert_frame_values(read_qrels(write(tmp_path, text, **options)), QRELS_EXPECTED)


@pytest.mark.parametrize("variant", sorted(RUN_VARIANTS))
def test_run_variants_in_small_chunks(tmp_path, small_chunks, variant):
    text, options = RUN_VARIANTS[variant]
    assert_frame_values(read_run(write(tmp_path, text, **options)), RUN_EXPECTED)


def reference_rows(data: bytes, kind: str):
    """What trec_eval takes from each line: split on whitespace, skip comments."""
    rows = []
    for line in data.split(b"\n"):
        tokens = line.split()
        if not tokens or tokens[0].startswith(b"#"):
            continue
        value = float(tokens[4]) if kind == "run" else int(tokens[3])
        rows.append((tokens[0].decode(), tokens[2].decode(), value))
    return rows


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_random_layouts_match_reference(tmp_path, monkeypatch, seed, kind):
    monkeypatch.setattr(textfile, "CHUNK_BYTES", [64, 300, 1 << 20][seed % 3])
    rng = np.random.default_rng(seed)
    blanks = [" ", "\t", "  ", " \t ", "\x0b", "\x0c", "\r"]
    style = rng.integers(0, 4)  # clean, tabs only, CRLF, anything
    lines = []
    for i in range(300):
        if rng.random() < 0.05:
            lines.append(rng.choice(["", "  ", "# comment", " \t# x y z", "#"]))
            continue
        if kind == "run":
            fields = [f"q{rng.integers(5)}", "Q0", f"d#{i}", str(i), f"{rng.normal():.6g}", "tag"]
            fields += ["extra"] * int(rng.integers(0, 3) if style == 3 else 0)
        else:
            fields = [f"q{rng.integers(5)}", "0", f"d#{i}", str(rng.integers(-1, 3))]
        if style == 0 or style == 2:
            line = " ".join(fields)
        elif style == 1:
            line = "\t".join(fields)
        else:
            line = "".join(f + rng.choice(blanks) for f in fields[:-1]) + fields[-1]
            line = rng.choice(["", " ", "\t "]) + line + rng.choice(["", " ", "\t"])
        lines.append(line)
    text = ("\r\n" if style == 2 else "\n").join(lines)
    path = write(tmp_path, text)
    frame = read_run(path) if kind == "run" else read_qrels(path)
    expected = reference_rows(text.encode(), kind)
    assert list(frame.itertuples(index=False, name=None)) == expected


def test_run_extra_columns_are_ignored(tmp_path):
    lines = [line + " extra" * (i % 3) for i, line in enumerate(RUN_LINES)]
    assert_frame_values(read_run(write(tmp_path, "\n".join(lines))), RUN_EXPECTED)
    uniform = [line + " 7 x" for line in RUN_LINES]
    assert_frame_values(read_run(write(tmp_path, "\n".join(uniform))), RUN_EXPECTED)


def test_lone_cr_is_a_blank_as_in_trec_eval(tmp_path):
    # old Mac line ends: trec_eval sees one line with 12 fields, the last 6 ignored
    run = read_run(write(tmp_path, "1 Q0 a 1 1 t\r1 Q0 b 2 2 t\n"))
    assert list(run.itertuples(index=False, name=None)) == [("1", "a", 1.0)]
    qrels = read_qrels(write(tmp_path, "1 0\ra 1\r\n2\x0b0\x0cb 0\n"))
    assert list(qrels.itertuples(index=False, name=None)) == [("1", "a", 1), ("2", "b", 0)]


def test_run_rank_and_iter_columns_are_ignored(tmp_path):
    lines = [
        "301 Q0 a 999 1.0 t",
        "301 iter b x 2.0 t",
        "301 0 c -3 3.0 t",
    ]
    run = read_run(write(tmp_path, "\n".join(lines)))
    assert run["doc_id"].tolist() == ["a", "b", "c"]
    assert run["score"].tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize(
    "token, value",
    [
        ("12", 12.0),
        ("-3", -3.0),
        ("+1.5", 1.5),
        (".5", 0.5),
        ("5.", 5.0),
        ("1e-4", 1e-4),
        ("1E+05", 1e5),
        ("inf", np.inf),
        ("-Infinity", -np.inf),
        ("1e400", np.inf),
        ("0x1p-3", 0.125),
        ("-0x1p99999", -np.inf),
        ("-0X1.8P1", -3.0),
    ],
)
def test_scores_read_as_strtod_reads_them(tmp_path, token, value):
    run = read_run(write(tmp_path, f"1 Q0 d 1 {token} t\n"))
    assert run["score"].tolist() == [value]


def test_score_precision_is_exact(tmp_path):
    scores = np.random.default_rng(3).normal(size=200) * 10.0 ** np.arange(-100, 100)
    text = "".join(f"q Q0 d{i} {i} {float(s)!r} t\n" for i, s in enumerate(scores))
    assert read_run(write(tmp_path, text))["score"].tolist() == scores.tolist()


def test_qrels_grades(tmp_path):
    text = "1 0 a +2\n1 0 b -1\n1 0 c 007\n1 Q0 d 3\n"
    qrels = read_qrels(write(tmp_path, text))
    assert qrels["relevance"].tolist() == [2, -1, 7, 3]


def test_non_ascii_ids(tmp_path):
    text = "q\u00e9 Q0 d\u00f6c\u4e2d 1 1.0 t\u00e4g\n"
    run = read_run(write(tmp_path, text))
    assert run["query_id"].tolist() == ["q\u00e9"]
    assert run["doc_id"].tolist() == ["d\u00f6c\u4e2d"]
    assert run.attrs["name"] == "t\u00e4g"


def test_many_chunks_mixed_clean_and_messy(tmp_path, small_chunks):
    rng = np.random.default_rng(0)
    lines, expected = [], []
    for i in range(300):
        q, d, s = f"q{i % 7}", f"doc{i}", float(rng.integers(0, 1000)) / 8
        sep = " " if i < 150 else rng.choice([" ", "\t", "  "])
        lines.append(sep.join([q, "Q0", d, str(i), repr(s), "run"]))
        expected.append((q, d, s))
        if i % 40 == 39:
            lines.append("# comment line")
    run = read_run(write(tmp_path, "\n".join(lines) + "\n"))
    assert list(run.itertuples(index=False, name=None)) == expected


def test_input_file_is_not_modified(tmp_path):
    path = write(tmp_path, "\r\n".join(RUN_LINES) + "\r\n")
    before = path.read_bytes()
    stat = path.stat()
    read_run(path)
    read_file(path)
    assert path.read_bytes() == before
    assert path.stat().st_mtime_ns == stat.st_mtime_ns


# --------------------------------------------------------------------------
# ranked judgments


def test_ranked_judgments_round_trip(tmp_path):
    rows = [("2", "z", 1), ("1", "b", 0), ("2", "a", 2), ("1", "c", 1), ("2", "m", 0), ("1", "a", 3)]
    text = "".join(f"{q} Q0 {d} {r}\n" for q, d, r in rows)
    run, qrels = read_ranked_judgments(write(tmp_path, text, "bm25.ranked.gz", compress=True))
    assert run.attrs["name"] == "bm25"
    assert qrels["relevance"].dtype == np.int64
    assert list(qrels.itertuples(index=False, name=None)) == rows
    # sorting by score descending gives back the file order of every query
    for q in ("1", "2"):
        ranked = run[run["query_id"] == q].sort_values("score", ascending=False, kind="quicksort")
        assert ranked["doc_id"].tolist() == [d for qq, d, _ in rows if qq == q]
        assert ranked["score"].is_unique
    assert run["score"].tolist() == [3.0, 3.0, 2.0, 2.0, 1.0, 1.0]


def test_ranked_judgments_named(tmp_path):
    run, _ = read_ranked_judgments(write(tmp_path, "1 Q0 a 1\n"), name="sys")
    assert run.attrs["name"] == "sys"


def test_ranked_judgments_duplicate(tmp_path):
    path = write(tmp_path, "1 Q0 a 1\n1 Q0 b 0\n1 Q0 a 0\n")
    with pytest.raises(InputError) as excinfo:
        read_ranked_judgments(path)
    check_error(excinfo, path, 3, "'a'", "query '1'", "first on line 1")


# --------------------------------------------------------------------------
# errors


@pytest.mark.parametrize(
    "reader, text, line, fragments",
    [
        (read_run, "1 Q0 a 1 1.0 t\n1 Q0 b 2 2.0\n", 2, ["found 5 columns", "6 columns 'qid Q0 docid rank score tag'"]),
        (read_run, "1 Q0 a 1 1.0 t\n\n# c\n1 Q0 b 2 2.0 t\n1 Q0 c\n", 5, ["found 3 columns"]),
        (read_run, "1 Q0 a 1 1.0 t\n1 Q0 b 2 x2 t\n", 2, ["score 'x2' in column 5", "a number"]),
        (read_run, "1 Q0 a 1 1.5x t\n", 1, ["score '1.5x'"]),
        (read_run, "1 Q0 a 1 nan t\n", 1, ["score 'nan'", "not NaN"]),
        (read_run, "1 Q0 a 1 1,5 t\n", 1, ["score '1,5'"]),
        (read_run, "query Q0 document rank score tag\n1 Q0 a 1 1 t\n", 1, ["score 'score'", "header line"]),
        (read_qrels, "1 0 a 1\n1 0 b 1 extra\n", 2, ["found 5 columns", "4 columns 'qid iter docid rel'"]),
        (read_qrels, "1 0 a 1\n1 0 b\n", 2, ["found 3 columns"]),
        (read_qrels, "1 0 a 1\n1 0 b 1.5\n", 2, ["relevance '1.5' in column 4", "an integer"]),
        (read_qrels, "1 0 a yes\n", 1, ["relevance 'yes'"]),
        (read_qrels, "1 0 a 99999999999999999999\n", 1, ["out of the 64-bit range"]),
        (read_ranked_judgments, "1 Q0 a 1 1.0 t\n", 1, ["this looks like a run", "'qid Q0 docid rel'"]),
    ],
)
def test_bad_lines(tmp_path, reader, text, line, fragments):
    path = write(tmp_path, text)
    with pytest.raises(InputError) as excinfo:
        reader(path)
    check_error(excinfo, path, line, *fragments)
    assert not reader_threads()


def test_qrels_given_as_run(tmp_path):
    path = write(tmp_path, "# judged\n" + "\n".join(QRELS_LINES))
    with pytest.raises(InputError) as excinfo:
        read_run(path)
    check_error(excinfo, path, 2, "this looks like a qrels file", "6 columns")


def test_run_given_as_qrels(tmp_path):
    path = write(tmp_path, "\n".join(RUN_LINES))
    with pytest.raises(InputError) as excinfo:
        read_qrels(path)
    check_error(excinfo, path, 1, "this looks like a run", "4 columns 'qid iter docid rel'")


def test_ranked_given_as_run(tmp_path):
    path = write(tmp_path, "1 Q0 a 1\n")
    with pytest.raises(InputError) as excinfo:
        read_run(path)
    check_error(excinfo, path, 1, "ranked-judgments file")


def test_wrong_columns_after_first_line_give_no_kind_hint(tmp_path):
    path = write(tmp_path, "1 Q0 a 1 1.0 t\n1 0 b 1\n")
    with pytest.raises(InputError) as excinfo:
        read_run(path)
    check_error(excinfo, path, 2, "found 4 columns")
    assert "looks like" not in str(excinfo.value)


@pytest.mark.parametrize("text", ["", "\n\n  \n", "# only\n#comments\n", "\ufeff"])
@pytest.mark.parametrize("reader", [read_run, read_qrels, read_ranked_judgments])
def test_empty_files(tmp_path, reader, text):
    path = write(tmp_path, text)
    with pytest.raises(InputError) as excinfo:
        reader(path)
    check_error(excinfo, path, None, "no data lines")


def test_empty_gzip_file(tmp_path):
    path = write(tmp_path, "", "run.gz", compress=True)
    with pytest.raises(InputError) as excinfo:
        read_run(path)
    check_error(excinfo, path, None, "no data lines")


def test_nul_bytes(tmp_path):
    path = write(tmp_path, None, raw=b"1 Q0 a 1 1 t\n1 Q0 b 2 2 t\n\x00\x01\x02")
    with pytest.raises(InputError) as excinfo:
        read_run(path)
    check_error(excinfo, path, 3, "NUL byte", "binary", "UTF-8 text")


def test_bytes_that_are_not_utf8_are_ids_as_in_trec_eval(tmp_path):
    """Old collections carry Latin-1: the ids are their bytes; a frame keeps the bytes that are not UTF-8
    as lone surrogates (PEP 383), so that the frame alone gives the file's bytes back (no cache beside it)."""
    path = write(tmp_path, None, raw=b"1 0 a 1\n1 0 b\xe9 1\n1 0 b\xe8 0\n")
    qrels = read_qrels(path)
    assert qrels["doc_id"].tolist() == ["a", "b\udce9", "b\udce8"]
    copied = qrels.copy(deep=True)  # a copy of the frame, not the frame read: the same bytes
    assert columns.columns_from_frame(copied, "qrels").doc.tolist() == [b"a", b"b\xe9", b"b\xe8"]
    assert columns.columns_from_frame(qrels, "qrels").doc.tolist() == [b"a", b"b\xe9", b"b\xe8"]
    run = write(tmp_path, None, raw=b"1 Q0 b\xe9 1 2 t\n1 Q0 b\xe8 2 1 t\n", name="run.txt")
    ev = metrics.evaluate(path, run, ["P.1", "num_rel_ret"])
    assert ev.summary().loc[ev.runs[0]].tolist() == [1.0, 1.0]
    assert metrics.evaluate(qrels, metrics.read_run(run), ["P.1"]).summary().iloc[0, 0] == 1.0


def test_utf16_file(tmp_path):
    path = write(tmp_path, None, raw="1 0 a 1\n".encode("utf-16"))
    with pytest.raises(InputError) as excinfo:
        read_qrels(path)
    check_error(excinfo, path, 1, "UTF-16")
    with pytest.raises(InputError):
        detect_kind(path)


def test_corrupt_gzip(tmp_path):
    data = gzip.compress(("\n".join(RUN_LINES) + "\n").encode() * 50)
    path = write(tmp_path, None, "run.gz", raw=data[: len(data) // 2])
    with pytest.raises(InputError) as excinfo:
        read_run(path)
    assert excinfo.value.path == str(path)
    assert "gzip" in str(excinfo.value)
    assert not reader_threads()


def test_duplicate_in_run(tmp_path):
    path = write(tmp_path, "1 Q0 a 1 3 t\n2 Q0 a 1 3 t\n# c\n1 Q0 b 2 2 t\n1 Q0 a 3 1 t\n")
    with pytest.raises(InputError) as excinfo:
        read_run(path)
    check_error(excinfo, path, 5, "'a' a second time for query '1'", "first on line 1", "at most once per query")


def test_duplicate_in_qrels(tmp_path):
    path = write(tmp_path, "1 0 a 1\n1 0 b 1\n1 0 b 0\n")
    with pytest.raises(InputError) as excinfo:
        read_qrels(path)
    check_error(excinfo, path, 3, "'b' a second time", "first on line 2")


def test_first_duplicate_is_reported(tmp_path, small_chunks):
    lines = [f"q{i % 5} Q0 d{i} {i} 1 t" for i in range(100)]
    lines[70] = "q0 Q0 d5 70 1 t"  # repeats line 6
    lines[40] = "q1 Q0 d11 40 1 t"  # repeats line 12, found first
    lines.insert(20, "# a comment shifts the line numbers")
    path = write(tmp_path, "\n".join(lines))
    with pytest.raises(InputError) as excinfo:
        read_run(path)
    check_error(excinfo, path, 42, "'d11'", "query 'q1'", "first on line 12")


@pytest.mark.parametrize("docs", [["ab", "ab"], ["a" * 20, "a" * 19 + "b", "a" * 20], ["\u00e9" * 9, "\u00e9" * 9]])
def test_duplicates_of_any_length_are_found(tmp_path, docs):
    text = "".join(f"1 Q0 {d} 1 1 t\n" for d in docs)
    with pytest.raises(InputError, match="a second time"):
        read_run(write(tmp_path, text))


def test_duplicate_check_matches_pandas(tmp_path):
    rng = np.random.default_rng(7)
    alphabet = np.array(list("ab\u00e9"))
    docs = ["".join(rng.choice(alphabet, rng.integers(1, 19))) for _ in range(400)]
    qids = [str(q) for q in rng.integers(0, 3, 400)]
    frame = pd.DataFrame({"query_id": qids, "doc_id": docs, "score": 1.0})
    frame = frame.drop_duplicates(["query_id", "doc_id"])
    text = "".join(f"{q} Q0 {d} 1 1 t\n" for q, d in zip(frame.query_id, frame.doc_id))
    assert len(read_run(write(tmp_path, text))) == len(frame)
    extra = frame.iloc[len(frame) // 2]
    path = write(tmp_path, text + f"{extra.query_id} Q0 {extra.doc_id} 1 1 t\n")
    with pytest.raises(InputError) as excinfo:
        read_run(path)
    assert excinfo.value.line == len(frame) + 1


def test_hash_collisions_are_not_reported_as_duplicates(tmp_path, monkeypatch):
    monkeypatch.setattr(table, "pair_keys", lambda qid, doc: np.zeros(len(qid), dtype=np.uint64))
    run = read_run(write(tmp_path, "1 Q0 a 1 1 t\n1 Q0 b 1 1 t\n2 Q0 a 1 1 t\n"))
    assert len(run) == 3
    with pytest.raises(InputError, match="'b' a second time"):
        read_run(write(tmp_path, "1 Q0 a 1 1 t\n1 Q0 b 1 1 t\n1 Q0 b 1 1 t\n"))


def test_error_line_numbers_across_chunks(tmp_path, small_chunks):
    lines = [f"1 Q0 d{i} {i} 1.0 t" for i in range(200)]
    lines[150] = "1 Q0 d150 150 one t"
    lines.insert(3, "")
    lines.insert(5, "# comment")
    path = write(tmp_path, "\r\n".join(lines))
    with pytest.raises(InputError) as excinfo:
        read_run(path)
    check_error(excinfo, path, 153, "score 'one'")


def test_input_error_text_and_pickle():
    err = InputError("found 5 columns", path="run.txt", line=12, expected="6 columns")
    assert str(err) == "run.txt, line 12: found 5 columns; expected 6 columns"
    assert isinstance(err, ValueError)
    copy = pickle.loads(pickle.dumps(err))
    assert (copy.path, copy.line, copy.message, copy.expected) == ("run.txt", 12, "found 5 columns", "6 columns")
    assert str(InputError("bad", path="q.txt")) == "q.txt: bad"


# --------------------------------------------------------------------------
# detect_kind and read_file


@pytest.mark.parametrize(
    "text, kind",
    [
        ("1 Q0 a 1 1.0 t\n", "run"),
        ("1 Q0 a 1 1.0 t extra more\n", "run"),
        ("1 0 a 1\n", "qrels"),
        ("# c\n\n  1\t0\ta\t1\r\n", "qrels"),
        # the layouts of real collections' qrels are all qrels: TREC (0), TREC DL / MS MARCO (Q0),
        # TREC-COVID style fractional iter, tabs; ranked judgments are never guessed from a Q0
        ("19335 Q0 1017759 0\n19335 Q0 1082489 0\n", "qrels"),
        ("1 q0 a 1\n", "qrels"),
        ("1 0.5 a 2\n", "qrels"),
        ("301\t0\tFBIS3-10082\t1\n", "qrels"),
        ("1101\tQ0\tmsmarco_passage_00_49\t3\n", "qrels"),
    ],
)
def test_detect_kind(tmp_path, text, kind):
    assert detect_kind(write(tmp_path, text)) == kind
    assert detect_kind(write(tmp_path, "\ufeff" + text, "x.gz", compress=True)) == kind


def test_detect_kind_reads_only_the_start(tmp_path):
    # the second half is binary garbage: it must not be looked at
    raw = ("1 0 a 1\n" * 20000).encode() + b"\x00\xff" * 1000
    assert detect_kind(write(tmp_path, None, raw=raw)) == "qrels"


def test_detect_kind_skips_long_comment_header(tmp_path):
    text = "".join(f"# {'x' * 70}\n" for _ in range(2000)) + "1 Q0 a 1 1.0 t\n"
    assert detect_kind(write(tmp_path, text)) == "run"


def test_detect_kind_says_why(tmp_path):
    kind, reason = detect_kind_with_reason(write(tmp_path, "# DL19\n19335 Q0 1017759 0\n"))
    assert kind == "qrels" and reason.startswith("line 2 has 4 fields") and "ranked" in reason
    kind, reason = detect_kind_with_reason(write(tmp_path, "1 Q0 a 1 1.0 t\n"))
    assert kind == "run" and "6 fields" in reason


@pytest.mark.parametrize(
    "text, line, fragment",
    [
        ("# c\n1 Q0 a 1 1.0\n", 2, "found 5 columns"),
        ("1 0 a\n", 1, "found 3 columns"),
        ("", None, "no data lines"),
        ("\x00\x00", 1, "NUL byte"),
    ],
)
def test_detect_kind_errors(tmp_path, text, line, fragment):
    path = write(tmp_path, text)
    with pytest.raises(InputError) as excinfo:
        detect_kind(path)
    check_error(excinfo, path, line, fragment)


def test_read_file_by_detected_kind(tmp_path):
    run_path = write(tmp_path, "\n".join(RUN_LINES), "a.run")
    loaded = read_file(run_path)
    assert isinstance(loaded, LoadedFile)
    assert (loaded.kind, loaded.path, loaded.qrels, loaded.warnings) == ("run", str(run_path), None, [])
    assert_frame_values(loaded.run, RUN_EXPECTED)

    qrels_path = write(tmp_path, "\n".join(QRELS_LINES), "a.qrels")
    loaded = read_file(qrels_path)
    assert (loaded.kind, loaded.run) == ("qrels", None)
    assert_frame_values(loaded.qrels, QRELS_EXPECTED)

    ranked_path = write(tmp_path, "1 Q0 a 1\n1 Q0 b 0\n", "a.txt")
    assert read_file(ranked_path).kind == "qrels"  # never guessed...
    loaded = read_file(ranked_path, kind="ranked")  # ...but read as ranked judgments when asked
    assert loaded.kind == "ranked"
    assert loaded.run["score"].tolist() == [2.0, 1.0]
    assert loaded.qrels["relevance"].tolist() == [1, 0]


def test_read_file_with_given_kind(tmp_path):
    path = write(tmp_path, "1 Q0 a 1\n")
    loaded = read_file(path, kind="qrels")  # Q0 is a valid iter field
    assert (loaded.kind, loaded.run) == ("qrels", None)
    with pytest.raises(InputError, match="looks like a ranked"):
        read_file(path, kind="run")
    with pytest.raises(ValueError, match="kind must be"):
        read_file(path, kind="trec")


def test_read_file_warns_when_run_tag_changes(tmp_path):
    loaded = read_file(write(tmp_path, "1 Q0 a 1 1 first\n1 Q0 b 2 0 second\n"))
    assert loaded.run.attrs["name"] == "first"
    assert len(loaded.warnings) == 1
    assert "'first'" in loaded.warnings[0] and "'second'" in loaded.warnings[0]


# --------------------------------------------------------------------------
# progress and cancellation


def test_progress_is_called_a_few_times_in_order(tmp_path, monkeypatch):
    monkeypatch.setattr(textfile, "CHUNK_BYTES", 1000)
    path = write(tmp_path, "".join(f"1 Q0 d{i} {i} 1.0 t\n" for i in range(1000)))
    seen = []
    run = read_run(path, progress=lambda f: seen.append(f))
    assert len(run) == 1000
    assert seen == sorted(seen)
    assert seen[0] == 0.0 and seen[-1] == 1.0
    assert 10 < len(seen) < 60  # per chunk, never per line


@pytest.mark.parametrize("compress", [False, True])
@pytest.mark.parametrize("stop_at", [0, 1, 5, -2])
def test_cancel(tmp_path, monkeypatch, stop_at, compress):
    monkeypatch.setattr(textfile, "CHUNK_BYTES", 1000)
    path = write(tmp_path, "".join(f"1 Q0 d{i} {i} 1.0 t\n" for i in range(1000)), compress=compress)
    calls = []
    read_file(path, progress=lambda f: calls.append(f))
    stop = stop_at % len(calls)
    seen, threads = [], []

    def progress(fraction):
        seen.append(fraction)
        threads.append(len(reader_threads()))
        return len(seen) <= stop

    with pytest.raises(Cancelled):
        read_file(path, progress=progress)
    # gzip is decompressed ahead by a thread (there once reading has begun); a plain file is read in
    # the calling thread
    assert max(threads) == (1 if compress and len(seen) > 1 else 0)
    assert len(seen) == stop + 1
    assert not reader_threads()


def test_cancel_during_slow_line_by_line_pass(tmp_path, monkeypatch):
    # varying extra columns send every line through the line-by-line pass, a chunk (1 MiB) at a time
    text = "".join(f"1 Q0 d{i} {i} 1.0 t{' x' * (i % 2)}\n" for i in range(200_000))
    path = write(tmp_path, text)
    seen = []

    def progress(fraction):
        seen.append(fraction)
        return len(seen) < 2

    with pytest.raises(Cancelled):
        read_run(path, progress=progress)
    assert len(seen) == 2  # stopped after the first chunk of several


# --------------------------------------------------------------------------
# DataFrame sources


def test_run_from_dataframe():
    frame = pd.DataFrame({"qid": [1, 1, 2], "docno": ["a", "b", "a"], "score": [1, 2, 3]})
    frame.attrs["name"] = "given"
    run = read_run(frame)
    assert list(run.columns) == ["query_id", "doc_id", "score"]
    assert run["query_id"].tolist() == ["1", "1", "2"]
    assert run["query_id"].dtype == "str"
    assert run["score"].dtype == np.float64
    assert run.attrs["name"] == "given"
    assert read_run(frame, name="x").attrs["name"] == "x"


def test_qrels_from_dataframe():
    frame = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [1.0, -1.0]})
    qrels = read_qrels(frame)
    assert qrels["relevance"].dtype == np.int64
    assert qrels["relevance"].tolist() == [1, -1]


def test_ranked_from_dataframe():
    frame = pd.DataFrame({"query_id": ["1", "2", "1"], "doc_id": ["a", "b", "c"], "relevance": [1, 0, 2]})
    run, qrels = read_ranked_judgments(frame)
    assert run["score"].tolist() == [2.0, 1.0, 1.0]
    assert qrels["relevance"].tolist() == [1, 0, 2]


@pytest.mark.parametrize(
    "reader, frame, fragment",
    [
        (read_run, pd.DataFrame({"query_id": ["1"], "score": [1.0]}), "columns query_id, doc_id, score"),
        (read_run, pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "a"], "score": [1.0, 2.0]}), "twice"),
        (read_run, pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": ["x"]}), "score 'x'"),
        (read_run, pd.DataFrame({"query_id": [None], "doc_id": ["a"], "score": [1.0]}), "missing query_id"),
        (read_qrels, pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [0.5]}), "relevance 0.5"),
        (
            read_qrels,
            pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": pd.array([1, None], "Int64")}),
            "relevance <NA> at position 1",
        ),
    ],
)
def test_bad_dataframes(reader, frame, fragment):
    with pytest.raises(InputError, match=fragment) as excinfo:
        reader(frame)
    assert excinfo.value.path is None


def test_concurrent_reads_do_not_mix(tmp_path, small_chunks):
    from concurrent.futures import ThreadPoolExecutor

    paths = []
    for k in range(4):
        text = "".join(f"q{k}-{i % 3} Q0 d{i} {i} {i / 7!r} t{k}\n" for i in range(150))
        paths.append(write(tmp_path, text, f"run{k}.txt", compress=k % 2 == 1))
    expected = [plain(read_run(p)) for p in paths]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda p: read_file(p).run, paths * 3))
    for i, run in enumerate(results):
        pd.testing.assert_frame_equal(plain(run), expected[i % 4], check_exact=True)
        assert run.attrs["name"] == f"t{i % 4}"


def test_first_error_wins_across_chunks(tmp_path, small_chunks):
    lines = [f"1 Q0 d{i} {i} 1.0 t" for i in range(100)]
    lines[30] = "1 Q0 d30 30 1.0"  # 5 columns, before a binary tail
    path = write(tmp_path, None, raw=("\n".join(lines) + "\n").encode() + b"\x00" * 500)
    with pytest.raises(InputError) as excinfo:
        read_run(path)
    check_error(excinfo, path, 31, "found 5 columns")
    lines[30] = "1 Q0 d30 30 1.0 t"
    path = write(tmp_path, None, raw=("\n".join(lines) + "\n").encode() + b"\x00" * 500)
    with pytest.raises(InputError) as excinfo:
        read_run(path)
    check_error(excinfo, path, 101, "NUL byte")
    assert not reader_threads()


def test_a_frame_of_latin1_ids_is_written_back_as_its_bytes(tmp_path):
    """A run and qrels read from a Latin-1 file and written again (write_run, write_qrels) hold the file's
    bytes: the frame's lone surrogates are those bytes."""
    from metrics.io.writers import write_qrels, write_run

    qrels = write(tmp_path, None, raw=b"1 0 caf\xe9 1\n1 0 b 0\n")
    run = write(tmp_path, None, raw=b"1 Q0 caf\xe9 1 2 t\n1 Q0 b 2 1 t\n", name="run.txt")
    write_run(read_run(run), tmp_path / "again.run")
    write_qrels(read_qrels(qrels), tmp_path / "again.qrels")
    assert (tmp_path / "again.run").read_bytes() == b"1 Q0 caf\xe9 1 2.0 t\n1 Q0 b 2 1.0 t\n"
    assert (tmp_path / "again.qrels").read_bytes() == b"1 0 caf\xe9 1\n1 0 b 0\n"
