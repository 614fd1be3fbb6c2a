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
import os
from typing import Optional

import numpy as np

from metrics.errors import InputError
from metrics.io.binaryfiles import binary_columns, binary_format
from metrics.io.checks import _first_duplicate
from metrics.io.formats import (
    _FORMATS,
    INTENTS_LAYOUT,
    JSON_LAYOUT,
    RUN,
    Layout,
    Progress,
    Ticker,
    _Format,
    _show,
)
from metrics.io.ids import (
    ids_from_series,
)
from metrics.io.lines import comment_lines, data_lines
from metrics.io.table import Columns, grade_dtype, ids_from_list
from metrics.io.textfile import _line_at, chunks
from metrics.io.tokens import Filled, assemble, parse_chunk

__all__ = ["read_columns", "columns_from_frame", "DATASET_PREFIX"]


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
    if binary_format(display):  # Parquet, ranx's LZ4 (metrics.io.binaryfiles)
        return binary_columns(display, kind, name, progress=progress)
    tick = Ticker(progress)
    tick(0.0)
    # (parsing two chunks at once in two threads gained 5% on a 1M-line run for 30% more memory)
    filled = Filled()
    offset = 0  # bytes of text before the chunk: where its first line is, should it hold an error
    comments = 0
    sniff = layout is None
    notes: list[str] = []
    with contextlib.closing(chunks(display, count_lines=False)) as source:  # type: ignore[type-var]  # a generator closes
        for chunk, _, _, fraction in source:
            if fields and b"#" in chunk:
                comments += comment_lines(chunk)
            if sniff and layout is None:
                layout, cut, notes = _layout(chunk, kind, display, offset)
                if layout is JSON_LAYOUT:
                    return _json_columns(display, fmt, name, chunk, source, tick)
                if cut:  # the header line (and the comments before it) is no data
                    chunk = chunk[cut:]
                    offset += cut
            filled.add(parse_chunk(chunk, fmt, display, offset, filled.n == 0, fields, layout), fraction)
            offset += len(chunk)
            tick(0.95 * fraction)
    cols = assemble(display, fmt, name, filled, layout=layout, intents_check=_raise_if_intents)
    cols.warnings[:0] = notes
    cols.comment_lines = comments
    tick(1.0)
    return cols


#: a source named ``irds:<dataset id>`` is an ir_datasets dataset's qrels (or scored docs), not a file
DATASET_PREFIX = "irds:"


def _layout(chunk: bytes, kind: str, display: str, offset: int) -> tuple[Optional[Layout], int, list[str]]:
    """(the file's layout, the bytes of the chunk up to its header line's end, a warning when its first
    data line could have been read another way), from its first chunk (None: no data line in it yet)."""
    from metrics.io.detect import layout_of_chunk

    try:
        layout, cut, number, other = layout_of_chunk(chunk, kind)
    except InputError as exc:
        raise InputError(
            exc.message, path=display, line=_line_at(display, offset) + (exc.line or 1) - 1, expected=exc.expected
        ) from None
    if other is None:
        return layout, cut, []
    line = _line_at(display, offset) + number - 1
    return layout, cut, [read_as_trec(display, line, other)]


def read_as_trec(display: str, line: int, note: str) -> str:
    """The warning for a file whose first data line, on ``line``, could be read two ways (``note``: which
    was chosen)."""
    return f"{display}: the first data line (line {line}) {note}"


def _json_columns(display: str, fmt: _Format, name: Optional[str], first: bytes, source, tick: Ticker) -> Columns:
    """The columns of a JSON file ``{qid: {docid: value}}`` (BEIR's saved results, pytrec_eval's and
    ranx's dicts), whose first chunk ``first`` is read and the rest comes from ``source``."""
    import json

    parts = [first]
    for chunk, _, _, fraction in source:
        parts.append(chunk)
        tick(0.5 * fraction)
    expected = f"JSON {{qid: {{docid: {'score' if fmt is RUN else 'integer grade'}}}}}"
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
            if not number or (fmt is RUN and value != value) or (fmt is not RUN and not isinstance(value, int)):
                what = "score" if fmt is RUN else "relevance"
                message = f"found {what} {value!r} for query {qid!r}, document {doc!r}"
                raise InputError(message, path=display, expected=expected)
            qids.append(key)
            docs.append(doc.encode("utf-8", "surrogateescape"))
            values.append(value)
    filled = Filled()
    if qids:
        value_array = np.array(values, dtype=np.float64 if fmt is RUN else np.int64)
        if fmt is not RUN:
            value_array = value_array.astype(grade_dtype(value_array), copy=False)
        filled.add((ids_from_list(qids), ids_from_list(docs), value_array, b"", b""), 1.0)
    cols = assemble(display, fmt, name, filled, layout=JSON_LAYOUT)
    tick(1.0)
    return cols


# ------------------------------------------------------------------------------------- from frames


def columns_from_frame(frame, kind: str) -> Columns:
    """:class:`Columns` of a qrels or run DataFrame as :mod:`metrics.io.readers` returns them (its ids'
    bytes: text with lone surrogates gives back the bytes that were not UTF-8, see
    :func:`~metrics.io.ids.ids_to_text`).  The frame is converted at each call: the window and the
    command line hold and score columns, frames are made at the edges."""
    if kind == "qrels":
        value = frame["relevance"].to_numpy(dtype=np.int64)
        value = value.astype(grade_dtype(value), copy=False)
    else:
        value = frame["score"].to_numpy(dtype=np.float64)
    qid, doc = ids_from_series(frame["query_id"]), ids_from_series(frame["doc_id"])
    cols = Columns(kind, qid, doc, value, path=frame.attrs.get("path"))
    if kind == "qrels":
        from metrics.io.checks import _check_grades

        _check_grades(cols, None)  # (a frame holds no lines to name)
    if kind == "run":
        cols.name = str(frame.attrs.get("name", ""))
        cols.run_id = str(frame.attrs.get("run_id", cols.name))
    return cols


def _intents_per_query(intents: Columns) -> bool:
    """The positive evidence of intent qrels (their intents in ``rank``): at least half of the queries
    hold two values or more in column 2.  Ad hoc qrels hold one (``0``, ``Q0``) in every query; a
    document judged twice with another second column in one query of several is an ad hoc file's
    mistake (trec_eval refuses it), not intent qrels."""
    from metrics.io.ids import id_hash

    assert intents.rank is not None
    query = id_hash(intents.qid)
    with np.errstate(over="ignore"):
        pair = query ^ (id_hash(intents.rank) * np.uint64(0x9E3779B97F4A7C15))
    _, first = np.unique(pair, return_index=True)
    _, intents_of = np.unique(query[first], return_counts=True)
    return int(np.count_nonzero(intents_of >= 2)) * 2 >= len(intents_of)


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
    if not _intents_per_query(intents):
        return  # a document judged twice by mistake in ad hoc qrels: the duplicate is reported
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
