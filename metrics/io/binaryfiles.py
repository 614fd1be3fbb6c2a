"""Runs and qrels saved in binary files: Parquet (read with pyarrow) and ranx's LZ4 files (``Run.save("run.lz4")``:
CBOR of ``{qid: {docid: value}}`` inside LZ4 frames, read when the ``lz4`` and ``cbor2`` packages are installed,
``pip install 'ir-workbench[lz4]'``).  Told by their first bytes, whatever their names.

A Parquet file holds one row per (query, document) with the columns ranx writes (``q_id``, ``doc_id``, ``score``;
its qrels too call the grade ``score``), ours (``query_id``, ``doc_id``, ``score`` / ``relevance``) or PyTerrier's
(``qid``, ``docno``, ``score`` / ``label``), as a header line may name them (:data:`~metrics.io.formats.
HEADER_NAMES`); ids may be text or integers.  A file is a run when its values are floating-point, qrels when they
are integers (how ranx saves the two).  Both give the :class:`~metrics.io.table.Columns` a text file gives,
checked as files are (a missing value, a non-integer grade, a NaN score, a document twice for a query), so every
door (``ir-eval``, the library, the window) reads them as it reads text.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Optional

import numpy as np

from metrics.errors import InputError
from metrics.io.textfile import BINARY_SNIFF_BYTES, binary_file_error, first_binary_byte, head

if TYPE_CHECKING:
    from metrics.io.table import Columns

__all__ = ["binary_format", "binary_kind", "binary_columns"]

PARQUET_MAGIC = b"PAR1"
LZ4_MAGIC = b"\x04\x22\x4d\x18"  # an LZ4 frame
LZ4_HINT = "reading ranx's LZ4 files needs the lz4 and cbor2 packages: pip install 'ir-workbench[lz4]'"


def binary_format(display: str) -> Optional[str]:
    """ "parquet" or "lz4" when the file starts as one does, else None (not a file here, or text)."""
    from metrics.io.textfile import not_regular

    if not_regular(display):
        return None  # the text reader refuses it, naming what it is
    try:
        with open(display, "rb") as f:
            head = f.read(4)
    except (OSError, ValueError):
        return None
    return {PARQUET_MAGIC: "parquet", LZ4_MAGIC: "lz4"}.get(head)


def binary_file(path) -> InputError | None:
    """The error the readers give for ``path`` when its first :data:`BINARY_SNIFF_BYTES` (decompressed) are
    binary data, else None: for a window or a script that asks before reading.  A Parquet or LZ4 file is not
    binary data to refuse (the readers read it): None.  Raises what opening the file raises (not a
    regular file, no such file)."""
    display = os.fspath(path)
    if binary_format(display):
        return None
    data = head(display, BINARY_SNIFF_BYTES)
    nul = first_binary_byte(data)
    return None if nul < 0 else binary_file_error(display, 1 + data.count(b"\n", 0, nul))


def binary_kind(display: str) -> Optional[tuple[str, str]]:
    """(kind, why) of a Parquet or LZ4 file, as :func:`metrics.io.detect.detect_kind_with_reason` says it; None
    for any other file."""
    fmt = binary_format(display)
    if fmt is None:
        return None
    if fmt == "parquet":
        import pyarrow.parquet as pq

        try:
            schema = pq.read_schema(display)
        except Exception as exc:  # noqa: BLE001 - pyarrow's errors are many; each becomes one InputError
            raise InputError(f"cannot read the Parquet file ({exc})", path=display) from None
        _, _, value = _fields(schema.names, None, display)
        integer = _is_integer_type(schema.field(value).type)
    else:
        data = _lz4_dict(display)
        values = [v for docs in data.values() if isinstance(docs, dict) for v in docs.values()]
        integer = bool(values) and all(isinstance(v, int) and not isinstance(v, bool) for v in values)
    what = {"parquet": "a Parquet file", "lz4": "an LZ4 file (ranx's)"}[fmt]
    if integer:
        return "qrels", f"{what} of integer values: qrels"
    return "run", f"{what} of floating-point scores: a run"


def _is_integer_type(t) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_integer(t))


def _fields(names: list[str], kind: Optional[str], display: str) -> tuple[str, str, str]:
    """The names of the query, document and value columns among ``names``."""
    from metrics.io.formats import HEADER_NAMES

    lower = {n.lower(): n for n in names}

    def find(aliases) -> Optional[str]:
        return next((lower[a] for a in aliases if a in lower), None)

    qid, doc = find(HEADER_NAMES["qid"]), find(HEADER_NAMES["doc"])
    grade, score = find(HEADER_NAMES["grade"]), find(HEADER_NAMES["score"])
    value = score if kind == "run" else (grade or score) if kind == "qrels" else (score or grade)
    if qid is None or doc is None or value is None:
        wanted = {"run": "score", "qrels": "relevance (or score)"}.get(kind or "", "score or relevance")
        raise InputError(
            f"found the columns {', '.join(names)}",
            path=display,
            expected=f"columns q_id (or query_id, qid), doc_id (or docno), {wanted}",
        )
    return qid, doc, value


def _lz4_dict(display: str) -> dict:
    """ranx's LZ4 file as the dict it saved (``lz4.frame`` of ``lz4.frame.compress(cbor2.dumps(d))``)."""
    try:
        import cbor2
        import lz4.frame
    except ImportError:
        raise InputError("this is an LZ4 file; " + LZ4_HINT, path=display) from None
    try:
        with lz4.frame.open(display, mode="rb") as f:
            packed = f.read()
        data = cbor2.loads(lz4.frame.decompress(packed))
    except Exception as exc:  # noqa: BLE001 - lz4's and cbor2's errors become one InputError
        raise InputError(
            f"cannot read the LZ4 file ({exc})", path=display, expected="ranx's Run.save or Qrels.save"
        ) from None
    if not isinstance(data, dict):
        raise InputError(
            f"found a {type(data).__name__} in the LZ4 file", path=display, expected="{qid: {docid: value}}"
        )
    return data


def _encoded(values) -> np.ndarray:
    from metrics.io.table import ids_from_list

    return ids_from_list([str(v).encode("utf-8", "surrogateescape") for v in values])


def _lz4_parts(display: str, kind: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    data = _lz4_dict(display)
    qids: list = []
    docs: list = []
    values: list = []
    for qid, ranked in data.items():
        if not isinstance(ranked, dict):
            raise InputError(
                f"found a {type(ranked).__name__} for query {qid!r}", path=display, expected="{docid: value}"
            )
        qids += [qid] * len(ranked)
        docs += ranked.keys()
        values += ranked.values()
    bad = next((v for v in values if isinstance(v, bool) or not isinstance(v, (int, float))), None)
    if bad is not None:
        raise InputError(f"found the value {bad!r}", path=display, expected="numbers")
    return _encoded(qids), _encoded(docs), np.asarray(values, dtype=np.float64)


def _parquet_parts(display: str, kind: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from metrics.io.ids import ids_from_arrow

    try:
        names = pq.read_schema(display).names
        qcol, dcol, vcol = _fields(names, kind, display)
        table = pq.read_table(display, columns=[qcol, dcol, vcol])
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001 - pyarrow's errors are many; each becomes one InputError
        raise InputError(f"cannot read the Parquet file ({exc})", path=display) from None
    for name in (qcol, dcol, vcol):
        missing = table[name].null_count
        if missing:
            row = int(np.flatnonzero(pc.is_null(table[name]).to_numpy(zero_copy_only=False))[0])
            raise InputError(f"row {row + 1} has no {name}", path=display, expected="a value in every row")
    try:
        values = table[vcol].to_numpy().astype(np.float64)
    except (TypeError, ValueError):
        raise InputError(
            f"found {table[vcol].type} values in column {vcol}", path=display, expected="numbers"
        ) from None
    return ids_from_arrow(table[qcol]), ids_from_arrow(table[dcol]), values


def binary_columns(display: str, kind: str, name: Optional[str] = None, *, progress=None) -> Columns:
    """The qrels (``kind`` "qrels") or run ("run") of a Parquet or LZ4 file as
    :class:`~metrics.io.table.Columns`, checked as a text file's are."""
    from metrics.io.checks import _first_duplicate
    from metrics.io.formats import Layout, Ticker, _stem
    from metrics.io.table import Columns, grade_dtype

    fmt = binary_format(display)
    tick = Ticker(progress)
    tick(0.0)
    if kind == "ranked":
        raise InputError(f"a {fmt} file holds no ranked judgments", path=display, expected="qrels or a run")
    qid, doc, value = (_parquet_parts if fmt == "parquet" else _lz4_parts)(display, kind)
    tick(0.7)
    if kind == "run":
        if np.isnan(value).any():
            row = int(np.flatnonzero(np.isnan(value))[0])
            raise InputError(f"row {row + 1} has the score NaN", path=display, expected="a number that is not NaN")
    else:
        bad = ~np.isfinite(value) | (value != np.floor(value))
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"row {row + 1} has the grade {float(value[row])!r}", path=display, expected="integer grades"
            )
        value = value.astype(np.int64)
        value = value.astype(grade_dtype(value), copy=False)
    layout = Layout("Parquet" if fmt == "parquet" else "ranx LZ4", None, 3, 0, 1, 2, json=True)
    cols = Columns(kind, qid, doc, value, path=display, layout=layout)
    found = _first_duplicate(cols)
    if found is not None:
        row, first = found
        shown = [bytes(x).decode("utf-8", "replace") for x in (cols.doc[row], cols.qid[row])]
        raise InputError(
            f"found document {shown[0]!r} a second time for query {shown[1]!r} (rows {first + 1} and {row + 1})",
            path=display,
            expected="each document at most once per query",
        )
    if kind == "run":
        cols.name = cols.run_id = name or _stem(display)
    tick(1.0)
    return cols
