"""The one reader (metrics.io.columns) reads every layout real collections use as a plain whitespace split
of each line would (the reference here), through its two doors: numpy columns and the readers' frames."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from metrics.errors import InputError
from metrics.io import table, textfile, tokens
from metrics.io.columns import read_columns
from metrics.io.ids import MAX_FIXED_WIDTH, pair_keys
from metrics.io.readers import read_file


def _reference(path, kind):
    """(query ids, document ids, values, tags) of a file as trec_eval's rules read it, line by line:
    fields split on whitespace, blank and '#' lines skipped, a score as C's strtod reads it."""
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    data = data.removeprefix(b"\xef\xbb\xbf")
    qids, docs, values, tags = [], [], [], []
    for line in data.split(b"\n"):
        tokens = line.split()
        if not tokens or tokens[0].startswith(b"#"):
            continue
        qids.append(tokens[0])
        docs.append(tokens[2])
        if kind == "run":
            token = tokens[4].decode()
            values.append(float.fromhex(token) if "x" in token.lower() else float(token))
            tags.append(tokens[5].decode())
        else:
            values.append(int(tokens[3]))
    return qids, docs, values, tags


def _same(path, kind):
    """The columns and the frame of the file equal the reference reading of it."""
    got = read_columns(path, kind)
    qids, docs, values, tags = _reference(path, kind)
    assert got.qid.tolist() == qids
    assert got.doc.tolist() == docs
    if kind == "run":  # bit for bit, -0.0 and all
        np.testing.assert_array_equal(got.value.view(np.int64), np.array(values, dtype=np.float64).view(np.int64))
        assert (got.name, got.run_id) == (tags[0], tags[-1])
    else:
        assert got.value.tolist() == values
    loaded = read_file(path, kind)
    frame = loaded.run if kind == "run" else loaded.qrels
    assert frame["query_id"].tolist() == [q.decode("utf-8", "surrogateescape") for q in qids]
    assert frame["doc_id"].tolist() == [d.decode("utf-8", "surrogateescape") for d in docs]
    assert frame.iloc[:, 2].tolist() == values
    assert loaded.warnings == got.warnings
    return got


def _scores(rng, n):
    """Scores as systems print them: rounded, negative, long, tied, integers, exponents."""
    kinds = rng.integers(0, 7, size=n)
    values = rng.normal(0, 20, size=n)
    out = []
    for k, v in zip(kinds, values):
        if k == 0:
            out.append(f"{v:.4f}")
        elif k == 1:
            out.append(repr(float(v)))  # 17 significant digits: read one by one
        elif k == 2:
            out.append(str(int(v)))
        elif k == 3:
            out.append(f"{v:.3e}")
        elif k == 4:
            out.append("1.5")  # ties
        elif k == 5:
            out.append(f"{abs(v) / 1000:.9f}".lstrip("0") if abs(v) < 1000 else "0.5")  # .0123
        else:
            out.append(f"+{abs(v):.2f}" if v > 0 else "-0.0")
    return out


def _run_lines(rng, queries=43, depth=40, sep=" ", tag="bm25"):
    lines = []
    for q in range(queries):
        qid = str(19335 + 7 * q)
        docs = rng.choice(10**7, size=depth, replace=False)
        for r, (d, s) in enumerate(zip(docs, _scores(rng, depth))):
            lines.append(sep.join([qid, "Q0", f"D{d}", str(r + 1), s, tag]))
    return lines


def _qrels_lines(rng, queries=43, per_query=30, iteration="0", sep=" "):
    lines = []
    for q in range(queries):
        qid = str(19335 + 7 * q)
        for d in rng.choice(10**7, size=per_query, replace=False):
            lines.append(sep.join([qid, iteration, f"D{d}", str(int(rng.choice([-1, 0, 0, 1, 2, 3])))]))
    return lines


LAYOUTS = {
    "spaces": lambda lines: "\n".join(lines) + "\n",
    "tabs": lambda lines: "\n".join(line.replace(" ", "\t") for line in lines) + "\n",
    "crlf": lambda lines: "\r\n".join(lines) + "\r\n",
    "no final newline": lambda lines: "\n".join(lines),
    "comments and blank lines": lambda lines: (
        "# a header\n\n" + "\n".join(lines[:5]) + "\n\n# x\n" + "\n".join(lines[5:])
    ),
    "runs of blanks": lambda lines: "\n".join("  " + line.replace(" ", " \t ") + " " for line in lines) + "\n",
    "mixed tabs and spaces": lambda lines: "\n".join(line.replace(" ", "\t", 1) for line in lines) + "\n",
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("iteration", ["0", "Q0", "0.5"])
def test_qrels_layouts(tmp_path, layout, iteration):
    rng = np.random.default_rng(len(layout) + len(iteration))
    path = tmp_path / "qrels.txt"
    path.write_text(LAYOUTS[layout](_qrels_lines(rng, iteration=iteration)))
    cols = _same(path, "qrels")
    assert len(cols) == 43 * 30 and set(cols.value.tolist()) <= {-1, 0, 1, 2, 3}


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_run_layouts(tmp_path, layout):
    rng = np.random.default_rng(len(layout))
    path = tmp_path / "run.txt"
    path.write_text(LAYOUTS[layout](_run_lines(rng)))
    assert len(_same(path, "run")) == 43 * 40


def test_gzip_and_small_chunks_cut_anywhere(tmp_path, monkeypatch):
    """Chunk ends fall in every position of a line; gzip is read by content, whatever the name."""
    rng = np.random.default_rng(11)
    text = "\n".join(_run_lines(rng, queries=10, depth=50)) + "\n"
    plain, packed = tmp_path / "run.txt", tmp_path / "run.data"
    plain.write_text(text)
    with gzip.open(packed, "wt") as fh:
        fh.write(text)
    for size in (97, 1000, 4093):
        monkeypatch.setattr(textfile, "CHUNK_BYTES", size)
        a, b = _same(plain, "run"), _same(packed, "run")
        assert a.doc.tolist() == b.doc.tolist()


def test_a_1000_deep_run_with_250_queries_and_a_changing_tag(tmp_path):
    rng = np.random.default_rng(3)
    lines = _run_lines(rng, queries=250, depth=1000)
    lines[-1] = lines[-1].rsplit(" ", 1)[0] + " rm3"
    path = tmp_path / "robust.run"
    path.write_text("\n".join(lines) + "\n")
    cols = _same(path, "run")
    assert (cols.name, cols.run_id) == ("bm25", "rm3") and "changes" in cols.warnings[0]


@pytest.mark.parametrize(
    "text",
    [
        "q1 Q0 d1 1 0x1p-3 r\nq1 Q0 d2 2 inf r\nq1 Q0 d3 3 -INF r\n",  # what strtod reads
        "q1 Q0 d1 1 1e400 r\nq1 Q0 d2 2 1e-400 r\n",  # overflow and underflow
        "q1 Q0 d1 1 3 r extra fields\nq1 Q0 d2 2 2 r\n",  # trec_eval ignores fields after the tag
        "q1 Q0 " + "d" * 600 + " 1 3 r\nq1 Q0 d2 2 2.0 r\n",  # an id longer than the fixed width
        "q1 Q0 d\u00e9j\u00e0 1 3 r\nq1 Q0 d2 2 2.0 r\n",  # UTF-8 ids
        "\ufeffq1 Q0 d1 1 3 r\n",  # a byte-order mark
        "q1 Q0 d1 1 12345678901234567890.5 r\nq1 Q0 d2 2 0.000000000000000000001 r\n",  # many digits
    ],
)
def test_unusual_but_valid_runs(tmp_path, text):
    path = tmp_path / "run.txt"
    path.write_text(text, encoding="utf-8")
    _same(path, "run")


@pytest.mark.parametrize(
    "kind, text, message, line",
    [
        (
            "run",
            "q1 Q0 d1 1 3.0 r\nq1 Q0 d1 2 2.0 r\n",
            "found document 'd1' a second time for query 'q1' (first on line 1)",
            2,
        ),
        ("run", "q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 nan r\n", "found score 'nan' in column 5", 2),
        ("run", "q1 Q0 d1 1 3.0x r\n", "found score '3.0x' in column 5", 1),
        ("run", "q1 Q0 d1 1 3.0\n", "found 5 columns", 1),
        ("qrels", "q1 0 d1 1\nq1 0 d2 1.5\n", "found relevance '1.5' in column 4", 2),
        ("qrels", "q1 0 d1 1 extra\n", "found 5 columns", 1),
        ("qrels", "q1 0 d1 99999999999999999999\n", "(out of the 64-bit range)", 1),
        ("qrels", "# only a comment\n\n", "no data lines", None),
    ],
)
def test_bad_files_are_refused_on_their_line(tmp_path, kind, text, message, line):
    path = tmp_path / "bad.txt"
    path.write_text(text)
    for door in (lambda: read_columns(path, kind), lambda: read_file(path, kind)):
        with pytest.raises(InputError) as info:
            door()
        assert message in str(info.value) and info.value.line == line


def test_decimal_scores_are_read_exactly(tmp_path):
    """The vectorised decimal reader gives Python's (correctly rounded) float for every spelling."""
    rng = np.random.default_rng(5)
    digits = rng.integers(1, 16, size=3000)
    texts = []
    for k, d in enumerate(digits):
        whole = int(rng.integers(0, 10 ** int(d)))
        point = int(rng.integers(0, int(d) + 1))
        s = str(whole).zfill(int(d))
        s = s[:point] + "." + s[point:] if k % 3 else s
        texts.append(("-" if k % 5 == 0 else "") + s)
    path = tmp_path / "run.txt"
    path.write_text("".join(f"q Q0 d{i} {i} {t} r\n" for i, t in enumerate(texts)))
    got = read_columns(path, "run").value
    assert got.tolist() == [float(t) for t in texts]


@pytest.mark.parametrize(
    "grades, dtype",
    [
        ([0, 1, 2, 3], np.int8),
        ([-1, 0, 127], np.int8),
        ([-1, 200], np.int16),
        ([0, 40000], np.int32),
        ([0, -(2**40)], np.int64),  # (a grade as high is refused: tests/test_metrics/cli/test_trec_first.py)
    ],
)
def test_grades_take_the_smallest_type_that_holds_them(tmp_path, grades, dtype):
    path = tmp_path / "qrels.txt"
    path.write_text("".join(f"q{i % 3} 0 d{i} {g}\n" for i, g in enumerate(grades * 40)))
    cols = _same(path, "qrels")
    assert cols.value.dtype == dtype and cols.value.tolist() == grades * 40


def test_qrels_chunks_of_different_grade_types_join_in_the_widest(tmp_path, monkeypatch):
    path = tmp_path / "qrels.txt"
    path.write_text("".join(f"q1 0 d{i} {1000 if i == 150 else i % 3}\n" for i in range(200)))
    monkeypatch.setattr(textfile, "CHUNK_BYTES", 500)
    cols = _same(path, "qrels")
    assert cols.value.dtype == np.int16 and cols.value[150] == 1000


@pytest.mark.parametrize("kind", ["run", "qrels"])
@pytest.mark.parametrize("longest", [30, MAX_FIXED_WIDTH + 1])
def test_chunks_whose_ids_change_width_are_filled_in_the_widest(tmp_path, monkeypatch, kind, longest):
    """Ids of 2, then ``longest``, then 5 and 3 bytes, chunk after chunk: the columns widen as they
    are filled (to an object column past the fixed width) and keep every id as it was."""
    docs = [f"{i:02d}" for i in range(60)] + [f"{i:03d}".rjust(longest, "x") for i in range(60)]
    docs += [f"d{i:04d}" for i in range(60)] + [f"{i:03d}" for i in range(60)]
    if kind == "run":
        text = "".join(f"q{i // 50} Q0 {d} {i % 50 + 1} {-i / 7} tag\n" for i, d in enumerate(docs))
    else:
        text = "".join(f"q{i // 50} 0 {d} {i % 3}\n" for i, d in enumerate(docs))
    path = tmp_path / "f.txt"
    path.write_text(text)
    for size in (300, 2000):
        monkeypatch.setattr(textfile, "CHUNK_BYTES", size)
        cols = _same(path, kind)
        assert cols.doc.tolist() == [d.encode() for d in docs]
        assert cols.doc.dtype == (object if longest > MAX_FIXED_WIDTH else "S32")  # whole 64-bit words


def test_columns_keep_no_more_rows_than_read_when_the_estimate_is_off(tmp_path, monkeypatch):
    """The rows still to come are estimated from the first chunks; a file whose first lines are short
    and the rest long makes the estimate far too high, and the margin is let go."""
    short = "".join(f"q1 Q0 d{i} {i + 1} 1 t\n" for i in range(5000))
    long_ = "".join(f"q2 Q0 {'x' * 200}{i} {i + 1} 1 t\n" for i in range(500))
    path = tmp_path / "run.txt"
    path.write_text(short + long_)
    monkeypatch.setattr(textfile, "CHUNK_BYTES", 1 << 16)
    cols = _same(path, "run")
    for column in (cols.qid, cols.doc, cols.value):
        held = len(column.base) if column.base is not None else len(column)
        assert len(column) == 5500 and held <= 5500 + 5500 // 16 + 4096


def test_a_qrels_file_keeps_its_keys_sorted_for_the_encoding(tmp_path):
    rng = np.random.default_rng(8)
    path = tmp_path / "qrels.txt"
    path.write_text("\n".join(_qrels_lines(rng)) + "\n")
    cols = read_columns(path, "qrels")
    keys = pair_keys(cols.qid, cols.doc)
    np.testing.assert_array_equal(cols.sorted_keys, np.sort(keys))
    np.testing.assert_array_equal(keys[cols.key_order], cols.sorted_keys)
    np.testing.assert_array_equal(cols.pair_keys(), keys)  # made again when asked for


@pytest.mark.parametrize("longest", [1, 8, 9, 17, 40])
def test_ids_cut_from_a_buffer_are_its_bytes_up_to_the_very_end(longest):
    from metrics.io.ids import ids_from_buffer

    rng = np.random.default_rng(longest)
    lengths = rng.integers(1, longest + 1, size=200)
    starts = np.concatenate([[0], np.cumsum(lengths + 1)[:-1]])
    text = b" ".join(bytes(rng.integers(33, 127, size=k, dtype=np.uint8)) for k in lengths)  # no byte after the last
    got = ids_from_buffer(np.frombuffer(text, dtype=np.uint8), starts, starts + lengths)
    assert got.tolist() == [text[a : a + k] for a, k in zip(starts, lengths)]
    assert got.dtype.itemsize == max(8, -(-int(lengths.max()) // 8) * 8)  # whole 64-bit words


@pytest.mark.parametrize("kind", ["run", "qrels"])
@pytest.mark.parametrize("clash", ["high halves", "whole keys"])
def test_duplicates_are_told_from_keys_that_merely_clash(tmp_path, monkeypatch, kind, clash):
    """Keys that share their high 32 bits (or all 64) are only candidates: the ids decide."""
    real = table.pair_keys
    mask = np.uint64(0xFFFFFFFF) if clash == "high halves" else np.uint64(0)
    monkeypatch.setattr(table, "pair_keys", lambda qid, doc: real(qid, doc) & mask)
    rng = np.random.default_rng(2)
    lines = _run_lines(rng, queries=5, depth=30) if kind == "run" else _qrels_lines(rng, queries=5)
    path = tmp_path / "file.txt"
    path.write_text("\n".join(lines) + "\n")
    _same(path, kind)  # no duplicate
    path.write_text("\n".join(lines + lines[3:4]) + "\n")
    with pytest.raises(InputError):
        read_columns(path, kind)


@pytest.mark.parametrize("dtype", [np.uint32, np.int64, np.uint64, np.int16])
@pytest.mark.parametrize("wanted_count", [3, 40, 5000])
def test_among_is_membership_in_sorted_values(dtype, wanted_count):
    """Few wanted values (compared one by one), a few among many values (a table of low bits first),
    and many (searched): always np.isin's answer, negative values and all."""
    from metrics.io.ids import among

    rng = np.random.default_rng(wanted_count)
    info = np.iinfo(dtype)
    values = rng.integers(max(info.min, -(1 << 40)), min(info.max, 1 << 40), size=20_000, dtype=np.int64).astype(dtype)
    # half of the wanted values are among the values, half (most likely) not
    wanted = np.unique(np.concatenate([values[: wanted_count // 2], values[-wanted_count // 2 :] ^ dtype(1)]))
    np.testing.assert_array_equal(among(values, wanted), np.isin(values, wanted))
    np.testing.assert_array_equal(among(values[::-3], wanted), np.isin(values[::-3], wanted))  # a strided view


@pytest.mark.parametrize("width", [1, 3, 4, 5, 8, 12, 16, 17, 24])
def test_stretches_of_equal_ids_start_where_numpy_compares_them_unequal(width):
    """Ids compared by their bytes as integers give the stretches numpy's comparison of the strings
    gives: any width, ids differing only in their last byte, zero bytes inside an id, a strided view, and
    arrays that are not strings."""
    from metrics.io.ids import stretch_heads

    rng = np.random.default_rng(width)
    alphabet = np.frombuffer(b"ab\x00z9", dtype=np.uint8)
    distinct = rng.choice(alphabet, size=(40, width)).view(f"S{width}").ravel()
    distinct[1] = distinct[0][:-1] + (b"b" if distinct[0][-1:] == b"a" else b"a") if width > 1 else b"q"
    ids = np.repeat(distinct[rng.integers(0, 40, size=300)], rng.integers(1, 6, size=300))

    def reference(values):
        return np.concatenate([[0], np.flatnonzero(values[1:] != values[:-1]) + 1])

    for values in (ids, ids[::3], ids[:1], ids[:0], rng.integers(0, 3, size=500)):
        np.testing.assert_array_equal(stretch_heads(values), reference(values) if len(values) else [])


@pytest.mark.parametrize("packed", [False, True])
@pytest.mark.parametrize("bom", [False, True])
def test_a_nul_byte_deep_in_the_file_is_reported_on_its_line(tmp_path, monkeypatch, packed, bom):
    """The reader does not count lines as it reads; an error still names its line."""
    lines = [f"q{i // 100} Q0 d{i} {i % 100 + 1} {1000 - i} t\n".encode() for i in range(3000)]
    lines[2500] = lines[2500].replace(b"d2500", b"d25\x0000")
    data = (b"\xef\xbb\xbf" if bom else b"") + b"".join(lines)
    path = tmp_path / "run.txt"
    path.write_bytes(gzip.compress(data) if packed else data)
    monkeypatch.setattr(textfile, "CHUNK_BYTES", 1000)
    for door in (lambda: read_columns(path, "run"), lambda: read_file(path, "run")):
        with pytest.raises(InputError) as info:
            door()
        assert info.value.line == 2501 and "NUL byte" in str(info.value)


def test_bytes_that_are_not_utf8_are_read_as_they_are(tmp_path, monkeypatch):
    lines = [f"q{i // 100} Q0 d{i} {i % 100 + 1} {1000 - i} t\n".encode() for i in range(3000)]
    lines[2500] = lines[2500].replace(b"d2500", b"d25\xff\xfe00")
    path = tmp_path / "run.txt"
    path.write_bytes(b"".join(lines))
    monkeypatch.setattr(textfile, "CHUNK_BYTES", 1000)
    assert _same(path, "run").doc[2500] == b"d25\xff\xfe00"


def test_an_endless_line_deep_in_the_file_is_reported_on_its_line(tmp_path, monkeypatch):
    from metrics.io import textfile

    monkeypatch.setattr(textfile, "MAX_LINE_BYTES", 5000)
    monkeypatch.setattr(textfile, "CHUNK_BYTES", 1000)
    path = tmp_path / "run.txt"
    path.write_text("".join(f"q1 Q0 d{i} {i + 1} {1000 - i} t\n" for i in range(3000)) + "q1 Q0 " + "x" * 20_000)
    with pytest.raises(InputError, match="line 3001 is longer than") as info:
        read_columns(path, "run")
    assert info.value.line == 3001


def test_the_columns_reserve_a_bounded_multiple_of_the_rows_read(tmp_path):
    """A tiny part of the file read (a gzip file whose first chunk came from a few compressed bytes)
    does not size the columns for the rows that part would promise: at most _GROWTH times those read."""
    parsed = tokens.parse(b"".join(f"q1 Q0 d{i} {i + 1} 1.5 t\n".encode() for i in range(1000)), "run")
    filled = tokens.Filled()
    filled.add(parsed, 1e-12)
    assert 1000 <= len(filled.columns[2]) <= tokens._GROWTH * 1000
    filled.add(parsed, 1.0)  # the last chunk: the columns are cut to the rows, their margin let go
    assert filled.n == 2000 and [len(c) for c in filled.result()] == [2000, 2000, 2000]
