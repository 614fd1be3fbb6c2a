"""Chunks of TREC text split into columns by vectorised passes, or line by line where they do not take
(:func:`parse_chunk`), and the chunks' columns put together (:func:`assemble`); the numbers exact
(Clinger's fast path, else the format's ``strtod`` rule).  Used by the one reader,
:func:`metrics.io.columns.read_columns`, whose docstring tells the method."""

from __future__ import annotations

import math
from typing import Optional

import numpy as np

from metrics.errors import InputError
from metrics.io.checks import _check_grades, _check_intents, _duplicate_error, _has_duplicates
from metrics.io.formats import (
    _INT64_MAX,
    _INT64_MIN,
    _INT_RE,
    INTENTS_LAYOUT,
    RUN,
    Layout,
    _column_error,
    _empty_error,
    _Format,
    _stem,
    _strtod,
    _value_error,
    trec_layout,
)
from metrics.io.ids import (
    ids_from_buffer,
)
from metrics.io.lines import _has_comment, _without_empty_lines, normalise
from metrics.io.numbers import Irregular, _numbers
from metrics.io.table import Columns, grade_dtype, ids_from_list
from metrics.io.textfile import _line_at


def parse_chunk(
    chunk: bytes,
    fmt: _Format,
    display: str,
    offset: Optional[int],
    at_start: bool,
    fields: bool = False,
    layout: Optional[Layout] = None,
):
    """The :func:`parse` result of a chunk of whole lines (None: no data lines), read line by line
    where the vectorised split does not take it.  ``offset``: the bytes of the file's text before the
    chunk, from which an error's line is counted (None: errors are raised as ``Irregular``, for a
    caller that reads the file again to report them).  ``fields``: a run's rank and tag columns too.
    ``layout``: where the fields are (None: TREC's columns)."""
    try:
        return parse(chunk, fmt.kind, fields, layout)
    except Irregular:
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
    """What :func:`parse` gives, line by line: for lines the vectorised split does not take (a varying
    number of run columns, ``+1`` grades, quoted CSV fields), or to raise at the first bad line."""
    qids: list[bytes] = []
    docs: list[bytes] = []
    values: list = []
    ranks: list[bytes] = []
    tags: list[bytes] = []
    first_tag = last_tag = b""
    is_run = fmt is RUN
    if layout is None:
        layout = trec_layout(fmt.kind)
    need = layout.ncols
    tokens_of = tokenizer(layout)
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


def tokenizer(layout: Layout):
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


#: how many times the rows read so far the columns may be sized for (the pages not written take no memory)
_GROWTH = 256


class Filled:
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
        """Append a chunk's :func:`parse` result (None: no data lines); ``fraction``: the part of the
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


def assemble(
    display: str,
    fmt: _Format,
    name: Optional[str],
    filled: Filled,
    whole: bool = True,
    layout: Optional[Layout] = None,
    intents_check=None,
) -> Columns:
    """The columns of the chunks read (``whole``: of the whole file, whose errors name their lines;
    else of a part of it, whose duplicates raise ``Irregular``).  ``intents_check(cols, display)``, given
    by the reader, is called on TREC qrels whose pairs repeat, before the duplicate is reported: it
    raises when the file is intent qrels (which it reads again)."""
    if filled.columns is None:
        raise _empty_error(display, fmt)
    first_tag, last_tag = filled.first_tag, filled.last_tag
    qid, doc, value, *kept = filled.result()
    cols = Columns(fmt.kind, qid, doc, value, path=display, layout=layout or trec_layout(fmt.kind))
    if kept:
        cols.rank, cols.tag = kept if len(kept) == 2 else (kept[0], None)
    if fmt is not RUN:
        _check_grades(cols, display)
    if layout is INTENTS_LAYOUT:
        _check_intents(cols, display)
    elif _has_duplicates(cols):
        if not whole:
            raise Irregular
        if fmt.kind == "qrels" and (layout is None or layout.trec) and intents_check is not None:
            intents_check(cols, display)
        raise _duplicate_error(cols, display)
    if fmt is RUN:
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


def parse(chunk: bytes, kind: str, fields: bool = False, layout: Optional[Layout] = None):
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
    bytes (a comma), CRLF or LF ends, blank lines skipped; raises Irregular for anything else (quoted
    fields, comments), read line by line."""
    if b'"' in chunk:
        raise Irregular
    if b"\r" in chunk:
        chunk = chunk.replace(b"\r\n", b"\n")
    if chunk[:1] == b"\n" or b"\n\n" in chunk:
        chunk = _without_empty_lines(chunk)
        if not chunk:
            return None
    fields = _boundaries(chunk, delimiter, ncols)
    if fields is None:
        raise Irregular
    return fields


def _split(chunk: bytes, ncols: int, more: bool = False):
    """(bytes as uint8, field boundaries ``(lines, k)``: the separator or newline ending each field),
    or None for a chunk of blank and comment lines only; raises Irregular for lines of another shape.
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
        raise Irregular
    return fields


def _boundaries(chunk: bytes, delimiter: int, ncols: int, more: bool = False):
    """What :func:`_split` returns, for lines of ``ncols`` non-empty fields separated by single
    ``delimiter`` bytes; None for any other chunk.  With ``more`` (a run: trec_eval reads a line's
    first 6 fields and ignores the rest) a line may have more fields, each line counted on its own:
    the rows then hold a line's first ``ncols`` boundaries and its newline."""
    buf = np.frombuffer(chunk, dtype=np.uint8)
    # every field boundary (separator or newline) in one pass; with ncols per line, row i of the
    # (lines, ncols) matrix is line i exactly when its last boundary is a newline and the chunk
    # holds no other newline
    is_boundary = buf == delimiter
    newline = buf == 10
    lines = np.count_nonzero(newline)  # (a numpy count: bytes.count takes ten times as long)
    is_boundary |= newline
    del newline
    # no empty field (nor empty line): no two boundaries side by side, none at the start
    if is_boundary[0] or (is_boundary[1:] & is_boundary[:-1]).any():
        return None
    flat = np.flatnonzero(is_boundary)
    del is_boundary
    if len(flat) == lines * ncols:
        bounds = flat.reshape(-1, ncols)
        if (buf[bounds[:, -1]] == 10).all():
            return buf, bounds
    if not more:
        return None
    k = len(flat) // lines if lines else 0
    if k > ncols and len(flat) == lines * k:  # every line with the same number of fields (a 7th on each)
        bounds = flat.reshape(-1, k)
        if (buf[bounds[:, -1]] == 10).all():
            return buf, np.concatenate([bounds[:, :ncols], bounds[:, -1:]], axis=1)
    return buf, _first_boundaries(buf, flat, ncols)


def _first_boundaries(buf: np.ndarray, flat: np.ndarray, ncols: int) -> np.ndarray:
    """(lines, ncols + 1): each line's first ``ncols`` boundaries (of ``flat``, all of the chunk's)
    and its newline, for lines of ``ncols`` fields or more; raises Irregular for a shorter line."""
    newline = np.flatnonzero(buf[flat] == 10)  # where in ``flat`` each line ends
    counts = np.diff(newline, prepend=-1)  # fields per line
    if (counts < ncols).any():
        raise Irregular
    first = newline - counts + 1
    bounds = np.empty((len(newline), ncols + 1), dtype=flat.dtype)
    bounds[:, :ncols] = flat[first[:, None] + np.arange(ncols)]
    bounds[:, ncols] = flat[newline]
    return bounds


def _field(bounds: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(starts, ends) of field ``k`` of every line."""
    if k:
        return bounds[:, k - 1] + 1, bounds[:, k]
    starts = np.empty(len(bounds), dtype=bounds.dtype)
    starts[0] = 0
    starts[1:] = bounds[:-1, -1] + 1
    return starts, bounds[:, 0]


def _delimiter(chunk: bytes) -> Optional[int]:
    """The one separator byte of a chunk split as it is, or None when it needs normalising."""
    if b"\r" in chunk or b"\x0b" in chunk or b"\x0c" in chunk:
        return None
    if b"\t" not in chunk:
        return 32
    if b" " not in chunk:
        return 9
    return None
