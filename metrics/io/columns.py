"""The one reader of TREC text: qrels, runs and ranked judgments as numpy columns.

Every door reads files here: ``ir-eval``, the library on paths (:func:`metrics.evaluate`,
:func:`metrics.read_qrels`, :func:`metrics.read_run`, whose DataFrames are made from these columns),
the window, inspection, ``--jobs``, a run scored in parts and Dask.  The rules of the format (what a
score or a grade may look like, the sentences of errors) are in :mod:`metrics.io.formats`.

:func:`read_columns` gives a :class:`Columns`: per row the query id and the document id as numpy
byte strings (``S`` dtype; an ``object`` array of ``bytes`` when some id is longer than
:data:`~metrics.io.ids.MAX_FIXED_WIDTH` bytes: both layouts hash, compare and sort alike), and the score
(float64) or grade (the smallest signed integer type that holds the file's grades); for a run also
the tags of its first and last lines.  Ids are bytes as trec_eval reads them: text that is not UTF-8
(old collections' Latin-1) is kept as it is.  Importing this module costs numpy only.

Each chunk of the file (:data:`metrics.io.textfile.CHUNK_BYTES` of whole lines) is split by a few
vectorised passes: lines of the usual shape at once, lines with runs of blanks, CRLF ends, blank or
comment lines once normalised (:func:`normalise`).  A chunk the vectorised split does not take (a
varying number of run columns, a bad line) is read line by line, which either gives the same columns or raises an
:class:`~metrics.errors.InputError` naming the file, the line and what was expected.  Duplicate
(query, document) pairs are found by 64-bit hashes, confirmed on the ids, and reported with both
lines.

Numbers are exact: a decimal score of at most 15 significant digits is its digits, an integer below
2**53, divided by a power of ten no larger than 1e15, both exact doubles, so the IEEE quotient is
the correctly rounded value C's ``strtod`` gives (Clinger's fast path); scores in other spellings
(``1e-4``, ``inf``, hexadecimal) are read one by one by the format's ``strtod`` rule
(:func:`metrics.io.formats._strtod`, Python's correctly rounded ``float``).
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import sys
import weakref
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from metrics.errors import InputError
from metrics.io.formats import (
    _FORMATS,
    _INT64_MAX,
    _INT64_MIN,
    _INT_RE,
    _RUN,
    INTENTS_LAYOUT,
    JSON_LAYOUT,
    Layout,
    Progress,
    Ticker,
    _column_error,
    _empty_error,
    _Format,
    _show,
    _stem,
    _strtod,
    _value_error,
    trec_layout,
)
from metrics.io.ids import (
    _windows,
    among,
    ids_from_buffer,
    ids_from_series,
    pair_keys,
    stretch_heads,
)
from metrics.io.textfile import _line_at, chunks

__all__ = ["Columns", "read_columns", "columns_from_frame", "ranked_run"]


@dataclass(eq=False)
class Columns:
    """A qrels file (``value``: grades, in the smallest signed integer type that holds them: int8 for
    the usual ones) or a run (``value``: float64 scores) as columns.

    Rows are in file order.  ``name`` is a run's label (the tag of its first line unless given),
    ``run_id`` the tag of its last line (trec_eval's ``runid``); ``warnings`` are sentences about
    what was accepted but may surprise.
    """

    kind: str
    qid: np.ndarray
    doc: np.ndarray
    value: np.ndarray
    path: Optional[str] = None
    name: str = ""
    run_id: str = ""
    warnings: list = field(default_factory=list)
    #: 64-bit hash of each row's (query, document) pair, as :func:`pair_keys` makes it (kept from the
    #: reader's duplicate check for the join)
    keys: Optional[np.ndarray] = field(default=None, repr=False)
    #: row indices that sort the pair keys, and the keys in that order (kept from the duplicate
    #: check of a qrels file for :func:`metrics.ranking.qrels_index.encode_qrels`, which then sorts nothing;
    #: ``keys`` is then None, made again if asked for), or None
    key_order: Optional[np.ndarray] = field(default=None, repr=False)
    sorted_keys: Optional[np.ndarray] = field(default=None, repr=False)
    #: with ``read_columns(..., fields=True)`` (inspection): a run's rank column and run tag per row, as
    #: bytes (the scoring reads neither), and the file's comment lines
    rank: Optional[np.ndarray] = field(default=None, repr=False)
    tag: Optional[np.ndarray] = field(default=None, repr=False)
    comment_lines: int = 0
    #: where the file's fields were (:class:`~metrics.io.formats.Layout`): TREC's columns, a header's
    #: or JSON's (None: not read from a file)
    layout: Optional[Layout] = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.value)

    def pair_keys(self) -> np.ndarray:
        """The rows' (query, document) hashes: equal pairs, equal keys (a match is only a candidate)."""
        if self.keys is None:
            self.keys = pair_keys(self.qid, self.doc)
        return self.keys


class _Irregular(Exception):
    """A chunk the vectorised split does not take: it is read line by line."""


# ------------------------------------------------------------------------------------------ reading


def read_columns(
    path,
    kind: str,
    name: Optional[str] = None,
    *,
    progress: Progress = None,
    fields: bool = False,
    layout: Optional[Layout] = None,
) -> Columns:
    """Read a qrels (``kind="qrels"``), run (``"run"``) or ranked-judgments (``"ranked"``: the qrels
    of its inline grades, rows in ranked order; :func:`ranked_run` gives its run) file.

    ``progress(fraction)`` is called once per chunk with the part of the file read so far; when it
    returns ``False`` reading stops with :class:`~metrics.errors.Cancelled`.  Problems raise
    :class:`~metrics.errors.InputError` naming the file, the line and what was expected.  ``fields``
    (inspection) also keeps a run's rank and tag columns and counts the comment lines.  ``layout``:
    where the fields are, rather than as the file's first data line says (:data:`INTENTS_LAYOUT`: intent
    qrels, the intents in ``rank``).
    """
    if kind not in _FORMATS:
        raise ValueError(f"kind must be 'qrels', 'run' or 'ranked', not {kind!r}")
    fmt = _FORMATS[kind]
    display = os.fspath(path)
    if display.startswith(DATASET_PREFIX):  # an ir_datasets dataset (metrics.io.datasets), not a file
        from metrics.io.datasets import dataset_columns

        return dataset_columns(display, kind, name, progress=progress)
    tick = Ticker(progress)
    tick(0.0)
    # (parsing two chunks at once in two threads gained 5% on a 1M-line run for 30% more memory)
    filled = _Filled()
    offset = 0  # bytes of text before the chunk: where its first line is, should it hold an error
    comments = 0
    sniff = layout is None
    with contextlib.closing(chunks(display, count_lines=False)) as source:  # type: ignore[type-var]  # a generator closes
        for chunk, _, _, fraction in source:
            if fields and b"#" in chunk:
                comments += comment_lines(chunk)
            if sniff and layout is None:
                layout, cut = _layout(chunk, kind, display, offset)
                if layout is JSON_LAYOUT:
                    return _json_columns(display, fmt, name, chunk, source, tick)
                if cut:  # the header line (and the comments before it) is no data
                    chunk = chunk[cut:]
                    offset += cut
            filled.add(parse_chunk(chunk, fmt, display, offset, filled.n == 0, fields, layout), fraction)
            offset += len(chunk)
            tick(0.95 * fraction)
    cols = _assemble(display, fmt, name, filled, layout=layout)
    cols.comment_lines = comments
    tick(1.0)
    return cols


#: a source named ``irds:<dataset id>`` is an ir_datasets dataset's qrels (or scored docs), not a file
DATASET_PREFIX = "irds:"


def _layout(chunk: bytes, kind: str, display: str, offset: int) -> tuple[Optional[Layout], int]:
    """(the file's layout, the bytes of the chunk up to its header line's end), from its first chunk
    (None: no data line in it yet)."""
    from metrics.io.detect import layout_of_chunk

    try:
        layout, cut, _ = layout_of_chunk(chunk, kind)
    except InputError as exc:
        raise InputError(
            exc.message, path=display, line=_line_at(display, offset) + (exc.line or 1) - 1, expected=exc.expected
        ) from None
    return layout, cut


def _json_columns(display: str, fmt: _Format, name: Optional[str], first: bytes, source, tick: Ticker) -> Columns:
    """The columns of a JSON file ``{qid: {docid: value}}`` (BEIR's saved results, pytrec_eval's and
    ranx's dicts), whose first chunk ``first`` is read and the rest comes from ``source``."""
    import json

    parts = [first]
    for chunk, _, _, fraction in source:
        parts.append(chunk)
        tick(0.5 * fraction)
    expected = f"JSON {{qid: {{docid: {'score' if fmt is _RUN else 'integer grade'}}}}}"
    try:
        data = json.loads(b"".join(parts).decode("utf-8", "surrogateescape"))
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        message = f"found text that is not JSON ({getattr(exc, 'msg', exc)})"
        raise InputError(message, path=display, line=line, expected=expected) from None
    del parts
    if not isinstance(data, dict):
        raise InputError(f"found a JSON {type(data).__name__}", path=display, expected=expected)
    qids: list[bytes] = []
    docs: list[bytes] = []
    values: list = []
    for qid, ranked in data.items():
        if not isinstance(ranked, dict):
            raise InputError(f"found a JSON {type(ranked).__name__} for query {qid!r}", path=display, expected=expected)
        key = qid.encode("utf-8", "surrogateescape")
        for doc, value in ranked.items():
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            if not number or (fmt is _RUN and value != value) or (fmt is not _RUN and not isinstance(value, int)):
                what = "score" if fmt is _RUN else "relevance"
                message = f"found {what} {value!r} for query {qid!r}, document {doc!r}"
                raise InputError(message, path=display, expected=expected)
            qids.append(key)
            docs.append(doc.encode("utf-8", "surrogateescape"))
            values.append(value)
    filled = _Filled()
    if qids:
        value_array = np.array(values, dtype=np.float64 if fmt is _RUN else np.int64)
        if fmt is not _RUN:
            value_array = value_array.astype(grade_dtype(value_array), copy=False)
        filled.add((ids_from_list(qids), ids_from_list(docs), value_array, b"", b""), 1.0)
    cols = _assemble(display, fmt, name, filled, layout=JSON_LAYOUT)
    tick(1.0)
    return cols


def comment_lines(chunk: bytes) -> int:
    """How many lines of ``chunk`` (whole lines) are comments (first non-blank byte ``#``)."""
    return len(_COMMENT.findall(chunk))


_COMMENT = re.compile(rb"^[ \t\r\x0b\x0c]*#", re.MULTILINE)


def parse_chunk(
    chunk: bytes,
    fmt: _Format,
    display: str,
    offset: Optional[int],
    at_start: bool,
    fields: bool = False,
    layout: Optional[Layout] = None,
):
    """The :func:`_parse` result of a chunk of whole lines (None: no data lines), read line by line
    where the vectorised split does not take it.  ``offset``: the bytes of the file's text before the
    chunk, from which an error's line is counted (None: errors are raised as ``_Irregular``, for a
    caller that reads the file again to report them).  ``fields``: a run's rank and tag columns too.
    ``layout``: where the fields are (None: TREC's columns)."""
    try:
        return _parse(chunk, fmt.kind, fields, layout)
    except _Irregular:
        if offset is None:
            raise
        return _parse_lines(chunk, fmt, display, offset, at_start, fields, layout)


def _parse_lines(
    chunk: bytes,
    fmt: _Format,
    display: str,
    offset: int,
    at_start: bool,
    fields: bool = False,
    layout: Optional[Layout] = None,
):
    """What :func:`_parse` gives, line by line: for lines the vectorised split does not take (a varying
    number of run columns, ``+1`` grades, quoted CSV fields), or to raise at the first bad line."""
    qids: list[bytes] = []
    docs: list[bytes] = []
    values: list = []
    ranks: list[bytes] = []
    tags: list[bytes] = []
    first_tag = last_tag = b""
    is_run = fmt is _RUN
    if layout is None:
        layout = trec_layout(fmt.kind)
    need = layout.ncols
    tokens_of = _tokenizer(layout)
    q, d, v, r, t = layout.qid, layout.doc, layout.value, layout.rank, layout.tag

    def line_no(i: int) -> int:
        return _line_at(display, offset) + i

    for i, line in enumerate(chunk.split(b"\n")[:-1]):
        tokens = tokens_of(line)
        if not tokens or tokens[0][:1] == b"#":
            continue
        n = len(tokens)
        if n < need or (n > need and not layout.extra_ok):
            raise _column_error(tokens, fmt, display, line_no(i), at_start and not qids, layout)
        if not tokens[q] or not tokens[d]:
            raise InputError(
                f"found an empty {'query id' if not tokens[q] else 'document id'}",
                path=display,
                line=line_no(i),
                expected=layout.expected(fmt),
            )
        token = tokens[v] if layout.trec else tokens[v].strip()
        if is_run:
            value = _strtod(token)
            if value is None or math.isnan(value):
                raise _value_error(token, fmt, display, line_no(i), at_start and not qids, layout)
            if t is not None:
                last_tag = tokens[t]
                if not qids:
                    first_tag = last_tag
            if fields:
                ranks.append(tokens[r] if r is not None else b"")
                tags.append(tokens[t] if t is not None else b"")
        else:
            if not _INT_RE.match(token) or not _INT64_MIN <= int(token) <= _INT64_MAX:
                raise _value_error(token, fmt, display, line_no(i), at_start and not qids, layout)
            value = int(token)
            if r is not None:
                ranks.append(tokens[r])
        qids.append(tokens[q])
        docs.append(tokens[d])
        values.append(value)
    if not qids:
        return None
    value_array = np.array(values, dtype=np.float64 if is_run else np.int64)
    if not is_run:
        value_array = value_array.astype(grade_dtype(value_array), copy=False)
    if not is_run and r is not None:
        return ids_from_list(qids), ids_from_list(docs), value_array, b"", b"", ids_from_list(ranks)
    if fields and is_run:
        return (
            ids_from_list(qids),
            ids_from_list(docs),
            value_array,
            first_tag,
            last_tag,
            *map(ids_from_list, (ranks, tags)),
        )
    return ids_from_list(qids), ids_from_list(docs), value_array, first_tag, last_tag


def _tokenizer(layout: Layout):
    """A function splitting a line (bytes, no newline) into its fields as ``layout`` separates them."""
    if layout.delimiter is None:
        return bytes.split
    if layout.delimiter == 9:

        def tabbed(line: bytes) -> list:
            line = line.rstrip(b"\r")
            if b"\t" not in line:
                return line.split()
            if not line.strip():
                return []
            return [t.strip() for t in line.split(b"\t")]

        return tabbed

    def comma_separated(line: bytes) -> list:
        line = line.rstrip(b"\r")
        if not line.strip():
            return []
        if b'"' not in line:
            return line.split(b",")
        import csv

        text = line.decode("utf-8", "surrogateescape")
        return [f.encode("utf-8", "surrogateescape") for f in next(csv.reader([text]))]

    return comma_separated


def ids_from_list(ids: list) -> np.ndarray:
    """Byte strings as one id array (the layout of :func:`~metrics.io.ids.ids_from_buffer`)."""
    lengths = np.fromiter((len(x) for x in ids), dtype=np.int64, count=len(ids))
    ends = np.cumsum(lengths)
    return ids_from_buffer(np.frombuffer(b"".join(ids), dtype=np.uint8), ends - lengths, ends)


#: how many times the rows read so far the columns may be sized for (the pages not written take no memory)
_GROWTH = 256


class _Filled:
    """Columns filled in place, a chunk's parsed pieces at a time, in arrays sized from the part of
    the file read so far.

    Why not keep the pieces and join them at the end: the pieces and the joined columns would both be
    held for a moment, and the pieces, freed in the middle of the allocator's heap among longer-lived
    arrays, leave holes the system does not take back.  Filling in place holds each piece only while
    it is copied; the arrays' pages beyond the rows written (the estimate's margin) are never
    touched, so they take no memory."""

    def __init__(self) -> None:
        self.n = 0
        self.columns: Optional[list] = None  # query ids, document ids, values (then any fields kept)
        self.first_tag = self.last_tag = b""

    def add(self, parsed, fraction: float) -> None:
        """Append a chunk's :func:`_parse` result (None: no data lines); ``fraction``: the part of the
        file read so far (0 < fraction <= 1), from which the rows still to come are estimated."""
        if parsed is None:
            return
        pieces, m = (*parsed[:3], *parsed[5:]), len(parsed[2])
        if self.columns is None:
            self.first_tag = parsed[3]
            self.columns = [p[:0] for p in pieces]
        self.last_tag = parsed[4]
        if self.n + m > len(self.columns[2]):
            # the rows of the whole file, as many per byte as so far, but at most _GROWTH times the rows
            # read: a gzip file whose first megabyte came from a few bytes does not reserve terabytes
            estimate = int((self.n + m) / max(fraction, 1e-9) * 1.02) + 1024
            self._resize(max(self.n + m, min(estimate, _GROWTH * (self.n + m))))
        lo, hi = self.n, self.n + m
        for k, piece in enumerate(pieces):
            column = self.columns[k]
            if not _holds(column, piece):
                column = self.columns[k] = _widened(column[:lo], piece, len(column))
            column[lo:hi] = piece  # (narrower ids are zero-padded, as fixed-width ids are)
        self.n = hi

    def _resize(self, capacity: int) -> None:
        assert self.columns is not None
        for k, column in enumerate(self.columns):
            grown = np.zeros(capacity, dtype=column.dtype)  # zeroed pages: taken as written
            grown[: self.n] = column[: self.n]
            self.columns[k] = grown

    def result(self) -> list:
        """The columns, exactly as long as the rows added."""
        assert self.columns is not None
        out = []
        for column in self.columns:
            column = column[: self.n]
            if column.base is not None and len(column.base) > self.n + self.n // 16 + 4096:
                column = column.copy()  # the estimate was far off: the margin is let go
            out.append(column)
        self.columns = None
        return out


def _holds(column: np.ndarray, piece: np.ndarray) -> bool:
    """Whether ``piece``'s values fit ``column``'s type as they are."""
    if column.dtype == piece.dtype or column.dtype == object:
        return True
    if column.dtype.kind == "S":
        return piece.dtype.kind == "S" and piece.dtype.itemsize <= column.dtype.itemsize
    return np.can_cast(piece.dtype, column.dtype, "safe")


def _widened(filled: np.ndarray, piece: np.ndarray, capacity: int) -> np.ndarray:
    """A column of ``capacity`` rows of a type that holds both ``filled``'s and ``piece``'s values,
    ``filled`` copied in front."""
    if piece.dtype == object or filled.dtype == object:  # an id longer than MAX_FIXED_WIDTH
        out = np.empty(capacity, dtype=object)
        out[: len(filled)] = filled.astype(object)
        return out
    out = np.zeros(capacity, dtype=np.result_type(filled.dtype, piece.dtype))  # the wider ids or grades
    out[: len(filled)] = filled
    return out


def _assemble(
    display: str,
    fmt: _Format,
    name: Optional[str],
    filled: _Filled,
    whole: bool = True,
    layout: Optional[Layout] = None,
) -> Columns:
    """The columns of the chunks read (``whole``: of the whole file, whose errors name their lines;
    else of a part of it, whose duplicates raise ``_Irregular``)."""
    if filled.columns is None:
        raise _empty_error(display, fmt)
    first_tag, last_tag = filled.first_tag, filled.last_tag
    qid, doc, value, *kept = filled.result()
    cols = Columns(fmt.kind, qid, doc, value, path=display, layout=layout or trec_layout(fmt.kind))
    if kept:
        cols.rank, cols.tag = kept if len(kept) == 2 else (kept[0], None)
    if layout is INTENTS_LAYOUT:
        _check_intents(cols, display)
    elif _has_duplicates(cols):
        if not whole:
            raise _Irregular
        if fmt.kind == "qrels" and (layout is None or layout.trec):
            _raise_if_intents(cols, display)
        raise _duplicate_error(cols, display)
    if fmt is _RUN:
        first, last = _text(first_tag), _text(last_tag)
        if not first:  # a layout without a tag column: the run is named after its file
            first = last = _stem(display)
        cols.name = name or first
        cols.run_id = last
        if last != first:
            cols.warnings.append(
                f"{display}: the run tag changes from {first!r} (first line) to "
                f"{last!r} (last line); the run is labelled {name or first!r} and "
                f"its runid is {last!r}, as trec_eval reports it"
            )
    elif fmt.kind == "ranked":
        cols.name = name or _stem(display)
    return cols


def _text(raw: bytes) -> str:
    """Bytes of a file as text: UTF-8, any other byte kept as it is (``surrogateescape``), so that the text
    written back gives the file's bytes."""
    return raw.decode("utf-8", "surrogateescape")


def ranked_run(cols: Columns, name: Optional[str] = None) -> Columns:
    """The run of ranked judgments (:func:`read_columns` with ``kind="ranked"``): the document on the
    i-th line of a query with n lines (i from 0) gets score ``n - i``, so that trec_eval's order (score
    descending) is the file's order, with no ties."""
    codes = query_codes(cols.qid)[1]
    run = Columns("run", cols.qid, cols.doc, ranked_scores(codes), path=cols.path)
    run.name = run.run_id = name or cols.name or (_stem(cols.path) if cols.path else "ranked")
    return run


def query_codes(qid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the distinct query ids, sorted by their bytes; a code per row into them).  A query's lines come
    together in files, so the ids are looked at once per stretch of equal ids, not once per row."""
    if not len(qid):
        return qid[:0], np.zeros(0, dtype=np.int64)
    heads = stretch_heads(qid)
    ids, inverse = np.unique(qid[heads], return_inverse=True)
    return ids, np.repeat(inverse.ravel(), np.diff(np.append(heads, len(qid))))


def ranked_scores(codes: np.ndarray) -> np.ndarray:
    """n - i for the i-th row (from 0) of a query with n rows (``codes``: a code per row for its query)."""
    if len(codes) == 0:
        return np.zeros(0, dtype=np.float64)
    order = np.argsort(codes, kind="stable")
    counts = np.bincount(codes)
    starts = np.cumsum(counts) - counts
    position = np.empty(len(codes), dtype=np.int64)
    position[order] = np.arange(len(codes)) - starts[codes[order]]
    return (counts[codes] - position).astype(np.float64)


def _parse(chunk: bytes, kind: str, fields: bool = False, layout: Optional[Layout] = None):
    """(query ids, document ids, values, first tag, last tag) of a chunk, None for a chunk of blank
    and comment lines only; with ``fields``, a run's ranks and tags (as ids) follow.  ``layout``: where
    the fields are (None: TREC's columns)."""
    is_run = kind == "run"
    if layout is None:
        layout = trec_layout(kind)
    if layout.delimiter == 44:
        split = _split_delimited(chunk, 44, layout.ncols)
    else:
        split = _split(chunk, layout.ncols, more=layout.extra_ok)
    if split is None:
        return None
    buf, bounds = split
    qid = ids_from_buffer(buf, *_field(bounds, layout.qid))
    doc = ids_from_buffer(buf, *_field(bounds, layout.doc))
    value = _numbers(buf, *_field(bounds, layout.value), integer=not is_run)
    if not is_run:
        value = value.astype(grade_dtype(value), copy=False)  # the chunks' types widen to the widest
    first_tag = last_tag = b""
    if not is_run and layout.rank is not None:  # intent qrels: the intents
        return qid, doc, value, first_tag, last_tag, ids_from_buffer(buf, *_field(bounds, layout.rank))
    if is_run:
        if layout.tag is not None:
            tag_starts, tag_ends = _field(bounds, layout.tag)
            first_tag = bytes(buf[tag_starts[0] : tag_ends[0]])
            last_tag = bytes(buf[tag_starts[-1] : tag_ends[-1]])
        if fields:
            none = np.zeros(len(bounds), dtype="S1")
            rank = ids_from_buffer(buf, *_field(bounds, layout.rank)) if layout.rank is not None else none
            tag = ids_from_buffer(buf, tag_starts, tag_ends) if layout.tag is not None else none
            return qid, doc, value, first_tag, last_tag, rank, tag
    return qid, doc, value, first_tag, last_tag


def _split_delimited(chunk: bytes, delimiter: int, ncols: int):
    """What :func:`_split` returns, for lines of ``ncols`` fields separated by single ``delimiter``
    bytes (a comma), CRLF or LF ends, blank lines skipped; raises _Irregular for anything else (quoted
    fields, comments), read line by line."""
    if b'"' in chunk:
        raise _Irregular
    if b"\r" in chunk:
        chunk = chunk.replace(b"\r\n", b"\n")
    if chunk[:1] == b"\n" or b"\n\n" in chunk:
        chunk = _without_empty_lines(chunk)
        if not chunk:
            return None
    fields = _boundaries(chunk, delimiter, ncols)
    if fields is None:
        raise _Irregular
    return fields


# every whitespace byte but the newline, as a space
_BLANKS_TO_SPACE = bytes.maketrans(b"\t\x0b\x0c\r", b"    ")


def normalise(chunk: bytes) -> bytes:
    """Single spaces between fields; no leading/trailing blanks, no comments.

    Blank and comment lines become empty lines.  ``chunk`` ends with a newline.
    """
    a = np.frombuffer(chunk.translate(_BLANKS_TO_SPACE), dtype=np.uint8)
    space = a == 32
    # drop a space that follows a space or a newline, or starts the chunk
    keep = np.empty_like(space)
    np.logical_or(a[:-1] == 10, space[:-1], out=keep[1:])
    np.logical_and(keep[1:], space[1:], out=keep[1:])
    np.logical_not(keep, out=keep)
    keep[0] = not space[0]
    b = a[keep]
    # what is left of a run of blanks before a newline is one space
    trailing = b[:-1] == 32
    trailing &= b[1:] == 10
    if trailing.any():
        keep = np.ones(len(b), dtype=bool)
        np.logical_not(trailing, out=keep[:-1])
        b = b[keep]
    if b"#" in chunk:
        ends = np.flatnonzero(b == 10)
        starts = np.empty_like(ends)
        starts[0] = 0
        starts[1:] = ends[:-1] + 1
        comment = b[starts] == 35
        if comment.any():
            mark = np.zeros(len(b) + 1, dtype=np.int8)
            mark[starts[comment]] = 1
            mark[ends[comment]] = -1  # keep the newline
            b = b[np.cumsum(mark[:-1], dtype=np.int8) == 0]
    return b.tobytes()


def _split(chunk: bytes, ncols: int, more: bool = False):
    """(bytes as uint8, field boundaries ``(lines, k)``: the separator or newline ending each field),
    or None for a chunk of blank and comment lines only; raises _Irregular for lines of another shape.
    Lines have ``ncols`` fields, or with ``more`` (a run's columns after the tag) the same number
    ``k >= ncols`` each."""
    delimiter = _delimiter(chunk)
    if delimiter is not None and not (b"#" in chunk and _has_comment(chunk)):
        fields = _boundaries(chunk, delimiter, ncols, more)
        if fields is not None:
            return fields
    # runs of blanks, blank lines, CRLF or comments: single spaces, the blank and comment lines dropped
    chunk = _without_empty_lines(normalise(chunk))
    if not chunk:
        return None
    fields = _boundaries(chunk, 32, ncols, more)
    if fields is None:
        raise _Irregular
    return fields


def _boundaries(chunk: bytes, delimiter: int, ncols: int, more: bool = False):
    """What :func:`_split` returns, for lines of ``ncols`` (with ``more``: of as many as the first
    line has, at least ``ncols``) non-empty fields separated by single ``delimiter`` bytes; None for
    any other chunk."""
    if more:
        first = chunk.find(b"\n")
        ncols = max(ncols, chunk.count(bytes([delimiter]), 0, first) + 1)
    buf = np.frombuffer(chunk, dtype=np.uint8)
    # every field boundary (separator or newline) in one pass; with ncols per line, row i of the
    # (lines, ncols) matrix is line i exactly when its last boundary is a newline
    is_boundary = buf == delimiter
    is_boundary |= buf == 10
    # no empty field (nor empty line): no two boundaries side by side, none at the start
    if is_boundary[0] or (is_boundary[1:] & is_boundary[:-1]).any():
        return None
    flat = np.flatnonzero(is_boundary)
    del is_boundary
    if len(flat) % ncols:
        return None
    bounds = flat.reshape(-1, ncols)
    if not (buf[bounds[:, -1]] == 10).all():
        return None
    return buf, bounds


def _field(bounds: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(starts, ends) of field ``k`` of every line."""
    if k:
        return bounds[:, k - 1] + 1, bounds[:, k]
    starts = np.empty(len(bounds), dtype=bounds.dtype)
    starts[0] = 0
    starts[1:] = bounds[:-1, -1] + 1
    return starts, bounds[:, 0]


def _without_empty_lines(chunk: bytes) -> bytes:
    b = np.frombuffer(chunk, dtype=np.uint8)
    newline = b == 10
    drop = newline.copy()
    drop[1:] &= newline[:-1]  # a newline right after a newline (or at the start) ends an empty line
    return b[~drop].tobytes() if drop.any() else chunk


def _delimiter(chunk: bytes) -> Optional[int]:
    """The one separator byte of a chunk split as it is, or None when it needs normalising."""
    if b"\r" in chunk or b"\x0b" in chunk or b"\x0c" in chunk:
        return None
    if b"\t" not in chunk:
        return 32
    if b" " not in chunk:
        return 9
    return None


def _has_comment(chunk: bytes) -> bool:
    return chunk.startswith(b"#") or b"\n#" in chunk


# ---------------------------------------------------------------------------------------------- ids


def _has_duplicates(cols: Columns) -> bool:
    """Whether some (query, document) pair occurs twice (candidates by hash, confirmed on the ids)."""
    return _duplicate_candidates(cols) is not None and _first_duplicate(cols) is not None


def _duplicate_candidates(cols: Columns) -> Optional[np.ndarray]:
    """The rows whose pair key (or its high half) another row shares, or None when there are none.

    The keys of qrels are sorted by an argsort whose order is kept (``cols.key_order``): the encoding
    of the qrels needs it, and sorts them no more.  Those of a run are sorted by their high 32 bits
    only (twice as fast): the few rows whose high bits another row shares are the candidates."""
    keys = cols.pair_keys()
    if cols.kind != "run":
        cols.key_order = np.argsort(keys)
        ordered = cols.sorted_keys = keys[cols.key_order]
        same = ordered[1:] == ordered[:-1]
        if not same.any():
            cols.keys = None  # the sorted ones serve
            return None
        return np.flatnonzero(among(keys, ordered[1:][same]))
    high = _high_halves(keys)
    ordered = np.sort(high)
    same = ordered[1:] == ordered[:-1]
    if not same.any():
        return None
    return np.flatnonzero(among(high, ordered[1:][same]))


def _first_duplicate(cols: Columns, candidates: Optional[np.ndarray] = None) -> Optional[tuple[int, int]]:
    """(the first row that repeats an earlier row's pair, the first row with that pair), or None."""
    if candidates is None:
        candidates = _duplicate_candidates(cols)
        if candidates is None:
            return None
    keys = cols.pair_keys()
    # by key, then by the ids, then by row: equal pairs side by side, first occurrence first
    order = candidates[np.lexsort((candidates, cols.doc[candidates], cols.qid[candidates], keys[candidates]))]
    a, b = order[:-1], order[1:]
    same = np.flatnonzero((cols.qid[a] == cols.qid[b]) & (cols.doc[a] == cols.doc[b]))
    if not len(same):
        return None
    repeat = int(same[np.argmin(b[same])])  # the repeat that comes first in the file
    equal_next = np.zeros(len(a), dtype=bool)
    equal_next[same] = True
    start = repeat  # back to the first of its equal pairs: the pair's first row (rows ascend within)
    while start > 0 and equal_next[start - 1]:
        start -= 1
    return int(b[repeat]), int(a[start])


def _duplicate_error(cols: Columns, display: Optional[str], what: Optional[str] = None) -> InputError:
    """The error for the first repeated (query, document) pair: a file's names both lines, a frame's
    (``what``: "run" or "qrels") both positions."""
    found = _first_duplicate(cols)
    assert found is not None
    row, first = found
    doc, query = _show(cols.doc[row]), _show(cols.qid[row])
    if what is not None:
        return InputError(
            f"{what} DataFrame has document {doc} twice for query {query} (at positions {first} and {row})",
            expected="each document at most once per query",
        )
    assert display is not None
    shift = 1 if cols.layout is not None and cols.layout.header else 0  # the header is no data row
    lines = data_lines(display, [first + shift, row + shift])
    return InputError(
        f"found document {doc} a second time for query {query} (first on line {lines[0]})",
        path=display,
        line=lines[1],
        expected="each document at most once per query",
    )


def _with_intents(cols: Columns) -> Columns:
    """Columns whose query ids are the (query, intent) pairs of intent qrels, for their duplicate check."""
    assert cols.rank is not None
    joined: np.ndarray
    if cols.qid.dtype.kind == "S" and cols.rank is not None and cols.rank.dtype.kind == "S":
        joined = np.char.add(np.char.add(cols.qid, b"\x1f"), cols.rank)
    else:
        joined = np.array([bytes(q) + b"\x1f" + bytes(i) for q, i in zip(cols.qid, cols.rank)], dtype=object)
    return Columns("qrels", joined, cols.doc, cols.value)


def _check_intents(cols: Columns, display: str) -> None:
    """Refuse intent qrels judging a document twice for one intent of a query, naming both lines."""
    keyed = _with_intents(cols)
    found = _first_duplicate(keyed)
    if found is None:
        return
    row, first = found
    lines = data_lines(display, [first, row])
    assert cols.rank is not None
    raise InputError(
        f"found document {_show(cols.doc[row])} judged twice for intent {_show(cols.rank[row])} of query "
        f"{_show(cols.qid[row])} (first on line {lines[0]})",
        path=display,
        line=lines[1],
        expected="each document at most once per intent of a query",
    )


def _raise_if_intents(cols: Columns, display: str) -> None:
    """Raise :class:`~metrics.errors.IntentQrelsError` when the qrels file ``cols`` came from, whose
    (query, document) pairs repeat, is intent qrels: the repeats differ in their second column and no
    (query, second column, document) repeats."""
    from metrics.errors import IntentQrelsError

    try:
        intents = read_columns(display, "qrels", layout=INTENTS_LAYOUT)
    except InputError:
        return
    row, first = _first_duplicate(cols) or (0, 0)
    if len(intents) != len(cols) or intents.rank is None or intents.rank[row] == intents.rank[first]:
        return
    n = len(np.unique(intents.rank))
    lines = data_lines(display, [first, row])
    raise IntentQrelsError(
        f"found document {_show(cols.doc[row])} a second time for query {_show(cols.qid[row])} (first on line "
        f"{lines[0]}) with another intent in column 2 ({n} intents in all): these are intent (diversity) "
        "qrels, 'qid intent docid grade' as the TREC Web track ships them for ndeval; the diversity measures "
        "read them (alpha-nDCG@20, ERR-IA@20, NRBP, P-IA@20, StRecall@20: metrics.read_intent_qrels and "
        "metrics.evaluate_diversity, ir-eval --irm QRELS RUN alpha_nDCG@20), the other measures the ad hoc qrels",
        path=display,
        line=lines[1],
        expected="ad hoc qrels, each document at most once per query",
    )


def data_lines(display: str, rows: list[int]) -> list[int]:
    """The file's line number of each data row in ``rows`` (0-based, in file order of data lines),
    counted by reading the file again: for errors, not on the way of a file that reads."""
    wanted = sorted(set(rows))
    found: dict[int, int] = {}
    before = 0  # data rows in the chunks before
    offset = 0
    with contextlib.closing(chunks(display, count_lines=False)) as source:  # type: ignore[type-var]
        for chunk, _, _, _ in source:
            # one byte per line in the normal form: empty for blank and comment lines
            lines = normalise(chunk).split(b"\n")[:-1]
            data = [i for i, line in enumerate(lines) if line]
            while wanted and wanted[0] < before + len(data):
                row = wanted.pop(0)
                found[row] = _line_at(display, offset) + data[row - before]
            if not wanted:
                break
            before += len(data)
            offset += len(chunk)
    return [found[r] for r in rows]


def _high_halves(keys: np.ndarray) -> np.ndarray:
    """The high 32 bits of each (native uint64) key, as a strided view: shifted and cast, a 250k-line
    run's keys would take three times their size for a moment, at the reader's peak of memory."""
    halves = np.ascontiguousarray(keys, dtype=np.uint64).view(np.uint32)
    return halves[1::2] if sys.byteorder == "little" else halves[0::2]


# ------------------------------------------------------------------------------------------ numbers


def grade_dtype(grades: np.ndarray) -> np.dtype:
    """Smallest signed integer type holding every grade (int8 for the usual 0..3)."""
    if not len(grades):
        return np.dtype(np.int8)
    low, top = int(grades.min()), int(grades.max())
    for t in (np.int8, np.int16, np.int32):
        if np.iinfo(t).min <= low and top <= np.iinfo(t).max:
            return np.dtype(t)
    return np.dtype(np.int64)


_POW10 = 10.0 ** np.arange(23)  # exact doubles


def _numbers(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, integer: bool) -> np.ndarray:
    """The numbers in the fields: int64 grades or float64 scores, exactly as C reads them.

    Vectorised for plain decimals (``-12``, ``3.25``, ``.5``, ``+1``); scores in other spellings
    (``1e-4``, ``inf``) are read one by one.  Raises _Irregular for anything else, so that the
    DataFrame reader reports the line.
    """
    lengths = ends - starts
    width = int(lengths.max())
    if width > 24:
        raise _Irregular
    c = _windows(buf, starts, width)
    n = len(starts)
    neg = c[:, 0] == 45
    signed = neg | (c[:, 0] == 43)
    dtype = np.int64 if integer else np.float64
    mantissa = np.zeros(n, dtype=dtype)
    digits = np.zeros(n, dtype=np.int16)
    dots = np.zeros(n, dtype=np.int16)
    fraction_digits = np.zeros(n, dtype=np.int16)
    other = np.zeros(n, dtype=bool)
    # column by column over the field's bytes, each step one pass over n values: the digits build
    # the mantissa (Horner), a dot starts the fraction, anything else sends the row elsewhere
    for j in range(width):
        inside = lengths > j
        d = c[:, j] - np.uint8(48)  # digits are 0..9, every other byte wraps to 10 or more
        digit = (d < 10) & inside
        if j == 0:
            inside &= ~signed
        dot = (c[:, j] == 46) & inside
        other |= inside & ~digit & ~dot
        if integer:
            other |= dot
        else:
            dots += dot
            fraction_digits += digit & (dots > 0)
        digits += digit
        mantissa = np.where(digit, mantissa * 10 + d.astype(dtype), mantissa)
    if integer:
        if (other | (digits < 1) | (digits > 18)).any():
            raise _Irregular  # '1.5', 'x', out of range: the DataFrame reader names the line
        return np.where(neg, -mantissa, mantissa)  # exact: below 10**18
    ok = ~other & (dots <= 1) & (digits >= 1) & (digits <= 15)  # mantissa exact: below 2**53
    values = mantissa / _POW10[np.where(ok, fraction_digits, 0)]
    values = np.where(neg, -values, values)
    others = np.flatnonzero(~ok)
    if len(others):
        from metrics.io.formats import _strtod  # the one definition of what a score may look like

        for i in others.tolist():
            value = _strtod(bytes(buf[starts[i] : ends[i]]))
            if value is None or value != value:  # not a number, or NaN: the DataFrame reader says where
                raise _Irregular
            values[i] = value
    return values


# ------------------------------------------------------------------------------------- from frames


#: id(string array of a frame's column) -> (weak reference to the array, its ids as bytes)
_ENCODED: dict = {}


def _ids_of(series) -> np.ndarray:
    """:func:`ids_from_series`, remembered while the column's array lives.

    The window evaluates the same loaded runs again whenever a measure or an option changes, and
    warms this up in the thread that reads each file (:func:`remember_columns`); converting the
    ids of 100 DL19-sized runs takes a quarter of a second.  A frame's string columns are arrow
    arrays that pandas never changes in place (an assignment makes a new array), so the identity of
    the array is the identity of its content; the entry goes when the array does."""
    arr = series.array
    hit = _ENCODED.get(id(arr))
    if hit is not None and hit[0]() is arr:
        return hit[1]
    return remember_ids(series, ids_from_series(series))


def remember_ids(series, ids: np.ndarray) -> np.ndarray:
    """Remember ``ids`` as the bytes of the frame column ``series`` while its array lives, and return
    them (read-only from now on).  The readers remember the bytes they read, so that a frame made from
    a file is scored from the file's own bytes: ids that are not UTF-8 are shown in the frame with
    replacement characters, and scored as they are."""
    arr = series.array
    ids.flags.writeable = False  # shared by every Columns made from this frame
    key = id(arr)

    def forget(_ref, key: int = key) -> None:
        _ENCODED.pop(key, None)

    try:
        ref = weakref.ref(arr, forget)
    except TypeError:  # an array type without weak references: not remembered
        return ids
    _ENCODED[key] = (ref, ids)
    return ids


def remember_columns(frame, kind: str) -> None:
    """Encode the ids of a qrels or run frame now (in a reader's thread) for :func:`columns_from_frame`."""
    columns_from_frame(frame, kind)


def columns_from_frame(frame, kind: str) -> Columns:
    """:class:`Columns` of a qrels or run DataFrame as :mod:`metrics.io.readers` returns them."""
    if kind == "qrels":
        value = frame["relevance"].to_numpy(dtype=np.int64)
        value = value.astype(grade_dtype(value), copy=False)
    else:
        value = frame["score"].to_numpy(dtype=np.float64)
    cols = Columns(kind, _ids_of(frame["query_id"]), _ids_of(frame["doc_id"]), value, path=frame.attrs.get("path"))
    if kind == "run":
        cols.name = str(frame.attrs.get("name", ""))
        cols.run_id = str(frame.attrs.get("run_id", cols.name))
    return cols
