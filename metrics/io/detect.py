"""What kind of file this is, from its first data line."""

from __future__ import annotations

import os
import re
from typing import Optional

from metrics.errors import InputError
from metrics.io.binaryfiles import binary_file as _binary_file
from metrics.io.binaryfiles import binary_kind
from metrics.io.formats import (
    JSON_LAYOUT,
    Layout,
    _columns,
    _empty_error,
    header_layout,
    trec_layout,
    trec_line_kind,
)
from metrics.io.textfile import check_text as _check_text
from metrics.io.textfile import first_binary_byte as _first_binary_byte
from metrics.io.textfile import gzip_errors as _gzip_errors
from metrics.io.textfile import open_input as _open_input
from metrics.io.textfile import open_stream as _open_stream
from metrics.io.textfile import without_bom as _without_bom

_DETECT_BYTES = 64 << 10
_DETECT_LIMIT = 1 << 20


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
    if display.startswith("irds:"):  # metrics.io.datasets
        return "qrels", "an ir_datasets dataset id: its qrels"
    binary = binary_kind(display)  # Parquet, ranx's LZ4 (metrics.io.binaryfiles)
    if binary is not None:
        return binary
    refused = _binary_file(display)  # binary data in the first chunk: as the readers refuse it
    if refused is not None:
        raise refused
    head, line_no, raw = first_data_line(display)
    if head is None:
        raise _empty_error(display, None)
    try:
        layout = sniff_layout(raw, None)
    except InputError as exc:
        raise InputError(exc.message, path=display, line=line_no, expected=exc.expected) from None
    if layout is JSON_LAYOUT:
        kind = _json_kind(display)
        return kind, (
            "the file is JSON {qid: {docid: value}}: "
            + ("scores with a fraction or an exponent: a run" if kind == "run" else "integer values: qrels")
        )
    if layout.header:
        kind = "qrels" if "qrels" in layout.name else "run"
        return kind, f"line {line_no} is a header naming {' '.join(layout.header)!r}: {layout.name}"
    n = len(head) if layout.trec else layout.ncols
    separated = "" if layout.trec else ", separated by commas"
    other = other_reading(raw, None) if layout.trec else None
    also = f"; it also {other}, and is read as data, as trec_eval reads it" if other else ""
    if n >= 6:
        return "run", (f"line {line_no} has {n} fields (qid Q0 docid rank score tag){separated}: a run{also}")
    if n == 4:
        return "qrels", (
            f"line {line_no} has 4 fields (qid iter docid grade): qrels; a ranked-judgments "
            "file ('qid Q0 docid grade' in ranked order) has the same layout and is read as one "
            f"only when chosen{also}"
        )
    if holds_queries(display):
        raise InputError(
            "found query texts (TREC topics or 'qid<TAB>text' lines), not qrels or a run",
            path=display,
            line=line_no,
            expected="4 columns (qrels 'qid iter docid rel') or 6 columns (run 'qid Q0 docid rank score tag')",
        )
    raise InputError(
        f"found {_columns(n)}",
        path=display,
        line=line_no,
        expected=("4 columns (qrels 'qid iter docid rel') or 6 columns (run 'qid Q0 docid rank score tag')"),
    )


def holds_queries(path) -> bool:
    """Whether the file at ``path`` holds query texts (TREC topics, ``qid<TAB>text`` lines) rather than
    qrels or a run: the one recognition of query files for every door.  TREC first: a file whose first
    data lines are valid TREC lines never does, whatever tags its comments or ids hold
    (:func:`metrics.io.topics.sniff`)."""
    from metrics.io.textfile import head
    from metrics.io.topics import sniff

    try:
        return sniff(head(path))
    except OSError:
        return False


def first_data_line(display: str):
    """(tokens, line number, the line) of the first data line, or (None, None, None).

    Reads 64 KiB at a time, at most 1 MiB.
    """
    with _open_input(display) as raw:
        gz, stream = _open_stream(raw)
        data = b""
        while True:
            with _gzip_errors(gz, display):
                block = stream.read(_DETECT_BYTES)
            data += block
            eof = len(block) < _DETECT_BYTES
            found = _scan_head(data, eof, len(data) >= _DETECT_LIMIT, display)
            if found is not None or eof or len(data) >= _DETECT_LIMIT:
                return found if found is not None else (None, None, None)


def _scan_head(data: bytes, eof: bool, limit: bool, display: str):
    """Look for the first data line among the complete lines of ``data``.

    At the end of the file the last line counts even without a newline; at
    the size limit, so does the cut-off line (not checked for UTF-8 then: the
    cut may split a character).
    """
    data = _without_bom(data, display)
    start, number = 0, 0
    while True:  # line by line: the first data line is near the start of the 64 KiB read
        end = data.find(b"\n", start)
        number += 1
        if end < 0:  # after the last newline
            if not (eof or limit):
                return None
            line = data[start:]
            if eof or _first_binary_byte(line) >= 0:
                _check_text(line, number, display)
        else:
            line = data[start:end]
            _check_text(line, number, display)
        tokens = line.split()
        if tokens and tokens[0][:1] != b"#":
            return tokens, number, line
        if end < 0:
            return None
        start = end + 1


def sniff_layout(line: bytes, kind: Optional[str]) -> Layout:
    """The layout of a file whose first data line is ``line`` (without its newline), read as ``kind``
    ("run", "qrels", "ranked"; None: as the line says).

    TREC first: a valid TREC line of the kind (:func:`~metrics.io.formats.trec_line_kind`) gives TREC's
    blank-separated columns, whatever words or braces it holds, as trec_eval reads it.  Only a line
    that is not gives another layout, on its evidence: a header line naming the columns, its fields
    separated by tabs, commas or blanks (BEIR, PyTerrier, ir_measures, ranx); TREC's columns separated
    by commas; or JSON ``{qid: {docid: value}}``.  Raises :class:`InputError` (without a place) for a
    header naming no column of the value needed."""
    line = line.rstrip(b"\r")
    if _is_trec(line, kind):
        return trec_layout(kind or trec_line_kind(line) or "qrels")
    stripped = line.lstrip()
    # JSON opens an object whose first key is quoted (or that goes on on the next line)
    if stripped[:1] == b"{" and stripped[1:].lstrip()[:1] in (b'"', b"}", b""):
        return JSON_LAYOUT
    trec = trec_layout(kind or "qrels")
    if b"\t" in line:
        found = header_layout([t.strip() for t in line.split(b"\t")], 9, kind)
        if found is not None:
            return found
    if b"," in line:
        fields = line.split(b",")
        found = header_layout(fields, 44, kind)
        if found is not None:
            return found
        if len(line.split()) == 1 and len(fields) >= 4:  # TREC columns separated by commas
            if kind == "run" or (kind is None and len(fields) >= 6):
                return Layout("TREC columns separated by commas", 44, len(fields), 0, 2, 4, rank=3, tag=5)
            return Layout("TREC columns separated by commas", 44, 4, 0, 2, 3)
    found = header_layout(line.split(), None, kind)
    return found if found is not None else trec


def _is_trec(line: bytes, kind: Optional[str]) -> bool:
    """Whether ``line`` is a valid TREC line of ``kind`` (None: of either kind)."""
    found = trec_line_kind(line)
    if found is None or kind is None:
        return found is not None
    return (found == "run") == (kind == "run")


def other_reading(line: bytes, kind: Optional[str]) -> Optional[str]:
    """For a first data line read as TREC, how else it could have been read (a header, JSON), as a
    clause; None when it reads one way only."""
    line = line.rstrip(b"\r")
    if not _is_trec(line, kind):
        return None
    if line.lstrip()[:1] in (b"{", b"["):
        return "begins as JSON does"
    for tokens, delimiter in ((line.split(), None), ([t.strip() for t in line.split(b"\t")], 9)):
        try:
            found = header_layout(tokens, delimiter, None)
        except InputError:
            found = None
        if found is not None:
            return f"names columns as a header does ({' '.join(found.header)!r})"
    return None


def _json_kind(display: str) -> str:
    """ "run" when a JSON file's first values have a fraction or an exponent (BEIR's saved results),
    else "qrels"."""
    from metrics.io.textfile import head

    text = head(display, _DETECT_BYTES)
    return "run" if re.search(_JSON_FLOAT, text) else "qrels"


_JSON_FLOAT = rb":\s*-?[0-9]*(?:\.[0-9]|[0-9][eE])"  # compiled when first used (re's cache)


def _reading_note(line: bytes, kind: Optional[str], layout: Layout) -> Optional[str]:
    """What to say of a first data line that could be read two ways: a valid TREC line that also
    names columns (read as data), or a header trec_eval would read as a data line (dropped)."""
    if layout.trec:
        other = other_reading(line, kind)
        if other is None:
            return None
        return (
            f"{other}, and is a valid TREC line: it is read as data, as trec_eval reads it (start it with '#' "
            "to make it a comment)"
        )
    n = len(line.split())
    if layout.header and layout.delimiter is None and (n == 4 if kind != "run" else n >= 6):
        return (
            "names the columns and is dropped as a header; trec_eval reads it as a data line (with -c its query "
            "counts in the averages: start it with '#' to make it a comment)"
        )
    return None


def layout_of_chunk(chunk: bytes, kind: Optional[str]) -> tuple[Optional[Layout], int, int, Optional[str]]:
    """(layout, bytes up to the end of the header line (0 without one), the first data line's number
    in the chunk, a clause on how else that line could be read) from the first chunk of
    whole lines of a file; (None, 0, 0, None) when the chunk holds no data line.  Raises
    :class:`InputError` (without a place) as :func:`sniff_layout` does."""
    start, number = 0, 1
    size = len(chunk)
    while start < size:
        end = chunk.find(b"\n", start)
        if end < 0:
            end = size
        line = chunk[start:end]
        stripped = line.strip()
        if stripped and stripped[:1] != b"#":
            try:
                layout = sniff_layout(line, kind)
            except InputError as exc:
                raise InputError(exc.message, line=number, expected=exc.expected) from None
            return layout, (end + 1 if layout.header else 0), number, _reading_note(line, kind, layout)
        start, number = end + 1, number + 1
    return None, 0, 0, None


def read_as_intents(recognised: InputError) -> str:
    """The warning for a file given as qrels and read as intent qrels, from the
    :class:`~metrics.errors.IntentQrelsError` that recognised it: every door that reads it so says so."""
    where = f"{recognised.path}, line {recognised.line}" if recognised.line else str(recognised.path)
    return (
        f"{where}: read as intent (diversity) qrels, 'qid intent docid grade': documents come once per intent "
        "of their query, which ad hoc qrels (and trec_eval) refuse; open the file as qrels to have it read as "
        "ad hoc qrels, and refused"
    )
