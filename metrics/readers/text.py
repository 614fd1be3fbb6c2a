"""Reading TREC text into DataFrames: chunks of lines split by pyarrow's CSV reader, a line-by-line
pass for what it does not take (and for the first bad line), duplicates, and the assembled frames."""

from __future__ import annotations

import contextlib
import math
import os
from dataclasses import dataclass
from typing import Optional

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ..errors import Cancelled, InputError
from ..textfile import chunks as _chunks
from .formats import (
    _FORMATS,
    _INT64_MAX,
    _INT64_MIN,
    _INT_RE,
    _QRELS,
    _RANKED,
    _RUN,
    LoadedFile,
    Progress,
    _column_error,
    _empty_error,
    _Format,
    _show,
    _stem,
    _strtod,
    _value_error,
)
from .frames import _frame, _ranked_scores
from .keys import _first_duplicate, _has_duplicate_keys, _pair_keys, _query_codes

_BLOCK_BYTES = 4 << 20  # pyarrow block size (its unit of parallelism)


class _Ticker:
    """Calls the progress callback and turns a ``False`` into Cancelled."""

    def __init__(self, progress: Progress):
        self.progress = progress
        self.last = 0.0

    def __call__(self, fraction: Optional[float] = None) -> None:
        if self.progress is None:
            return
        if fraction is None:
            fraction = self.last
        self.last = fraction = min(max(float(fraction), 0.0), 1.0)
        if self.progress(fraction) is False:
            raise Cancelled()


@dataclass
class _Piece:
    """The parsed columns of one chunk and where its rows came from."""

    qid: pa.ChunkedArray  # large_string, as pandas keeps it
    doc: pa.ChunkedArray
    value: pa.ChunkedArray
    first_line: int
    exact: bool  # row i is physical line first_line + i (no skipped lines)
    first_tag: Optional[bytes] = None
    last_tag: Optional[bytes] = None


def _read_path(display: str, fmt: _Format, progress: Progress, name=None) -> LoadedFile:
    tick = _Ticker(progress)
    tick(0.0)
    pieces: list[_Piece] = []
    keys: list[np.ndarray] = []
    rows = 0
    with contextlib.closing(_chunks(display)) as chunks:  # type: ignore[type-var]  # a generator closes
        for chunk, first_line, lines, fraction in chunks:
            piece = _parse_chunk(chunk, lines, fmt, first_line, display, rows == 0, tick)
            del chunk
            if len(piece.value):
                pieces.append(piece)
                keys.append(_pair_keys(piece.qid, piece.doc))
                rows += len(piece.value)
            tick(0.9 * fraction)
    if rows == 0:
        raise _empty_error(display, fmt)
    result = _assemble(pieces, keys, fmt, display, name, tick)
    tick(1.0)
    return result


_PARSE_OPTIONS = {
    delimiter: pacsv.ParseOptions(
        delimiter=delimiter,
        quote_char=False,
        double_quote=False,
        escape_char=False,
        newlines_in_values=False,
        ignore_empty_lines=True,
    )
    for delimiter in (" ", "\t")
}


def _arrow_options(fmt: _Format):
    names = [f"f{i}" for i in range(fmt.columns)]
    if fmt.extra_ok:
        read = pacsv.ReadOptions(autogenerate_column_names=True, use_threads=True, block_size=_BLOCK_BYTES)
    else:
        read = pacsv.ReadOptions(column_names=names, use_threads=True, block_size=_BLOCK_BYTES)
    types = {name: pa.string() for name in names}
    types["f0"] = types["f2"] = pa.large_string()  # what pandas keeps
    types[names[fmt.value]] = pa.float64() if fmt is _RUN else pa.int64()
    convert = pacsv.ConvertOptions(
        column_types=types,
        include_columns=names,
        include_missing_columns=False,
        null_values=[],
        true_values=[],
        false_values=[],
        strings_can_be_null=False,
        quoted_strings_can_be_null=False,
        check_utf8=False,  # checked on the whole chunk beforehand
    )
    return read, convert


_ARROW_OPTIONS = {kind: _arrow_options(fmt) for kind, fmt in _FORMATS.items()}


def _parse_chunk(chunk: bytes, lines: int, fmt: _Format, first_line: int, display: str, at_start: bool, tick) -> _Piece:
    delimiter = _delimiter(chunk)
    if delimiter is not None:
        table = _arrow_parse(chunk, fmt, b"#" in chunk, delimiter)
        if table is not None:
            return _piece(table, fmt, first_line, table.num_rows == lines)
    table = _arrow_parse(_normalise(chunk), fmt, False)
    if table is not None:
        return _piece(table, fmt, first_line, table.num_rows == lines)
    return _python_parse(chunk, fmt, first_line, display, at_start, tick)


def _delimiter(chunk: bytes) -> Optional[str]:
    """The one separator pyarrow can split ``chunk`` on as it is, if any.

    pyarrow splits on one character and ends lines at LF, CRLF or a lone CR,
    whereas a lone CR is a blank to trec_eval: CRs are fine only in CRLF.
    """
    if b"\x0b" in chunk or b"\x0c" in chunk:
        return None
    if b"\r" in chunk and chunk.count(b"\r") != chunk.count(b"\r\n"):
        return None
    if b"\t" not in chunk:
        return " "
    if b" " not in chunk:
        return "\t"
    return None


def _arrow_parse(data: bytes, fmt: _Format, maybe_comments: bool, delimiter: str = " ") -> Optional[pa.Table]:
    """Parse lines with single separators; None if anything is off."""
    read, convert = _ARROW_OPTIONS[fmt.kind]
    try:
        table = pacsv.read_csv(
            pa.py_buffer(data),
            read_options=read,
            parse_options=_PARSE_OPTIONS[delimiter],
            convert_options=convert,
        )
    except pa.ArrowException:  # the line-by-line pass will say what is wrong
        return None
    if table.num_rows == 0:
        return None
    value = f"f{fmt.value}"
    for name in table.column_names:
        # An empty field means a doubled, leading or trailing separator:
        # the tokens are not where pyarrow put them.
        if name != value and pc.min(pc.binary_length(table[name])).as_py() == 0:
            return None
    if fmt is _RUN and pc.any(pc.is_nan(table[value])).as_py():
        return None
    if maybe_comments and pc.any(pc.starts_with(table["f0"], "#")).as_py():
        return None
    return table


def _piece(table: pa.Table, fmt: _Format, first_line: int, exact: bool) -> _Piece:
    piece = _Piece(_large(table["f0"]), _large(table["f2"]), table[f"f{fmt.value}"], first_line, exact)
    if fmt is _RUN:
        tags = table["f5"]
        piece.first_tag = tags[0].as_py().encode()
        piece.last_tag = tags[-1].as_py().encode()
    return piece


from ..columns import normalise as _normalise  # noqa: E402  (one definition of the normal form)


def _large(arr: pa.ChunkedArray) -> pa.ChunkedArray:
    if arr.type == pa.large_string():
        return arr
    return arr.cast(pa.large_string())


def _python_parse(chunk: bytes, fmt: _Format, first_line: int, display: str, at_start: bool, tick) -> _Piece:
    """Line by line: raise at the first bad line, else return the columns."""
    qids: list[bytes] = []
    docs: list[bytes] = []
    values: list = []
    first_tag = last_tag = None
    is_run = fmt is _RUN
    need = fmt.columns
    for i, line in enumerate(chunk.split(b"\n")[:-1]):
        if i & 0xFFFF == 0xFFFF:
            tick()
        tokens = line.split()
        if not tokens or tokens[0][:1] == b"#":
            continue
        line_no = first_line + i
        n = len(tokens)
        if n < need or (n > need and not fmt.extra_ok):
            raise _column_error(tokens, fmt, display, line_no, at_start and not qids)
        token = tokens[fmt.value]
        if is_run:
            value = _strtod(token)
            if value is None or math.isnan(value):
                raise _value_error(token, fmt, display, line_no, at_start and not qids)
            last_tag = tokens[5]
            if first_tag is None:
                first_tag = last_tag
        else:
            if not _INT_RE.match(token) or not _INT64_MIN <= int(token) <= _INT64_MAX:
                raise _value_error(token, fmt, display, line_no, at_start and not qids)
            value = int(token)
        qids.append(tokens[0])
        docs.append(tokens[2])
        values.append(value)
    return _Piece(
        _large(pa.chunked_array([pa.array(qids, pa.binary())])),
        _large(pa.chunked_array([pa.array(docs, pa.binary())])),
        pa.chunked_array([pa.array(values, pa.float64() if is_run else pa.int64())]),
        first_line,
        False,
        first_tag,
        last_tag,
    )


def _row_line(row: int, pieces: list[_Piece], display: str, fmt: _Format) -> int:
    """Physical line number of data row ``row``."""
    start = 0
    for piece in pieces:
        n = len(piece.value)
        if row < start + n:
            if piece.exact:
                return piece.first_line + row - start
            break
        start += n
    # the chunk had blank or comment lines: count data lines again
    count = 0
    with contextlib.closing(_chunks(display)) as chunks:  # type: ignore[type-var]
        for chunk, first_line, _, _ in chunks:
            for i, line in enumerate(chunk.split(b"\n")[:-1]):
                tokens = line.split()
                if tokens and tokens[0][:1] != b"#":
                    if count == row:
                        return first_line + i
                    count += 1
    raise AssertionError("row beyond the end of the file")  # pragma: no cover


def _assemble(pieces, keys, fmt, display, name, tick) -> LoadedFile:
    qid = pa.chunked_array([c for p in pieces for c in p.qid.chunks], pa.large_string())
    doc = pa.chunked_array([c for p in pieces for c in p.doc.chunks], pa.large_string())
    keys = np.concatenate(keys)
    tick()  # between every phase, so that a cancel acts within a fraction of a second
    repeated = _has_duplicate_keys(keys)
    del keys
    tick()
    if repeated is not None:
        dup = _first_duplicate(_pair_keys(qid, doc), repeated, qid, doc)
        if dup is not None:
            row, first = dup
            q, d = qid[row].as_py(), doc[row].as_py()
            raise InputError(
                f"found document {_show(d.encode())} a second time for query "
                f"{_show(q.encode())} (first on line {_row_line(first, pieces, display, fmt)})",
                path=display,
                line=_row_line(row, pieces, display, fmt),
                expected="each document at most once per query",
            )
    warnings: list[str] = []
    values = np.concatenate([c.to_numpy(zero_copy_only=False) for p in pieces for c in p.value.chunks])
    tick()
    if fmt is _QRELS:
        qrels = _frame(qid, doc, "relevance", values.astype(np.int64, copy=False), display)
        return LoadedFile("qrels", display, None, qrels, warnings)
    if fmt is _RANKED:
        qrels = _frame(qid, doc, "relevance", values.astype(np.int64, copy=False), display)
        run = _frame(qid, doc, "score", _ranked_scores(_query_codes(qid)), display)
        run.attrs["name"] = name or _stem(display)
        return LoadedFile("ranked", display, run, qrels, warnings)
    first_tag = pieces[0].first_tag.decode()
    last_tag = pieces[-1].last_tag.decode()
    if last_tag != first_tag:
        warnings.append(
            f"{display}: the run tag changes from {first_tag!r} (first line) to "
            f"{last_tag!r} (last line); the run is labelled {name or first_tag!r} and "
            f"its runid is {last_tag!r}, as trec_eval reports it"
        )
    run = _frame(qid, doc, "score", values.astype(np.float64, copy=False), display)
    run.attrs["name"] = name or first_tag
    # trec_eval keeps the tag of the last line as the run's id (get_trec_results.c)
    run.attrs["run_id"] = last_tag
    return LoadedFile("run", display, run, None, warnings)


def use_jemalloc_pool() -> None:
    """Give pyarrow its jemalloc pool for this process, unless the user chose
    one with ``ARROW_DEFAULT_MEMORY_POOL``.  Called by ``ir-eval`` and the
    window at start-up; the library itself makes no allocator choice.

    The default mimalloc pool hands freed pages back to the system at once;
    reading a large run file then faults every page in again, which costs
    more system time than the whole evaluation.  jemalloc reuses them.
    """
    if os.environ.get("ARROW_DEFAULT_MEMORY_POOL"):
        return
    try:
        pa.set_memory_pool(pa.jemalloc_memory_pool())
    except NotImplementedError:  # a pyarrow built without jemalloc
        pass
