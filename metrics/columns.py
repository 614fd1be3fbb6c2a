"""Qrels and runs as numpy columns, read without pandas or pyarrow: the scoring path of ``ir-eval``.

:func:`read_columns` gives a :class:`Columns`: per row the query id and the document id as numpy
byte strings (``S`` dtype; an ``object`` array of ``bytes`` when some id is longer than
:data:`MAX_FIXED_WIDTH` bytes), and the score (float64) or grade (the smallest signed integer type
that holds the file's grades); for a run also the tags of its first and last lines.  Everything the
measures need, at a fraction of the memory and start-up time of DataFrames: importing this module
costs numpy only.

Lines of the usual shape (fields separated by one space or one tab, LF line ends, no comment or
blank lines, the format's column count, plain decimal numbers) are split by a few vectorised passes
over each chunk of the file; a chunk with runs of blanks, CRLF line ends or comment lines is first
normalised (:func:`normalise`) and split the same way.  Any other file (extra run columns,
duplicate documents, a bad line, a ranked-judgments file) is read by the DataFrame reader
(:mod:`metrics.readers`), whose rules and error messages are the format's one definition; the two
readers give the same columns for every file both accept (tested on every layout).  On a
7-million-line run this reader took less time and memory than pyarrow's multithreaded parser
followed by the conversion of its strings (3.3 s and 579 MiB against 3.5 s and 619 MiB).

Numbers are exact: a decimal score of at most 15 significant digits is its digits, an integer below
2**53, divided by a power of ten no larger than 1e15, both exact doubles, so the IEEE quotient is
the correctly rounded value C's ``strtod`` gives (Clinger's fast path); scores in other spellings
(``1e-4``, ``inf``, hexadecimal) are read one by one by the format's ``strtod`` rule
(:func:`metrics.readers.formats._strtod`, Python's correctly rounded ``float``).
"""

from __future__ import annotations

import contextlib
import os
import sys
import weakref
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from .ids import (
    _windows,
    among,
    ids_from_buffer,
    ids_from_series,
    pair_keys,
)
from .textfile import chunks

__all__ = ["Columns", "read_columns", "columns_from_frame"]

# bytes split at a time: the vectorised split holds a few index arrays per line of a chunk, so small
# chunks keep its memory at a few MB whatever the file's size
_CHUNK_BYTES = 1 << 20


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
    #: check of a qrels file for :func:`metrics.qrels_index.encode_qrels`, which then sorts nothing;
    #: ``keys`` is then None, made again if asked for), or None
    key_order: Optional[np.ndarray] = field(default=None, repr=False)
    sorted_keys: Optional[np.ndarray] = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.value)

    def pair_keys(self) -> np.ndarray:
        """The rows' (query, document) hashes: equal pairs, equal keys (a match is only a candidate)."""
        if self.keys is None:
            self.keys = pair_keys(self.qid, self.doc)
        return self.keys


class _Irregular(Exception):
    """A chunk the vectorised split does not take: the DataFrame reader reads the file."""


# ------------------------------------------------------------------------------------------ reading


def read_columns(path, kind: str, name: Optional[str] = None) -> Columns:
    """Read a qrels (``kind="qrels"``) or run (``kind="run"``) file into :class:`Columns`.

    Same rules and errors as :func:`metrics.read_qrels` and :func:`metrics.read_run`
    (:class:`~metrics.errors.InputError` naming the file, the line and what was expected).
    """
    if kind not in ("qrels", "run"):
        raise ValueError(f"kind must be 'qrels' or 'run', not {kind!r}")
    display = os.fspath(path)
    try:
        cols = _read_regular(display, kind, name)
    except _Irregular:
        cols = None
    if cols is None:
        from .readers import read_file

        loaded = read_file(display, kind)
        frame = loaded.qrels if kind == "qrels" else loaded.run
        cols = columns_from_frame(frame, kind)
        cols.path = display
        cols.warnings = list(loaded.warnings)
        if name:
            cols.name = name
    return cols


def _read_regular(display: str, kind: str, name: Optional[str]) -> Optional[Columns]:
    """The columns of a file whose every chunk splits regularly; raises _Irregular otherwise."""
    # (parsing two chunks at once in two threads gained 5% on a 1M-line run for 30% more memory)
    filled = _Filled()
    with contextlib.closing(chunks(display, _CHUNK_BYTES, count_lines=False)) as source:  # type: ignore[type-var]  # a generator closes
        for chunk, _, _, fraction in source:
            filled.add(_parse(chunk, kind), fraction)
    return _assemble(display, kind, name, filled)


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
        self.columns: Optional[list] = None  # query ids, document ids, values
        self.first_tag = self.last_tag = b""

    def add(self, parsed, fraction: float) -> None:
        """Append a chunk's :func:`_parse` result (None: no data lines); ``fraction``: the part of the
        file read so far (0 < fraction <= 1), from which the rows still to come are estimated."""
        if parsed is None:
            return
        pieces, m = parsed[:3], len(parsed[2])
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
        """The three columns, exactly as long as the rows added."""
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


def _assemble(display: str, kind: str, name: Optional[str], filled: _Filled) -> Columns:
    if filled.columns is None:
        raise _Irregular  # no data lines: the DataFrame reader says so in its words
    first_tag, last_tag = filled.first_tag, filled.last_tag
    qid, doc, value = filled.result()
    cols = Columns(kind, qid, doc, value, path=display)
    if _has_duplicates(cols):
        raise _Irregular  # the DataFrame reader names both lines
    if kind == "run":
        first, last = first_tag.decode(), last_tag.decode()
        cols.name = name or first
        cols.run_id = last
        if last != first:
            cols.warnings.append(
                f"{display}: the run tag changes from {first!r} (first line) to "
                f"{last!r} (last line); the run is labelled {name or first!r} and "
                f"its runid is {last!r}, as trec_eval reports it"
            )
    return cols


def _parse(chunk: bytes, kind: str):
    """(query ids, document ids, values, first tag, last tag) of a chunk, None for a chunk of blank
    and comment lines only."""
    fields = _split(chunk, 6 if kind == "run" else 4)
    if fields is None:
        return None
    buf, bounds = fields
    qid = ids_from_buffer(buf, *_field(bounds, 0))
    doc = ids_from_buffer(buf, *_field(bounds, 2))
    value = _numbers(buf, *_field(bounds, 4 if kind == "run" else 3), integer=kind == "qrels")
    if kind == "qrels":
        value = value.astype(grade_dtype(value), copy=False)  # the chunks' types widen to the widest
    first_tag = last_tag = b""
    if kind == "run":
        tag_starts, tag_ends = _field(bounds, 5)
        first_tag = bytes(buf[tag_starts[0] : tag_ends[0]])
        last_tag = bytes(buf[tag_starts[-1] : tag_ends[-1]])
    return qid, doc, value, first_tag, last_tag


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


def _split(chunk: bytes, ncols: int):
    """(bytes as uint8, field boundaries ``(lines, ncols)``: the separator or newline ending each
    field), or None for a chunk of blank and comment lines only; raises _Irregular for lines of
    another shape."""
    delimiter = _delimiter(chunk)
    if delimiter is not None and not (b"#" in chunk and _has_comment(chunk)):
        fields = _boundaries(chunk, delimiter, ncols)
        if fields is not None:
            return fields
        # an empty line fails the split as an empty field does: only those are normalised
        if not (chunk.startswith(b"\n") or b"\n\n" in chunk):
            raise _Irregular
    chunk = _without_empty_lines(normalise(chunk))
    if not chunk:
        return None
    fields = _boundaries(chunk, 32, ncols)
    if fields is None:
        raise _Irregular
    return fields


def _boundaries(chunk: bytes, delimiter: int, ncols: int):
    """What :func:`_split` returns, for lines of ``ncols`` non-empty fields separated by single
    ``delimiter`` bytes; None for any other chunk."""
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
    """Whether some (query, document) pair occurs twice (candidates by hash, confirmed on the ids).

    The keys of a qrels file are sorted by an argsort whose order is kept (``cols.key_order``): the
    encoding of the qrels needs it, and sorts them no more.  Those of a run are sorted by their high
    32 bits only (twice as fast): the few rows whose high bits another row shares are the candidates."""
    keys = cols.pair_keys()
    if cols.kind == "qrels":
        cols.key_order = np.argsort(keys)
        ordered = cols.sorted_keys = keys[cols.key_order]
        same = ordered[1:] == ordered[:-1]
        if not same.any():
            cols.keys = None  # the sorted ones serve
            return False
        candidates = np.flatnonzero(among(keys, ordered[1:][same]))
        del ordered, same
    else:
        high = _high_halves(keys)
        ordered = np.sort(high)
        same = ordered[1:] == ordered[:-1]
        if not same.any():
            return False
        candidates = np.flatnonzero(among(high, ordered[1:][same]))
        del high, ordered, same
    # sorted by key and then by the ids: equal pairs side by side, however many rows share a key
    order = candidates[np.lexsort((cols.doc[candidates], cols.qid[candidates], keys[candidates]))]
    a, b = order[:-1], order[1:]
    return bool(((cols.qid[a] == cols.qid[b]) & (cols.doc[a] == cols.doc[b])).any())


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
        from .readers.formats import _strtod  # the one definition of what a score may look like

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
    ids = ids_from_series(series)
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
    """:class:`Columns` of a qrels or run DataFrame as :mod:`metrics.readers` returns them."""
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
