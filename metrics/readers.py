"""Readers for TREC-format qrels, runs and ranked-judgment files.

File formats
------------
qrels
    ``qid iter docid rel``: exactly four fields; ``iter`` is ignored, ``rel``
    is an integer (negative grades are kept as they are).
run
    ``qid Q0 docid rank score tag``: at least six fields; ``Q0`` and ``rank``
    are ignored (trec_eval ranks by score, never by the rank column), fields
    after the tag are ignored, ``score`` is a C double.
ranked judgments
    ``qid Q0 docid rel``: one line per retrieved document, in ranked order,
    with the relevance grade inline. Read as a run whose scores reproduce the
    file order plus the qrels of the inline grades.

Line rules (the shapes trec_eval 10.0 accepts, ``get_trec_results.c`` and
``get_qrels.c``):

* Fields are separated by any run of whitespace (space, tab, CR, vertical
  tab, form feed); leading and trailing whitespace is ignored, so CRLF files
  read like LF files. Lines end at LF only: as in trec_eval, a lone CR is a
  blank inside a line.
* Blank lines and lines whose first non-blank character is ``#`` are
  skipped. (trec_eval 10.0 rejects blank lines in qrels and only recognises
  ``#`` in column 0 there; here both formats follow the run rules.) A ``#``
  anywhere else is data: document ids such as ``doc_50_22#13_30`` are fine.
* A score is read as C ``strtod`` reads it (``12.5``, ``-3``, ``1e-4``,
  ``.5``, ``inf``, hexadecimal ``0x1p-3``), but the whole field must be a
  number: where trec_eval's ``atof`` silently reads ``abc`` as 0 or ``1.5x``
  as 1.5, this is an error here, and so is ``nan`` (it cannot be ranked).
* A relevance grade is a decimal integer with optional sign (trec_eval's
  ``atol`` would truncate ``1.5`` to 1 and read ``x`` as 0; both are errors
  here).
* A document id may appear only once per query, in a run as in qrels
  (trec_eval refuses such input as well, with "duplicate docs").
* The file is UTF-8, with or without a byte-order mark, plain or gzip
  compressed (recognised by content, not by name). NUL bytes and bytes that
  are not UTF-8 are errors.
* The run tag reported for a run is the tag of its first line (trec_eval
  reports the last line's; a warning says when the two differ).

Every problem raises :class:`metrics.errors.InputError` naming the file, the
1-based line and what was expected; nothing is returned half-loaded. Files are
only ever opened for reading.

Output
------
qrels: DataFrame ``query_id`` (str), ``doc_id`` (str), ``relevance`` (int64).
run: DataFrame ``query_id`` (str), ``doc_id`` (str), ``score`` (float64),
``attrs["name"]`` the run tag of the first line (or the name given),
``attrs["run_id"]`` the tag of the last line (what trec_eval's ``runid``
reports), ``attrs["path"]``. Rows are in file order. String columns are arrow-backed (pandas ``str``).

Implementation
--------------
The file is read in chunks of whole lines (16 MiB; a thread reads and
decompresses the next chunk meanwhile). Each chunk goes to ``pyarrow.csv``
split on single spaces, or on tabs when it has no spaces, CRLF line ends
included. The result is accepted only if no field is empty (an empty field
means a doubled, leading or trailing blank), no score is NaN and no line
starts with ``#``. Otherwise the chunk's blanks are normalised with numpy
(single spaces, comment lines emptied) and it is parsed again; if that fails
too, a line-by-line pass finds the first offending line and raises a precise
error, or, for lines trec_eval accepts that pyarrow does not (a varying
number of extra run columns, ``+1`` grades, hexadecimal scores), produces the
columns. Duplicate documents are found with a 64-bit hash per (query,
document) and one sort; candidates are confirmed on the strings themselves.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import re
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Optional

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from .errors import Cancelled, InputError

if TYPE_CHECKING:
    import pandas as pd
from .textfile import check_text as _check_text
from .textfile import chunks as _chunks
from .textfile import gzip_errors as _gzip_errors
from .textfile import open_stream as _open_stream
from .textfile import without_bom as _without_bom

__all__ = [
    "LoadedFile",
    "detect_kind",
    "detect_kind_with_reason",
    "read_file",
    "read_qrels",
    "read_ranked_judgments",
    "read_run",
]

Progress = Optional[Callable[[float], Optional[bool]]]

KINDS = ("qrels", "run", "ranked")

_BLOCK_BYTES = 4 << 20  # pyarrow block size (its unit of parallelism)
_DETECT_BYTES = 64 << 10
_DETECT_LIMIT = 1 << 20


def _str_dtype():
    """pandas' ``str`` dtype (arrow-backed); pandas is imported when a frame is first made, so that
    parsing a file (the command line's path for large files) does not need it."""
    import pandas as pd

    try:  # pandas >= 2.3: the "str" dtype of pandas 3
        return pd.StringDtype("pyarrow", na_value=np.nan)
    except TypeError:  # pragma: no cover - older pandas
        return pd.StringDtype("pyarrow")


def _is_frame(x) -> bool:
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(x, pandas.DataFrame)


@dataclass(frozen=True)
class _Format:
    kind: str
    columns: int  # required number of fields (the minimum, for runs)
    extra_ok: bool  # further fields ignored (runs) or an error
    value: int  # 0-based field holding the score / grade
    expected: str
    title: str


_RUN = _Format("run", 6, True, 4, "6 columns 'qid Q0 docid rank score tag'", "a run")
_QRELS = _Format("qrels", 4, False, 3, "4 columns 'qid iter docid rel'", "a qrels file")
_RANKED = _Format("ranked", 4, False, 3, "4 columns 'qid Q0 docid rel'", "a ranked-judgments file")
_FORMATS = {f.kind: f for f in (_RUN, _QRELS, _RANKED)}


@dataclass
class LoadedFile:
    """What :func:`read_file` read.

    ``run`` is set for kinds "run" and "ranked", ``qrels`` for "qrels" and
    "ranked"; the other is ``None``. ``warnings`` holds plain sentences about
    things that were accepted but may surprise (e.g. differing run tags).
    """

    kind: str
    path: str
    run: Optional[pd.DataFrame] = None
    qrels: Optional[pd.DataFrame] = None
    warnings: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------
# public API


def read_qrels(source, *, progress: Progress = None) -> pd.DataFrame:
    """Read qrels (``qid iter docid rel``) from a path or a DataFrame.

    A DataFrame needs columns ``query_id``, ``doc_id``, ``relevance`` (or
    PyTerrier's ``qid``, ``docno``, ``label``, or ranx's ``q_id``); it is
    validated like a file and returned as a new frame with exactly those
    columns and dtypes. ``{qid: {docid: grade}}``, iterables of records and
    ranx's ``Qrels`` are read too (:mod:`metrics.inputs`). See the module
    docstring for the file rules. Raises :class:`InputError`.
    """
    if _is_frame(source):
        return _qrels_from_frame(source)
    if not isinstance(source, (str, os.PathLike)):  # dicts, records, ranx objects (metrics.inputs)
        from .inputs import as_qrels

        return as_qrels(source)
    display = os.fspath(source)
    result = _read_path(display, _QRELS, progress)
    return result.qrels


def read_run(source, name: Optional[str] = None, *, progress: Progress = None) -> pd.DataFrame:
    """Read a run (``qid Q0 docid rank score tag``) from a path or DataFrame.

    ``attrs["name"]`` is ``name`` if given, else the tag of the first line
    (for a DataFrame: its ``attrs["name"]``, else "run"); ``attrs["run_id"]``
    is the tag of the last line, as trec_eval's ``runid``. A DataFrame needs
    columns ``query_id``, ``doc_id``, ``score`` (or ``qid``, ``docno``).
    See the module docstring for the file rules. Raises :class:`InputError`.
    """
    if _is_frame(source):
        return _run_from_frame(source, name)
    if not isinstance(source, (str, os.PathLike)):  # dicts, records, ranx objects (metrics.inputs)
        from .inputs import as_run

        return as_run(source, name)
    display = os.fspath(source)
    result = _read_path(display, _RUN, progress, name=name)
    return result.run


def read_ranked_judgments(
    source, name: Optional[str] = None, *, progress: Progress = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read ranked judgments (``qid Q0 docid rel`` in ranked order).

    Returns ``(run, qrels)``. In the run, the document on the i-th line of a
    query with n lines (i from 0) gets score ``n - i``: sorting by score
    descending gives back the file order exactly, with no ties. The qrels hold
    the inline grades. The run is named ``name``, else after the file: its
    name without ``.gz`` and without its (last) extension. A DataFrame
    source needs ``query_id``, ``doc_id``, ``relevance`` in ranked order.
    """
    if _is_frame(source):
        qrels = _qrels_from_frame(source, fmt=_RANKED)
        run = _ranked_run(qrels, name or source.attrs.get("name") or "ranked")
        return run, qrels
    display = os.fspath(source)
    result = _read_path(display, _RANKED, progress, name=name)
    return result.run, result.qrels


def detect_kind(path) -> str:
    """Tell from its first data line whether a file is a run or qrels.

    6 or more fields: "run"; 4 fields: "qrels", whatever the second field
    holds (``0``, ``Q0`` as in TREC Deep Learning and MS MARCO qrels, ``0.5``).
    Ranked judgments (``qid Q0 docid rel`` in ranked order) share that layout
    and are never guessed: they are read only when asked for by kind.  Reads
    only the start of the file (64 KiB unless comments fill it). Raises
    :class:`InputError` for other shapes, binary content and files without
    data lines.
    """
    return detect_kind_with_reason(path)[0]


def detect_kind_with_reason(path) -> tuple[str, str]:
    """(kind, one sentence saying why), as :func:`detect_kind` decides it."""
    display = os.fspath(path)
    head, line_no = _first_data_line(display)
    if head is None:
        raise _empty_error(display, None)
    n = len(head)
    if n >= 6:
        return "run", (f"line {line_no} has {n} fields (qid Q0 docid rank score tag): a run")
    if n == 4:
        return "qrels", (
            f"line {line_no} has 4 fields (qid iter docid grade): qrels; a ranked-judgments "
            "file ('qid Q0 docid grade' in ranked order) has the same layout and is read as one "
            "only when chosen"
        )
    raise InputError(
        f"found {_columns(n)}",
        path=display,
        line=line_no,
        expected=("4 columns (qrels 'qid iter docid rel') or 6 columns (run 'qid Q0 docid rank score tag')"),
    )


def read_file(path, kind: Optional[str] = None, progress: Progress = None) -> LoadedFile:
    """Read a qrels, run or ranked-judgments file into a :class:`LoadedFile`.

    ``kind`` is "qrels", "run" or "ranked"; ``None`` asks :func:`detect_kind`.
    ``progress(fraction)`` is called a handful of times with a fraction in
    [0, 1] (once per 16 MiB of input and between phases, not per line); if
    it returns ``False``, reading stops with :class:`metrics.errors.Cancelled`
    within a fraction of a second. It is called in the caller's thread.
    """
    display = os.fspath(path)
    if kind is None:
        kind = detect_kind(display)
    if kind not in _FORMATS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    return _read_path(display, _FORMATS[kind], progress)


# --------------------------------------------------------------------------
# reading a file


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


# --------------------------------------------------------------------------
# parsing one chunk

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


from .columns import normalise as _normalise  # noqa: E402  (one definition of the normal form)

_INT_RE = re.compile(rb"[+-]?[0-9]+\Z")
_FLOAT_RE = re.compile(
    rb"""[+-]?(?:
        (?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?
      | 0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?
      | [iI][nN][fF](?:[iI][nN][iI][tT][yY])?
      | [nN][aA][nN](?:\([0-9A-Za-z_]*\))?
    )\Z""",
    re.X,
)
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _strtod(token: bytes) -> Optional[float]:
    """The double C strtod reads from the whole token, None if it cannot."""
    if b"_" not in token:  # Python's float() also takes 1_000, strtod does not
        try:
            return float(token)
        except ValueError:
            pass
    if not _FLOAT_RE.match(token):
        return None
    low = token.lower()
    if b"x" in low:
        try:
            return float.fromhex(token.decode("ascii"))
        except OverflowError:  # strtod gives HUGE_VAL
            return -math.inf if token.startswith(b"-") else math.inf
    if b"nan" in low:
        return math.nan
    return float(token)


def _large(arr: pa.ChunkedArray) -> pa.ChunkedArray:
    if arr.type == pa.large_string():
        return arr
    return arr.cast(pa.large_string())


def _show(token: bytes, limit: int = 40) -> str:
    text = token.decode("utf-8", "replace")
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return repr(text)


def _columns(n: int) -> str:
    return f"{n} column" if n == 1 else f"{n} columns"


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


def _column_error(tokens, fmt, display, line_no, first_data_line) -> InputError:
    n = len(tokens)
    message = f"found {_columns(n)}"
    if first_data_line:
        if fmt is _RUN and n == 4:
            if tokens[1].lower() == b"q0":
                message += ": this looks like a ranked-judgments file ('qid Q0 docid rel'), not a run"
            else:
                message += ": this looks like a qrels file, not a run"
        elif fmt is not _RUN and n >= 6:
            message += f": this looks like a run, not {fmt.title}"
    return InputError(message, path=display, line=line_no, expected=fmt.expected)


def _value_error(token, fmt, display, line_no, first_data_line) -> InputError:
    column = fmt.value + 1
    if fmt is _RUN:
        message = f"found score {_show(token)} in column {column}"
        expected = "a number such as 12.5, -3 or 1e-4"
        if token.lower().lstrip(b"+-").startswith(b"nan"):
            expected = "a number that is not NaN"
    else:
        message = f"found relevance {_show(token)} in column {column}"
        expected = "an integer grade such as 0, 1, 2 or -1"
        if _INT_RE.match(token):
            message += " (out of the 64-bit range)"
    if first_data_line and _strtod(token) is None:
        message += ": a header line? start it with '#' to make it a comment"
    return InputError(message, path=display, line=line_no, expected=expected)


def _empty_error(display: str, fmt: Optional[_Format]) -> InputError:
    expected = f"lines of {fmt.expected}" if fmt is not None else "data lines"
    return InputError(
        "no data lines (the file is empty or holds only blank and comment lines)",
        path=display,
        expected=expected,
    )


# --------------------------------------------------------------------------
# duplicates and assembly

_MASKS = np.array([0] + [(1 << (8 * k)) - 1 for k in range(1, 8)] + [(1 << 64) - 1], dtype=np.uint64)
_MUL = np.uint64(0x9E3779B97F4A7C15)
_LONG_ID = 1024  # bytes: longer ids are hashed one by one (see _string_hash)
_MUL_QUERY = np.uint64(0xC2B2AE3D27D4EB4F)


def _string_hash(arr) -> np.ndarray:
    """A 64-bit hash per string (equal strings, equal hashes), vectorised."""
    if isinstance(arr, pa.ChunkedArray):
        if arr.num_chunks == 1:
            return _string_hash(arr.chunk(0))
        return np.concatenate([_string_hash(c) for c in arr.chunks] or [np.zeros(0, dtype=np.uint64)])
    n = len(arr)
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    offset_type: type[np.signedinteger]
    if pa.types.is_large_string(arr.type) or pa.types.is_large_binary(arr.type):
        offset_type = np.int64
    else:
        if not (pa.types.is_string(arr.type) or pa.types.is_binary(arr.type)):
            arr = arr.cast(pa.string())
        offset_type = np.int32
    _, offsets_buf, data_buf = arr.buffers()
    width = np.dtype(offset_type).itemsize
    offsets = np.frombuffer(offsets_buf, dtype=offset_type, count=n + 1, offset=arr.offset * width)
    offsets = offsets.astype(np.int64)
    lo, hi = int(offsets[0]), int(offsets[-1])
    padded = np.zeros(hi - lo + 8, dtype=np.uint8)
    if hi > lo:
        padded[: hi - lo] = np.frombuffer(data_buf, dtype=np.uint8, count=hi - lo, offset=lo)
    # every byte position as the start of a little-endian 64-bit word
    words = np.ndarray((hi - lo + 1,), dtype="<u8", buffer=padded, strides=(1,))
    start = offsets[:-1] - lo
    length = np.diff(offsets)
    h = length.astype(np.uint64)
    h *= _MUL
    last = len(words) - 1
    # Strings longer than _LONG_ID bytes (rare: a 10 MB "document id") are hashed one by one in C
    # (hashlib), the others in vectorised rounds of 8 bytes, so the work is linear in the bytes:
    # rounds over every string up to the longest would cost rows x longest.
    long_rows = np.flatnonzero(length > _LONG_ID)
    if len(long_rows):
        data = padded.tobytes()
        for i in long_rows.tolist():
            digest = hashlib.blake2b(data[start[i] : start[i] + length[i]], digest_size=8).digest()
            h[i] ^= np.frombuffer(digest, dtype="<u8")[0]  # h holds length * _MUL already
        length = np.where(length > _LONG_ID, 0, length)  # done: no rounds for them
    shortest, longest = int(length.min()), int(length.max())
    # Round r mixes in bytes r..r+7 of every string that has them (a string takes part in as many
    # rounds as it has 8-byte words).
    # sorted only when some strings outlast the shortest (ids of mixed lengths)
    by_length: np.ndarray | None = None
    neg_sorted: np.ndarray = np.zeros(0, dtype=np.int64)
    for r in range(0, longest, 8):
        if r < shortest:  # every string still has bytes: whole-array operations
            word = words[start if r == 0 else np.minimum(start + r, last)]
            if shortest < r + 8:  # keep only the bytes of each string
                word &= _MASKS[np.clip(length - r, 0, 8)]
            h ^= word
            h *= _MUL
            h ^= h >> np.uint64(29)
            continue
        if by_length is None:
            by_length = np.argsort(-length, kind="stable")
            neg_sorted = -length[by_length]
        active = by_length[: int(np.searchsorted(neg_sorted, -r, side="left"))]  # strings longer than r
        word = words[np.minimum(start[active] + r, last)]
        word &= _MASKS[np.clip(length[active] - r, 0, 8)]
        part = h[active]
        part ^= word
        part *= _MUL
        part ^= part >> np.uint64(29)
        h[active] = part
    return h


def _pair_keys(qid, doc) -> np.ndarray:
    """64-bit keys, equal for equal (query, document) pairs."""
    keys = _string_hash(qid)
    keys *= _MUL_QUERY
    keys += _string_hash(doc)
    return keys


def _query_codes(qid: pa.ChunkedArray) -> np.ndarray:
    """Codes 0..n-1 per query id, in order of first appearance."""
    encoded = pc.dictionary_encode(qid)
    if encoded.num_chunks == 0:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in encoded.chunks])


def _has_duplicate_keys(keys: np.ndarray) -> Optional[np.ndarray]:
    """Sort ``keys`` in place; the key values occurring more than once, or None."""
    keys.sort()
    same = keys[1:] == keys[:-1]
    if not same.any():
        return None
    return np.unique(keys[1:][same])


def _first_duplicate(keys: np.ndarray, repeated: np.ndarray, qid, doc):
    """(row of the first repeat, row of its first occurrence) or None.

    ``keys`` (unsorted, one per row) and the ``repeated`` key values point to
    candidate rows; the strings decide (a 64-bit hash may collide).
    """
    candidates = np.flatnonzero(np.isin(keys, repeated))
    seen: dict = {}
    for lo in range(0, len(candidates), 65536):
        rows = candidates[lo : lo + 65536]
        q = qid.take(pa.array(rows)).to_pylist()
        d = doc.take(pa.array(rows)).to_pylist()
        for row, pair in zip(rows.tolist(), zip(q, d)):
            if pair in seen:
                return row, seen[pair]
            seen[pair] = row
    return None  # only hash collisions


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


def _frame(qid, doc, value_name, values, path) -> pd.DataFrame:
    import pandas as pd

    _STR = _str_dtype()
    frame = pd.DataFrame(
        {
            "query_id": pd.Series(qid, dtype=_STR, copy=False),
            "doc_id": pd.Series(doc, dtype=_STR, copy=False),
            value_name: values,
        },
        copy=False,
    )
    if path is not None:
        frame.attrs["path"] = path
    return frame


def _ranked_scores(codes: np.ndarray) -> np.ndarray:
    """n - i for the i-th row (from 0) of a query with n rows."""
    if len(codes) == 0:
        return np.zeros(0, dtype=np.float64)
    order = np.argsort(codes, kind="stable")
    counts = np.bincount(codes)
    starts = np.cumsum(counts) - counts
    position = np.empty(len(codes), dtype=np.int64)
    position[order] = np.arange(len(codes)) - starts[codes[order]]
    return (counts[codes] - position).astype(np.float64)


def _stem(display: str) -> str:
    base = os.path.basename(display)
    if base.endswith(".gz"):
        base = base[:-3]
    stem, _ = os.path.splitext(base)
    return stem or base


# --------------------------------------------------------------------------
# DataFrame sources

_ALIASES = {
    "query_id": ("query_id", "qid", "q_id"),
    "doc_id": ("doc_id", "docno", "docid"),
    "score": ("score",),
    "relevance": ("relevance", "label", "rel"),
}


def _pick(df: pd.DataFrame, wanted: tuple[str, ...], what: str) -> list[str]:
    names = []
    for column in wanted:
        for alias in _ALIASES[column]:
            if alias in df.columns:
                names.append(alias)
                break
        else:
            raise InputError(
                f"{what} DataFrame has columns {list(map(str, df.columns))}",
                expected=f"columns {', '.join(wanted)}",
            )
    return names


def _string_column(series: pd.Series, column: str, what: str) -> pa.ChunkedArray:
    _STR = _str_dtype()
    missing = series.isna().to_numpy()
    if missing.any():
        raise InputError(
            f"{what} DataFrame has a missing {column} at position {int(np.flatnonzero(missing)[0])}",
            expected=f"a {column} in every row",
        )
    if series.dtype != _STR:
        series = series.astype(_STR)
    arr = pa.chunked_array([pa.array(series.array, type=pa.large_string())])
    if len(arr) and pc.min(pc.binary_length(arr)).as_py() == 0:
        raise InputError(f"{what} DataFrame has an empty {column}", expected=f"a non-empty {column}")
    return arr


def _frame_duplicates(qid: pa.ChunkedArray, doc: pa.ChunkedArray, what: str) -> None:
    keys = _pair_keys(qid, doc)
    repeated = _has_duplicate_keys(keys.copy())
    dup = None if repeated is None else _first_duplicate(keys, repeated, qid, doc)
    if dup is not None:
        row, first = dup
        raise InputError(
            f"{what} DataFrame has document {_show(doc[row].as_py().encode())} twice for query "
            f"{_show(qid[row].as_py().encode())} (at positions {first} and {row})",
            expected="each document at most once per query",
        )


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def _qrels_from_frame(df: pd.DataFrame, fmt: _Format = _QRELS) -> pd.DataFrame:
    import pandas as pd

    what = "qrels" if fmt is _QRELS else "ranked-judgments"
    qcol, dcol, rcol = _pick(df, ("query_id", "doc_id", "relevance"), what)
    qid = _string_column(df[qcol], "query_id", what)
    doc = _string_column(df[dcol], "doc_id", what)
    rel = df[rcol]
    numeric = pd.to_numeric(rel, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(numeric) | (numeric != np.floor(numeric))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"{what} DataFrame has relevance {_plain(rel.iloc[row])!r} at position {row}",
            expected="integer grades",
        )
    if not pd.api.types.is_integer_dtype(rel.dtype):
        rel = numeric
    _frame_duplicates(qid, doc, what)
    grades = np.asarray(rel, dtype=np.int64)
    return _frame(qid, doc, "relevance", grades, df.attrs.get("path"))


def _run_from_frame(df: pd.DataFrame, name: Optional[str]) -> pd.DataFrame:
    import pandas as pd

    qcol, dcol, scol = _pick(df, ("query_id", "doc_id", "score"), "run")
    qid = _string_column(df[qcol], "query_id", "run")
    doc = _string_column(df[dcol], "doc_id", "run")
    score = pd.to_numeric(df[scol], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    if np.isnan(score).any():
        row = int(np.flatnonzero(np.isnan(score))[0])
        raise InputError(
            f"run DataFrame has score {_plain(df[scol].iloc[row])!r} at position {row}",
            expected="a number that is not NaN",
        )
    _frame_duplicates(qid, doc, "run")
    frame = _frame(qid, doc, "score", score, df.attrs.get("path"))
    frame.attrs["name"] = name or df.attrs.get("name") or "run"
    return frame


def _ranked_run(qrels: pd.DataFrame, name: str) -> pd.DataFrame:
    import pandas as pd

    codes = _query_codes(pa.chunked_array([pa.array(qrels["query_id"].array)]))
    run = pd.DataFrame(
        {
            "query_id": qrels["query_id"],
            "doc_id": qrels["doc_id"],
            "score": _ranked_scores(codes),
        }
    )
    if "path" in qrels.attrs:
        run.attrs["path"] = qrels.attrs["path"]
    run.attrs["name"] = name
    return run


# --------------------------------------------------------------------------
# kind detection


def _first_data_line(display: str):
    """(tokens, line number) of the first data line, or (None, None).

    Reads 64 KiB at a time, at most 1 MiB.
    """
    with open(display, "rb") as raw:
        gz, stream = _open_stream(raw)
        data = b""
        while True:
            with _gzip_errors(gz, display):
                block = stream.read(_DETECT_BYTES)
            data += block
            eof = len(block) < _DETECT_BYTES
            found = _scan_head(data, eof, len(data) >= _DETECT_LIMIT, display)
            if found is not None or eof or len(data) >= _DETECT_LIMIT:
                return found if found is not None else (None, None)


def _scan_head(data: bytes, eof: bool, limit: bool, display: str):
    """Look for the first data line among the complete lines of ``data``.

    At the end of the file the last line counts even without a newline; at
    the size limit, so does the cut-off line (not checked for UTF-8 then: the
    cut may split a character).
    """
    data = _without_bom(data, display)
    lines = data.split(b"\n")
    partial = lines.pop()  # after the last newline
    for i, line in enumerate(lines + [partial] if (eof or limit) else lines):
        if i < len(lines) or eof:
            _check_text(line, i + 1, display)
        elif b"\0" in line:
            _check_text(line, i + 1, display)
        tokens = line.split()
        if tokens and tokens[0][:1] != b"#":
            return tokens, i + 1
    return None


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
