"""What a qrels file may not hold, found on its columns: a (query, document) pair twice (by 64-bit keys,
confirmed on the ids, reported with both lines), or an intent column where ad hoc qrels were expected
(:class:`~metrics.errors.IntentQrelsError`, which names the measures to use instead)."""

from __future__ import annotations

import sys
from typing import Optional

import numpy as np

from metrics.errors import InputError
from metrics.io.formats import (
    _show,
)
from metrics.io.ids import (
    among,
)
from metrics.io.lines import data_lines
from metrics.io.table import Columns


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


def _high_halves(keys: np.ndarray) -> np.ndarray:
    """The high 32 bits of each (native uint64) key, as a strided view: shifted and cast, a 250k-line
    run's keys would take three times their size for a moment, at the reader's peak of memory."""
    halves = np.ascontiguousarray(keys, dtype=np.uint64).view(np.uint32)
    return halves[1::2] if sys.byteorder == "little" else halves[0::2]


#: the measures hold, per judged query, the number of judged documents of each grade from 0 to the
#: highest (trec_eval's ``rel_levels``): a table of queries x (highest grade + 1) counts.  A file may
#: make it at most this many times as large as its lines, or this floor (2**24 counts, 128 MiB), so
#: that the memory a qrels file takes is bounded by its data, not by a value in it.
GRADE_CELLS_PER_LINE = 16
GRADE_CELLS_FLOOR = 1 << 24


def _check_grades(cols: Columns, display: Optional[str]) -> None:
    """Refuse a grade so high that the table of judged documents per grade would be out of proportion
    with the file (:data:`GRADE_CELLS_PER_LINE`), naming its line: ``99999999999`` would take 745 GiB
    (trec_eval 10.0 fails on it too: "Can't calculate measure")."""
    if not len(cols.value):
        return
    top = int(cols.value.max())
    limit = max(GRADE_CELLS_PER_LINE * len(cols), GRADE_CELLS_FLOOR)
    if top < 1 or (top + 1) * len(cols) <= limit:
        return  # (at most one query per line: the table is no larger)
    from metrics.io.ids import id_hash

    queries = len(np.unique(id_hash(cols.qid)))
    if (top + 1) * queries <= limit:
        return
    row = int(np.argmax(cols.value))
    line = None
    if display is not None and not (cols.layout is not None and cols.layout.json):
        shift = 1 if cols.layout is not None and cols.layout.header else 0  # the header is no data row
        line = data_lines(display, [row + shift])[0]
    at_most = max(limit // queries - 1, 1)
    raise InputError(
        f"found relevance {top}: the measures count each query's judged documents of every grade from 0 to "
        f"the highest, {(top + 1) * queries:,} counts for {queries:,} {'query' if queries == 1 else 'queries'} "
        f"of {len(cols):,} judgments",
        path=display,
        line=line,
        expected=f"grades up to {at_most:,} for this file (TREC's are 0 to 4)",
    )
