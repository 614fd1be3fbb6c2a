"""``{qid: {docid: value}}`` (pytrec_eval's and ranx's dicts, BEIR's results) straight into the
:class:`~metrics.io.table.Columns` a file gives, numpy only: no pandas, no Python string per id.

Every query's document ids are joined into one text (NUL between them: no id may hold one, as no file's
can), encoded once, and cut at the NULs into id bytes (:func:`metrics.io.ids.ids_from_buffer`); the values
come out of the dicts in one pass (``numpy.fromiter``).  Integer ids become their text, as in a file.  A
dict cannot hold a document twice for a query, but two keys can have the same text (``1`` and ``"1"``):
that is refused as a file's repeated line is.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import chain
from typing import TYPE_CHECKING, Optional

import numpy as np

from metrics.errors import InputError

if TYPE_CHECKING:
    from metrics.io.table import Columns

__all__ = ["is_nested_run", "nested_columns", "ranx_dict"]


def is_nested_run(data) -> bool:
    """Whether ``data`` is one run as ``{qid: {docid: score}}`` (rather than ``{label: run}``): its first
    values are dicts whose values are not dicts."""
    if not isinstance(data, Mapping) or not data:
        return False
    for docs in data.values():
        if not isinstance(docs, Mapping):
            return False
        if docs:
            return not any(isinstance(v, Mapping) for v in list(docs.values())[:5])
    return True


def ranx_dict(source) -> Optional[tuple[dict, str]]:
    """(``{qid: {docid: value}}``, name) of ranx's ``Run`` or ``Qrels``; None for anything else."""
    to_dict = getattr(source, "to_dict", None)
    if not callable(to_dict) or not type(source).__module__.startswith("ranx"):
        return None
    return to_dict(), str(getattr(source, "name", None) or "")


def _ids(keys: list) -> tuple[np.ndarray, bool]:
    """(the keys' texts as one id array, whether every key was a str: distinct keys, distinct ids)."""
    from metrics.io.ids import ids_from_buffer

    if not keys:
        return np.zeros(0, dtype="S8"), True
    try:
        text, texts = "\0".join(keys), True
    except TypeError:  # integer (or other) ids: their text
        text, texts = "\0".join(map(str, keys)), False
    buf = np.frombuffer(text.encode("utf-8", "surrogateescape"), dtype=np.uint8)
    cuts = np.flatnonzero(buf == 0)
    if len(cuts) != len(keys) - 1:
        bad = next(k for k in keys if "\0" in str(k))
        raise InputError(f"found the id {bad!r}, which holds a NUL character", expected="ids without NUL characters")
    return ids_from_buffer(buf, np.concatenate(([0], cuts + 1)), np.append(cuts, len(buf))), texts


def nested_columns(data: Mapping, kind: str, name: Optional[str] = None) -> Columns:
    """``{qid: {docid: score}}`` (``kind`` "run") or ``{qid: {docid: grade}}`` ("qrels") as Columns, checked as
    a file's are: numbers only, integer grades, no NaN score, no (query, document) twice.  TypeError when
    ``data`` is not of that form (the caller tries the other readers)."""
    from metrics.io.checks import _first_duplicate
    from metrics.io.table import Columns, grade_dtype

    inner = list(data.values())
    if not all(isinstance(docs, Mapping) for docs in inner):
        raise TypeError("not {qid: {docid: value}}")
    counts = np.fromiter(map(len, inner), dtype=np.int64, count=len(inner))
    n = int(counts.sum())
    qids, distinct_queries = _ids(list(data.keys()))
    qid = np.repeat(qids, counts)
    doc, distinct_docs = _ids(list(chain.from_iterable(inner)))
    try:
        value = np.fromiter(chain.from_iterable(d.values() for d in inner), dtype=np.float64, count=n)
    except (TypeError, ValueError):
        bad = next(v for d in inner for v in d.values() if not _is_number(v))
        raise InputError(f"found the value {bad!r}", expected="numbers: {qid: {docid: value}}") from None
    if kind == "run":
        if np.isnan(value).any():
            raise InputError("found the score NaN", expected="scores that are numbers, not NaN")
    else:
        bad_grade = ~np.isfinite(value) | (value != np.floor(value))
        if bad_grade.any():
            found = value[np.flatnonzero(bad_grade)[0]]
            raise InputError(f"found the grade {float(found)!r}", expected="integer grades")
        value = value.astype(np.int64)
        value = value.astype(grade_dtype(value), copy=False)
    cols = Columns(kind, qid, doc, value)
    # str keys of a dict are distinct, and so are their UTF-8 bytes: only keys of other types (1 and "1") can
    # repeat a (query, document) pair
    found_twice = None if distinct_queries and distinct_docs else _first_duplicate(cols)
    if found_twice is not None:
        row = found_twice[0]
        shown = [bytes(x).decode("utf-8", "replace") for x in (cols.doc[row], cols.qid[row])]
        raise InputError(
            f"found document {shown[0]!r} twice for query {shown[1]!r} (two keys of the same text)",
            expected="each document at most once per query",
        )
    if kind == "run":
        cols.name = cols.run_id = name or "run"
        if len(counts) and not counts.all():  # queries of the run without documents: scored, as pytrec_eval does
            cols.empty_queries = qids[counts == 0]
    return cols


def _is_number(v) -> bool:
    return isinstance(v, (int, float, np.number)) and not isinstance(v, bool)
